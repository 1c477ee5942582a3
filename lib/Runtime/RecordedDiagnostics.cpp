//===- RecordedDiagnostics.cpp - Compile diagnostics kept with a model ----===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/RecordedDiagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

using namespace mlir;
using namespace mlir::llm::runtime;

/// `loc` in the JSON form of RecordedDiagnostic::location.
static llvm::json::Value locationToJSON(Location loc) {
  if (auto file = dyn_cast<FileLineColRange>(loc)) {
    llvm::json::Object object{
        {"file", file.getFilename().str()},
        {"line", static_cast<int64_t>(file.getStartLine())},
        {"column", static_cast<int64_t>(file.getStartColumn())},
    };
    if (!isStrictFileLineColLoc(file)) {
      object["end_line"] = static_cast<int64_t>(file.getEndLine());
      object["end_column"] = static_cast<int64_t>(file.getEndColumn());
    }
    return object;
  }
  if (auto name = dyn_cast<NameLoc>(loc))
    return llvm::json::Object{{"name", name.getName().str()},
                              {"child", locationToJSON(name.getChildLoc())}};
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return llvm::json::Object{{"callee", locationToJSON(callSite.getCallee())},
                              {"caller", locationToJSON(callSite.getCaller())}};
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    llvm::json::Array locations;
    for (Location part : fused.getLocations())
      locations.push_back(locationToJSON(part));
    return llvm::json::Object{{"fused", std::move(locations)}};
  }
  if (auto opaque = dyn_cast<OpaqueLoc>(loc))
    return locationToJSON(opaque.getFallbackLocation());
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

/// The location that locationToJSON wrote as `value`; an unknown location
/// for (a part) not of that form. (Entries are checksummed: such parts come
/// only from a hand-edited entry.)
static Location locationFromJSON(MLIRContext &ctx,
                                 const llvm::json::Value *value) {
  Location unknown = UnknownLoc::get(&ctx);
  const llvm::json::Object *object = value ? value->getAsObject() : nullptr;
  if (!object)
    return unknown;
  if (std::optional<llvm::StringRef> file = object->getString("file")) {
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
                        locationFromJSON(ctx, object->get("child")));
  if (object->get("callee"))
    return CallSiteLoc::get(locationFromJSON(ctx, object->get("callee")),
                            locationFromJSON(ctx, object->get("caller")));
  if (const llvm::json::Array *parts = object->getArray("fused")) {
    SmallVector<Location> locations;
    for (const llvm::json::Value &part : *parts)
      locations.push_back(locationFromJSON(ctx, &part));
    return FusedLoc::get(&ctx, locations);
  }
  return unknown;
}

static RecordedDiagnostic record(Diagnostic &diag) {
  RecordedDiagnostic r;
  r.severity = diag.getSeverity();
  r.location = locationToJSON(diag.getLocation());
  r.message = diag.str();
  for (Diagnostic &note : diag.getNotes())
    r.notes.push_back(record(note));
  return r;
}

DiagnosticRecorder::DiagnosticRecorder(MLIRContext &ctx) : ctx(ctx) {
  handlerID = ctx.getDiagEngine().registerHandler([this](Diagnostic &diag) {
    DiagnosticSeverity severity = diag.getSeverity();
    if (severity == DiagnosticSeverity::Warning ||
        severity == DiagnosticSeverity::Remark)
      diagnostics.push_back(record(diag));
    return failure(); // The earlier handlers print it.
  });
}

DiagnosticRecorder::~DiagnosticRecorder() {
  ctx.getDiagEngine().eraseHandler(handlerID);
}

void mlir::llm::runtime::replayDiagnostics(
    MLIRContext &ctx, llvm::ArrayRef<RecordedDiagnostic> diagnostics) {
  auto getLocation = [&](const RecordedDiagnostic &r) {
    return locationFromJSON(ctx, &r.location);
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

bool mlir::llm::runtime::diagnosticsFromJSON(
    const llvm::json::Array &array,
    std::vector<RecordedDiagnostic> &diagnostics) {
  diagnostics.clear();
  for (const llvm::json::Value &value : array) {
    const llvm::json::Object *object = value.getAsObject();
    if (!object)
      return false;
    std::optional<llvm::StringRef> severity = object->getString("severity");
    const llvm::json::Value *location = object->get("location");
    std::optional<llvm::StringRef> message = object->getString("message");
    const llvm::json::Array *notes = object->getArray("notes");
    if (!severity || !location || !message || !notes)
      return false;
    RecordedDiagnostic r;
    if (*severity == "warning")
      r.severity = DiagnosticSeverity::Warning;
    else if (*severity == "remark")
      r.severity = DiagnosticSeverity::Remark;
    else if (*severity == "note")
      r.severity = DiagnosticSeverity::Note;
    else
      return false;
    r.location = *location;
    r.message = message->str();
    if (!diagnosticsFromJSON(*notes, r.notes))
      return false;
    diagnostics.push_back(std::move(r));
  }
  return true;
}
