//===- RecordedDiagnostics.cpp - Compile diagnostics kept with a model ----===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/RecordedDiagnostics.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::llm::runtime;

/// `text` as JSON takes it: valid UTF-8 (llvm::json asserts otherwise).
static std::string toUTF8(llvm::StringRef text) {
  return llvm::json::isUTF8(text) ? text.str() : llvm::json::fixUTF8(text);
}

/// `loc` in the JSON form of RecordedDiagnostic::location; file locations
/// in a file for which `isModel` holds are marked "model" instead of naming
/// it.
static llvm::json::Value
locationToJSON(Location loc,
               llvm::function_ref<bool(llvm::StringRef)> isModel) {
  auto toJSON = [&](Location part) { return locationToJSON(part, isModel); };
  if (auto file = dyn_cast<FileLineColRange>(loc)) {
    llvm::json::Object object{
        {"line", static_cast<int64_t>(file.getStartLine())},
        {"column", static_cast<int64_t>(file.getStartColumn())},
    };
    if (isModel(file.getFilename().getValue()))
      object["model"] = true;
    else
      object["file"] = toUTF8(file.getFilename().getValue());
    if (!isStrictFileLineColLoc(file)) {
      object["end_line"] = static_cast<int64_t>(file.getEndLine());
      object["end_column"] = static_cast<int64_t>(file.getEndColumn());
    }
    return object;
  }
  if (auto name = dyn_cast<NameLoc>(loc))
    return llvm::json::Object{{"name", toUTF8(name.getName().getValue())},
                              {"child", toJSON(name.getChildLoc())}};
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return llvm::json::Object{{"callee", toJSON(callSite.getCallee())},
                              {"caller", toJSON(callSite.getCaller())}};
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    llvm::json::Array locations;
    for (Location part : fused.getLocations())
      locations.push_back(toJSON(part));
    llvm::json::Object object{{"fused", std::move(locations)}};
    if (Attribute metadata = fused.getMetadata()) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << metadata;
      object["metadata"] = toUTF8(text);
    }
    return object;
  }
  if (auto opaque = dyn_cast<OpaqueLoc>(loc))
    return toJSON(opaque.getFallbackLocation());
  return nullptr;
}

/// A line or column number of `object` at `key`, if one.
static std::optional<unsigned> getNumber(const llvm::json::Object &object,
                                         llvm::StringRef key) {
  std::optional<int64_t> n = object.getInteger(key);
  if (!n || *n < 0 || *n > UINT32_MAX)
    return std::nullopt;
  return static_cast<unsigned>(*n);
}

/// The location that locationToJSON wrote as `value`, "model" naming
/// `modelName`; an unknown location for (a part) not of that form. (Entries
/// are checksummed: such parts come only from a hand-edited entry.)
static Location locationFromJSON(MLIRContext &ctx,
                                 const llvm::json::Value *value,
                                 llvm::StringRef modelName) {
  auto fromJSON = [&](const llvm::json::Value *part) {
    return locationFromJSON(ctx, part, modelName);
  };
  Location unknown = UnknownLoc::get(&ctx);
  const llvm::json::Object *object = value ? value->getAsObject() : nullptr;
  if (!object)
    return unknown;
  std::optional<llvm::StringRef> file = object->getString("file");
  if (!file && object->getBoolean("model").value_or(false))
    file = modelName;
  if (file) {
    std::optional<unsigned> line = getNumber(*object, "line");
    std::optional<unsigned> column = getNumber(*object, "column");
    std::optional<unsigned> endLine = getNumber(*object, "end_line");
    std::optional<unsigned> endColumn = getNumber(*object, "end_column");
    if (!line || !column)
      return unknown;
    if (!endLine || !endColumn)
      return FileLineColLoc::get(&ctx, *file, *line, *column);
    return FileLineColRange::get(&ctx, *file, *line, *column, *endLine,
                                 *endColumn);
  }
  if (std::optional<llvm::StringRef> name = object->getString("name"))
    return NameLoc::get(StringAttr::get(&ctx, *name),
                        fromJSON(object->get("child")));
  if (object->get("callee"))
    return CallSiteLoc::get(fromJSON(object->get("callee")),
                            fromJSON(object->get("caller")));
  if (const llvm::json::Array *parts = object->getArray("fused")) {
    SmallVector<Location> locations;
    for (const llvm::json::Value &part : *parts)
      locations.push_back(fromJSON(&part));
    // The metadata as it was printed (a dialect not loaded here fails to
    // parse: the location then has none).
    Attribute metadata;
    if (std::optional<llvm::StringRef> text = object->getString("metadata")) {
      ScopedDiagnosticHandler silence(&ctx,
                                      [](Diagnostic &) { return success(); });
      metadata = parseAttribute(*text, &ctx);
    }
    return FusedLoc::get(locations, metadata, &ctx);
  }
  return unknown;
}

