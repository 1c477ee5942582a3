//===- EntrySignature.cpp - Entry points of compiled models ---------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The entry signatures of a compiled model: the tensor types of an entry's
// arguments and results (TensorSpec, EntrySignature), their checks, and the
// choice of entries to compile.
//
//===----------------------------------------------------------------------===//

#include "RuntimeDetail.h"
#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::llm::runtime;
using mlir::llm::runtime::detail::getModuleDiagLoc;

//===----------------------------------------------------------------------===//
// Entry signature
//===----------------------------------------------------------------------===//

bool TensorSpec::isDynamic() const {
  return llvm::any_of(shape, ShapedType::isDynamic);
}

std::string TensorSpec::str() const {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s +=
        (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d)) + "x";
  s += getDTypeName(dtype).str() + ">";
  return s;
}

/// Converts `type` to a TensorSpec, or emits an error at `loc` describing
/// `what` (e.g. "argument #0").
/// With `seqBound` > 0, dynamic dimensions are the sequence length (at most
/// `seqBound`; the byte-size check uses the bound).
static FailureOr<TensorSpec> getTensorSpec(Type type, Location loc,
                                           StringRef entry, StringRef what,
                                           int64_t seqBound) {
  auto tensorTy = dyn_cast<RankedTensorType>(type);
  if (!tensorTy || (!tensorTy.hasStaticShape() && seqBound <= 0) ||
      tensorTy.getEncoding()) {
    return emitError(loc) << "entry function @" << entry << ": " << what
                          << " has type " << type
                          << "; only statically shaped tensors (without "
                             "encoding) are supported, or a dynamic sequence "
                             "dimension with a declared bound (argument "
                             "attribute llm.dim_bounds)";
  }
  std::optional<DType> dtype = getDTypeFromType(tensorTy.getElementType());
  if (!dtype) {
    return emitError(loc) << "entry function @" << entry << ": " << what
                          << " has element type " << tensorTy.getElementType()
                          << "; supported: f32, f64, f16, bf16, i1, i8, i32, "
                             "i64";
  }
  // The caller allocates and indexes these buffers with int64 counts: the
  // size in bytes must fit.
  int64_t bytes = getDTypeSize(*dtype);
  for (int64_t d : tensorTy.getShape()) {
    if (llvm::MulOverflow(bytes, ShapedType::isDynamic(d) ? seqBound : d,
                          bytes)) {
      return emitError(loc)
             << "entry function @" << entry << ": " << what << " " << type
             << " is too large: its size in bytes overflows "
                "int64";
    }
  }
  TensorSpec spec;
  spec.dtype = *dtype;
  spec.shape.assign(tensorTy.getShape().begin(), tensorTy.getShape().end());
  return spec;
}

LogicalResult
mlir::llm::runtime::keepOnlyEntries(ModuleOp module,
                                    ArrayRef<std::string> entries) {
  llvm::StringSet<> keep;
  for (const std::string &name : entries)
    keep.insert(name);
  for (auto fn : module.getOps<func::FuncOp>())
    if (fn.isPublic() && !fn.isDeclaration() && !keep.contains(fn.getName()))
      fn.setPrivate();
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  pm.addPass(createSymbolDCEPass());
  return pm.run(module);
}

