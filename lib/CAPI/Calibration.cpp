//===- Calibration.cpp - Static quantization C API ------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm-c/Calibration.h"

#include "Diagnostics.h"
#include "Runtime.h"

#include "llm/Runtime/Calibration.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::runtime;
using mlir::llm::capi::DiagnosticCapture;

/// Splits `options` into the calibration's own items (into `calibrate`) and
/// the compile options (returned); false on an error added to `diags`.
static bool parseCalibrateOptions(StringRef text, CalibrateOptions &calibrate,
                                  std::string &compileItems,
                                  DiagnosticCapture &diags) {
  SmallVector<StringRef> items, rest;
  SplitString(text, items);
  auto bad = [&](StringRef item, const Twine &why) {
    diags.addError("invalid option '" + item + "': " + why);
    return false;
  };
  auto parseBool = [&](StringRef item, StringRef value, bool &out) {
    if (value == "1" || value == "true")
      out = true;
    else if (value == "0" || value == "false")
      out = false;
    else
      return bad(item, "expected true, false, 1 or 0");
    return true;
  };
  QuantizeActivationsOptions &q = calibrate.quantize;
  for (StringRef item : items) {
    auto [key, value] = item.split('=');
    if (!item.contains('='))
      return bad(item, "expected KEY=VALUE");
    if (key == "method") {
      std::optional<CalibrationMethod> m = parseCalibrationMethod(value);
      if (!m)
        return bad(item, "expected minmax, percentile or entropy");
      q.method = *m;
    } else if (key == "percentile") {
      double p;
      if (value.getAsDouble(p) || !(p > 0 && p <= 100))
        return bad(item, "expected a number in (0, 100]");
      q.percentile = p;
    } else if (key == "per-channel-weights") {
      if (!parseBool(item, value, q.perChannelWeights))
        return false;
    } else if (key == "fp8") {
      if (!parseBool(item, value, q.fp8))
        return false;
    } else if (key == "exclude") {
      SmallVector<StringRef> globs;
      value.split(globs, ',', -1, /*KeepEmpty=*/false);
      for (StringRef g : globs)
        q.exclude.push_back(g.str());
    } else if (key == "holdout") {
      if (value.getAsInteger(10, calibrate.holdout) || calibrate.holdout < -1)
        return bad(item, "expected an integer >= -1");
    } else if (key == "smooth-alpha") {
      double a;
      if (value.getAsDouble(a) || !(a >= 0 && a <= 1))
        return bad(item, "expected a number in [0, 1] (0: off)");
      calibrate.smoothAlpha = a;
    } else {
      if (key == "entry")
        q.entry = value.str();
      rest.push_back(item);
    }
  }
  compileItems = llvm::join(rest, " ");
  return true;
}

MlirLogicalResult llmcCalibrate(MlirModule module, MlirStringRef dataPath,
                                MlirStringRef options,
                                MlirStringCallback onModel,
                                MlirStringCallback onReport,
                                MlirStringCallback onError, void *userData) {
  ModuleOp original = unwrap(module);
  DiagnosticCapture diags(original.getContext(), onError, userData);
  CalibrateOptions calibrate;
  std::string compileItems;
  if (!parseCalibrateOptions(unwrap(options), calibrate, compileItems, diags))
    return mlirLogicalResultFailure();
  if (!capi::parseCompileOptions(compileItems, calibrate.compile,
                                 /*cacheOpts=*/nullptr, diags))
    return mlirLogicalResultFailure();
  OwningOpRef<ModuleOp> prepared = original.clone();
  if (failed(prepareForCalibration(*prepared)))
    return mlirLogicalResultFailure();
  FailureOr<EntrySignature> signature =
      getEntrySignature(*prepared, calibrate.compile.entry);
  if (failed(signature))
    return mlirLogicalResultFailure();
  llvm::Expected<std::vector<CalibrationSample>> samples =
      loadCalibrationSamples(unwrap(dataPath), *signature);
  if (!samples) {
    diags.addError(llvm::toString(samples.takeError()));
    return mlirLogicalResultFailure();
  }
  FailureOr<CalibrateResult> result =
      calibrateModel(*prepared, *samples, calibrate);
  if (failed(result) || diags.hadError())
    return mlirLogicalResultFailure();
  std::string text;
  llvm::raw_string_ostream os(text);
  result->quantized->print(os);
  if (onModel)
    onModel(wrap(StringRef(text)), userData);
  std::string report = formatCalibrationReportJSON(*result, calibrate);
  if (onReport)
    onReport(wrap(StringRef(report)), userData);
  return mlirLogicalResultSuccess();
}