static RecordedDiagnostic
record(Diagnostic &diag, llvm::function_ref<bool(llvm::StringRef)> isModel) {
  RecordedDiagnostic r;
  r.severity = diag.getSeverity();
  r.location = locationToJSON(diag.getLocation(), isModel);
  r.message = toUTF8(diag.str());
  for (Diagnostic &note : diag.getNotes())
    r.notes.push_back(record(note, isModel));
  return r;
}

/// Whether the file `path` holds `"path"` (in a location written in it).
static bool namesItself(llvm::StringRef path) {
  if (!llvm::sys::fs::is_regular_file(path))
    return false;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  return file && (*file)->getBuffer().contains(("\"" + path + "\"").str());
}

DiagnosticRecorder::DiagnosticRecorder(MLIRContext &ctx,
                                       llvm::StringRef modelName)
    : ctx(ctx), modelName(modelName.str()) {
  handlerID = ctx.getDiagEngine().registerHandler([this](Diagnostic &diag) {
    DiagnosticSeverity severity = diag.getSeverity();
    if (severity == DiagnosticSeverity::Warning ||
        severity == DiagnosticSeverity::Remark)
      diagnostics.push_back(record(
          diag, [this](llvm::StringRef file) { return isModelFile(file); }));
    return failure(); // The earlier handlers print it.
  });
}

bool DiagnosticRecorder::isModelFile(llvm::StringRef file) {
  if (modelName.empty() || file != modelName)
    return false;
  if (!modelNamesItself)
    modelNamesItself = namesItself(modelName);
  return !*modelNamesItself;
}

DiagnosticRecorder::~DiagnosticRecorder() {
  ctx.getDiagEngine().eraseHandler(handlerID);
}

void mlir::llm::runtime::replayDiagnostics(
    MLIRContext &ctx, llvm::ArrayRef<RecordedDiagnostic> diagnostics,
    llvm::StringRef modelName) {
  auto getLocation = [&](const RecordedDiagnostic &r) {
    return locationFromJSON(ctx, &r.location, modelName);
  };
  for (const RecordedDiagnostic &r : diagnostics) {
    Location loc = getLocation(r);
    InFlightDiagnostic diag = r.severity == DiagnosticSeverity::Remark
                                  ? emitRemark(loc)
                                  : emitWarning(loc);
    diag << r.message;
    for (const RecordedDiagnostic &note : r.notes)
      diag.attachNote(getLocation(note)) << note.message;
  }
}

static llvm::StringRef getSeverityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Remark:
    return "remark";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Warning:
  case DiagnosticSeverity::Error:
    break;
  }
  return "warning";
}

llvm::json::Array mlir::llm::runtime::diagnosticsToJSON(
    llvm::ArrayRef<RecordedDiagnostic> diagnostics) {
  llvm::json::Array array;
  for (const RecordedDiagnostic &r : diagnostics)
    array.push_back(llvm::json::Object{
        {"severity", getSeverityName(r.severity)},
        {"location", r.location},
        {"message", r.message},
        {"notes", diagnosticsToJSON(r.notes)},
    });
  return array;
}

/// diagnosticsFromJSON of the diagnostics (`notes` false) or of the notes
/// of one (which have no notes of their own).
static bool parseDiagnostics(const llvm::json::Array &array, bool notes,
                             std::vector<RecordedDiagnostic> &diagnostics) {
  diagnostics.clear();
  for (const llvm::json::Value &value : array) {
    const llvm::json::Object *object = value.getAsObject();
    if (!object)
      return false;
    std::optional<llvm::StringRef> severity = object->getString("severity");
    const llvm::json::Value *location = object->get("location");
    std::optional<llvm::StringRef> message = object->getString("message");
    const llvm::json::Array *nested = object->getArray("notes");
    if (!severity || !location || !message || !nested ||
        (notes && !nested->empty()))
      return false;
    RecordedDiagnostic r;
    if (notes && *severity == "note")
      r.severity = DiagnosticSeverity::Note;
    else if (!notes && *severity == "warning")
      r.severity = DiagnosticSeverity::Warning;
    else if (!notes && *severity == "remark")
      r.severity = DiagnosticSeverity::Remark;
    else
      return false;
    r.location = *location;
    r.message = message->str();
    if (!notes && !parseDiagnostics(*nested, /*notes=*/true, r.notes))
      return false;
    diagnostics.push_back(std::move(r));
  }
  return true;
}

bool mlir::llm::runtime::diagnosticsFromJSON(
    const llvm::json::Array &array,
    std::vector<RecordedDiagnostic> &diagnostics) {
  return parseDiagnostics(array, /*notes=*/false, diagnostics);
}