FailureOr<EntrySignature>
mlir::llm::runtime::getEntrySignature(ModuleOp module, StringRef entry) {
  Operation *symbol = module.lookupSymbol(entry);
  auto fn = dyn_cast_or_null<func::FuncOp>(symbol);
  if (!fn) {
    InFlightDiagnostic diag = emitError(getModuleDiagLoc(module));
    if (symbol)
      diag << "entry @" << entry << " is a '" << symbol->getName()
           << "', not a func.func";
    else
      diag << "entry function @" << entry << " not found";
    SmallVector<StringRef> publicFns;
    for (auto f : module.getOps<func::FuncOp>())
      if (f.isPublic() && !f.isExternal())
        publicFns.push_back(f.getSymName());
    if (publicFns.empty()) {
      diag << " (the module has no public function)";
    } else {
      diag << " (public functions:";
      for (StringRef name : publicFns)
        diag << " @" << name;
      diag << ")";
    }
    return failure();
  }
  if (fn.isExternal())
    return emitError(fn.getLoc())
           << "entry function @" << entry << " is a declaration (no body)";
  if (!fn.isPublic())
    return emitError(fn.getLoc())
           << "entry function @" << entry << " is not public";

  EntrySignature sig;
  sig.name = entry.str();
  // A dynamic sequence dimension: its bound (errors about the attributes
  // are emitted at the function).
  FailureOr<std::optional<SequenceDim>> seq =
      getSequenceDim(cast<FunctionOpInterface>(fn.getOperation()));
  if (failed(seq))
    return failure();
  if (*seq)
    sig.seqBound = (*seq)->bound;
  auto getName = [](DictionaryAttr attrs) {
    if (attrs)
      if (auto name = attrs.getAs<StringAttr>("llm.name"))
        return name.getValue().str();
    return std::string();
  };
  for (auto [i, arg] : llvm::enumerate(fn.getArguments())) {
    FailureOr<TensorSpec> spec =
        getTensorSpec(arg.getType(), arg.getLoc(), entry,
                      "argument #" + std::to_string(i), sig.seqBound);
    if (failed(spec))
      return failure();
    sig.inputs.push_back(*spec);
    sig.inputNames.push_back(getName(fn.getArgAttrDict(i)));
    sig.inputIsKVCache.push_back(fn.getArgAttr(i, kKVCacheAttrName) != nullptr);
  }
  for (auto [i, type] : llvm::enumerate(fn.getResultTypes())) {
    FailureOr<TensorSpec> spec = getTensorSpec(
        type, fn.getLoc(), entry, "result #" + std::to_string(i), sig.seqBound);
    if (failed(spec))
      return failure();
    sig.results.push_back(*spec);
    sig.resultNames.push_back(getName(fn.getResultAttrDict(i)));
  }
  return sig;
}

llvm::Expected<int64_t> EntrySignature::getSequenceLength(
    ArrayRef<ArrayRef<int64_t>> inputShapes) const {
  auto error = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  if (inputShapes.size() != inputs.size())
    return error("@" + name + " takes " + llvm::Twine(inputs.size()) +
                 " inputs, got " + llvm::Twine(inputShapes.size()));
  // No allocation unless there is an error (CompiledModel::invoke runs this
  // on every call).
  int64_t seq = -1;
  size_t seqInput = 0, seqDim = 0;
  for (auto [i, shape] : llvm::enumerate(inputShapes)) {
    const TensorSpec &spec = inputs[i];
    auto what = [&, i = i] { return "input #" + std::to_string(i); };
    if (shape.size() != spec.shape.size())
      return error(what() + ": expected " + spec.str() + ", got shape " +
                   formatShape(shape));
    for (auto [d, size] : llvm::enumerate(shape)) {
      int64_t want = spec.shape[d];
      if (!ShapedType::isDynamic(want)) {
        if (size != want)
          return error(what() + ": expected " + spec.str() + ", got shape " +
                       formatShape(shape));
        continue;
      }
      auto where = [&, d = d] {
        return what() + " dimension " + std::to_string(d);
      };
      if (size < 1 || size > seqBound)
        return error("@" + name + ": " + where() +
                     " (the sequence length) is " + llvm::Twine(size) +
                     ", outside [1, " + llvm::Twine(seqBound) +
                     "]: the model was compiled for sequences of at most " +
                     llvm::Twine(seqBound) + " (llm.dim_bounds)");
      if (seq >= 0 && size != seq)
        return error("@" + name + ": " + where() + " is " + llvm::Twine(size) +
                     " but input #" + llvm::Twine(seqInput) + " dimension " +
                     llvm::Twine(seqDim) + " is " + llvm::Twine(seq) +
                     " (every dynamic dimension is the one sequence length)");
      seq = size;
      seqInput = i;
      seqDim = d;
    }
  }
  return seq;
}

llvm::Expected<EntrySignature>
EntrySignature::specialize(ArrayRef<ArrayRef<int64_t>> inputShapes) const {
  llvm::Expected<int64_t> seq = getSequenceLength(inputShapes);
  if (!seq)
    return seq.takeError();
  EntrySignature concrete = *this;
  for (TensorSpec &spec : concrete.inputs)
    for (int64_t &d : spec.shape)
      if (ShapedType::isDynamic(d))
        d = *seq;
  for (TensorSpec &spec : concrete.results)
    for (int64_t &d : spec.shape)
      if (ShapedType::isDynamic(d))
        d = *seq;
  return concrete;
}
