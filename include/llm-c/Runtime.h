/*===-- llm-c/Runtime.h - Compiled models C API -------------------*- C -*-===*\
|*                                                                            *|
|* Part of the llmc project, under the Apache License v2.0 with LLVM          *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* Compiles an llm-dialect module for a target into a model that runs on      *|
|* caller-provided buffers (a wrapper of mlir::llm::runtime::CompiledModel,   *|
|* llm/Runtime/CompiledModel.h). Errors never abort: see llm-c/Support.h.     *|
|*                                                                            *|
|* The entry function must be a public `func.func` whose arguments and        *|
|* results are all statically shaped tensors of f32, f64, f16, bf16, i1, i8,  *|
|* i32 or i64, except for one dynamic sequence dimension with a declared      *|
|* bound (argument attribute `llm.dim_bounds`, docs/Design.md).              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LLM_C_RUNTIME_H
#define LLM_C_RUNTIME_H

#include "llm-c/Support.h"
#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A compiled model (JIT-compiled machine code and the entry signature).
/// Owned by the caller; destroy with llmcCompiledModelDestroy.
typedef struct LlmcCompiledModel {
  void *ptr;
} LlmcCompiledModel;

/// A non-owning view of a dense row-major tensor: `rank` sizes in `shape`
/// (NULL allowed for rank 0) and `data` pointing at
/// product(shape) * llmcElementTypeGetSize(elementType) bytes. No alignment
/// beyond the natural alignment of the element type is required.
typedef struct LlmcTensor {
  LlmcElementType elementType;
  intptr_t rank;
  const int64_t *shape;
  void *data;
} LlmcTensor;

/// Compiles `module` for `target` and returns the model, or a null model
/// (llmcCompiledModelIsNull) after passing the errors to `onError`.
///
/// `target`: "cpu" (the host CPU; JIT through LLVM ORC), or a CPU target
/// name (a family, "generic", "avx2", "avx512", "avx512-vnni",
/// "avx512-bf16", or an x86-64 CPU that LLVM knows, "znver4", ...): the
/// pipeline's `target` (then not also in `options`), refused with an error
/// naming the ISA extension when this CPU lacks one of the target's;
/// "cuda" (an NVIDIA GPU: `llm-lower-to-nvvm` for the chip of the device
/// llmc's CUDA runtime uses, $LLMC_CUDA_DEVICE or 0; no CUDA driver or
/// device is an error saying which; needs a build with the CUDA toolkit;
/// not cached; llmcCompiledModelExecute's inputs and results are host
/// buffers, copied per call, llmcCompiledModelExecuteOnDevice's device
/// buffers; the weights live on the device from creation on), or
/// "cuda-emulator" (the
/// same kernels run on the CPU, to check them without a GPU). With the GPU
/// targets the pipeline options are `llm-lower-to-nvvm`'s. Any other value
/// is an error naming the supported targets.
///
/// `options`: whitespace-separated `KEY=VALUE` items (empty: defaults):
///   entry=NAME      the entry function (default: main)
///   opt-level=N     LLVM optimization and codegen level, 0-3 (default 3)
///   no-opt=BOOL     reference lowering: no graph optimizations, fusion,
///                   vectorization or OpenMP (default false)
///   threads=N       OpenMP threads of the parallel loops (the pipeline's
///                   num-threads; 0: the OpenMP default); CPU targets only
///                   (an error with "cuda" and "cuda-emulator")
///   cache=BOOL      use the compile cache (default true; also off when the
///                   environment has LLMC_CACHE=off)
///   cache-dir=PATH  the compile cache's directory (default
///                   $LLMC_CACHE_DIR, else $XDG_CACHE_HOME/llmc, else
///                   ~/.cache/llmc; docs/llmc.md)
///   any other KEY   an option of the `llm-lower-to-cpu` pipeline, e.g.
///                   vectorize=false parallel=false target=avx2
///                   register-tile=4,16,1, or sparsify=auto (pruned
///                   constant weights run by the sparse kernels,
///                   docs/Sparsity.md) (unknown keys are errors)
/// BOOL is true/false/1/0.
///
/// `module` is not modified (a copy is lowered) and may be destroyed right
/// after this call; the model keeps no reference to it or to its context.
/// The context gets the dialects and translations the lowering needs
/// appended to its registry. The entry's input/output names are the
/// `llm.name` argument/result attributes (set by the ONNX importer) when
/// present, else "argK" / "outK".
///
/// Compile cache (llm/Runtime/CompileCache.h): keyed by the module's
/// bytecode (locations included), the options, the host CPU and the llmc
/// build. On a hit the module is not lowered; the object code compiled
/// before is loaded. A cache directory that cannot be written prints a
/// warning on stderr and is not an error.
MLIR_CAPI_EXPORTED LlmcCompiledModel llmcCompiledModelCreate(
    MlirModule module, MlirStringRef target, MlirStringRef options,
    MlirStringCallback onError, void *userData);

/// Like llmcCompiledModelCreate for the model in the file at `path`: an ONNX
/// model when the name ends in `.onnx` (imported with `dims`, as by
/// llmcImportONNXFile), else MLIR assembly (`dims` must be empty). Keyed by
/// the file's bytes (for ONNX also the external data files it references
/// and `dims`): on a cache hit nothing is parsed, imported or lowered. The
/// module (on a miss) lives in `ctx`, which needs the dialects of
/// llmcRegisterAllDialects; the model keeps no reference to it.
MLIR_CAPI_EXPORTED LlmcCompiledModel llmcCompiledModelCreateFromFile(
    MlirContext ctx, MlirStringRef path, MlirStringRef dims,
    MlirStringRef target, MlirStringRef options, MlirStringCallback onError,
    void *userData);

/// Like llmcCompiledModelCreateFromFile for MLIR assembly held in memory
/// (`source`, not NUL-terminated; `sourceName` names it in diagnostics).
/// Keyed by the text: the same text as a .mlir file hits the same entry.
MLIR_CAPI_EXPORTED LlmcCompiledModel llmcCompiledModelCreateFromSource(
    MlirContext ctx, MlirStringRef source, MlirStringRef sourceName,
    MlirStringRef target, MlirStringRef options, MlirStringCallback onError,
    void *userData);

/// How `model` was obtained: "hit" (loaded from the compile cache), "miss"
/// (compiled, and stored in the cache unless it could not be written) or
/// "off" (compiled, caching off or not possible). Borrowed from `model`.
MLIR_CAPI_EXPORTED MlirStringRef
llmcCompiledModelGetCacheStatus(LlmcCompiledModel model);

/// Destroys `model` (no-op for a null model). The query functions below
/// require a non-null model.
MLIR_CAPI_EXPORTED void llmcCompiledModelDestroy(LlmcCompiledModel model);

/// True when `model` is null (creation failed).
static inline bool llmcCompiledModelIsNull(LlmcCompiledModel model) {
  return model.ptr == NULL;
}

/// The entry function's name (borrowed from `model`).
MLIR_CAPI_EXPORTED MlirStringRef
llmcCompiledModelGetEntryName(LlmcCompiledModel model);

/// Number of inputs (entry arguments) / outputs (entry results).
MLIR_CAPI_EXPORTED intptr_t
llmcCompiledModelGetNumInputs(LlmcCompiledModel model);
MLIR_CAPI_EXPORTED intptr_t
llmcCompiledModelGetNumOutputs(LlmcCompiledModel model);

/// Name, element type, rank and shape (`rank` sizes) of input/output `pos`
/// (0 <= pos < count; out of range: an empty name, F32, rank 0 and NULL).
/// Strings and shapes are borrowed from `model`. A dynamic (sequence)
/// dimension is reported as INT64_MIN (mlir::ShapedType::kDynamic): the
/// caller picks its length n (1 <= n <= the declared bound, the same n for
/// every dynamic dimension of the inputs and outputs).
MLIR_CAPI_EXPORTED MlirStringRef
llmcCompiledModelGetInputName(LlmcCompiledModel model, intptr_t pos);
MLIR_CAPI_EXPORTED LlmcElementType
llmcCompiledModelGetInputElementType(LlmcCompiledModel model, intptr_t pos);
MLIR_CAPI_EXPORTED intptr_t
llmcCompiledModelGetInputRank(LlmcCompiledModel model, intptr_t pos);
MLIR_CAPI_EXPORTED const int64_t *
llmcCompiledModelGetInputShape(LlmcCompiledModel model, intptr_t pos);
MLIR_CAPI_EXPORTED MlirStringRef
llmcCompiledModelGetOutputName(LlmcCompiledModel model, intptr_t pos);
MLIR_CAPI_EXPORTED LlmcElementType
llmcCompiledModelGetOutputElementType(LlmcCompiledModel model, intptr_t pos);
MLIR_CAPI_EXPORTED intptr_t
llmcCompiledModelGetOutputRank(LlmcCompiledModel model, intptr_t pos);
MLIR_CAPI_EXPORTED const int64_t *
llmcCompiledModelGetOutputShape(LlmcCompiledModel model, intptr_t pos);

/// Runs the entry on `inputs` (`numInputs` tensors, read only) and writes
/// its results into `outputs` (`numOutputs` caller-allocated tensors). The
/// counts, element types and shapes must equal the model's exactly (a
/// dynamic dimension: one length within the declared bound everywhere);
/// otherwise nothing runs and the error (naming the first mismatching
/// operand, its expected and given type, or the length and the bound) goes
/// to `onError`. Input and output
/// buffers must not overlap. The model keeps no pointer after returning.
/// Calls on the same model must not overlap in time (use one model per
/// thread).
MLIR_CAPI_EXPORTED MlirLogicalResult llmcCompiledModelExecute(
    LlmcCompiledModel model, const LlmcTensor *inputs, intptr_t numInputs,
    const LlmcTensor *outputs, intptr_t numOutputs, MlirStringCallback onError,
    void *userData);

/// True when `model` was compiled for target "cuda" and so takes device
/// buffers in llmcCompiledModelExecuteOnDevice.
MLIR_CAPI_EXPORTED bool
llmcCompiledModelTakesDeviceBuffers(LlmcCompiledModel model);

/// llmcCompiledModelExecute on CUDA device buffers, for a model compiled for
/// target "cuda" (else an error, and nothing runs): each tensor's `data` is
/// a device pointer (a CUdeviceptr, e.g. from cudaMalloc / cuMemAlloc or a
/// torch CUDA tensor's data_ptr()) in the CUDA context llmc's runtime uses
/// (the primary context of device $LLMC_CUDA_DEVICE, 0 by default: the one
/// the CUDA runtime API uses), dense and row-major as in
/// llmcCompiledModelExecute. No copy between host and device is made: the
/// kernels read the inputs and write the outputs in place (the one copy
/// each way is the 32-byte index-check status of a model with gathers).
/// The inputs must be complete on the device when the call starts (the
/// caller's stream that wrote them synchronized); the call returns when
/// the outputs are written. Errors as in llmcCompiledModelExecute (counts,
/// types, shapes, null pointers, an index out of range, a CUDA error); a
/// pointer that is not device memory of that context is a CUDA error
/// (an illegal address) reported by the call, or memory it corrupts.
MLIR_CAPI_EXPORTED MlirLogicalResult llmcCompiledModelExecuteOnDevice(
    LlmcCompiledModel model, const LlmcTensor *inputs, intptr_t numInputs,
    const LlmcTensor *outputs, intptr_t numOutputs, MlirStringCallback onError,
    void *userData);

#ifdef __cplusplus
}
#endif

#endif // LLM_C_RUNTIME_H
