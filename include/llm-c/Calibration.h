/*===-- llm-c/Calibration.h - Static quantization C API -----------*- C -*-===*\
|*                                                                            *|
|* Part of the llmc project, under the Apache License v2.0 with LLVM          *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* Static INT8 / FP8 quantization of an f32 llm-dialect module from sample    *|
|* inputs, what `llmc calibrate` does (docs/Calibration.md; a wrapper of      *|
|* mlir::llm::runtime::calibrateModel, llm/Runtime/Calibration.h). Errors     *|
|* never abort: see llm-c/Support.h.                                          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LLM_C_CALIBRATION_H
#define LLM_C_CALIBRATION_H

#include "llm-c/Support.h"
#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Quantizes `module` (not changed; its context needs the dialects of
/// llmcRegisterAllDialects) from the calibration samples at `dataPath` (a
/// .npz file, or a directory of .npz files or of sample directories with
/// NAME.npy per input; docs/Calibration.md): the module is prepared
/// (inlined, recomposed, constants folded), run on the calibration samples
/// with its activations recorded, quantized, and compared with the f32
/// model on the held-out samples. On success it calls `onModel` with the
/// quantized module's MLIR text and `onReport` with the JSON report (the
/// object of `llmc calibrate --report=json`), each in one or more pieces.
///
/// `options`: space-separated KEY=VALUE items:
///   method=minmax|percentile|entropy (default entropy), percentile=P
///   (in (0, 100], default 99.99), per-channel-weights=0|1, fp8=0|1,
///   exclude=GLOB[,GLOB...], holdout=N (-1: a quarter), smooth-alpha=A (in
///   (0, 1]; 0: off), entry=NAME, threads=N, and any llm-lower-to-cpu
///   option for the compiled models (as llmcCompiledModelCreate).
/// Errors (an unknown option, bad values, unreadable samples, a model that
/// does not compile) are reported through `onError`.
MLIR_CAPI_EXPORTED MlirLogicalResult
llmcCalibrate(MlirModule module, MlirStringRef dataPath, MlirStringRef options,
              MlirStringCallback onModel, MlirStringCallback onReport,
              MlirStringCallback onError, void *userData);

#ifdef __cplusplus
}
#endif

#endif // LLM_C_CALIBRATION_H
