// llm.layer_norm (axis -1 and axis 1, with and without scale/bias, broadcast
// scale, custom epsilon) and llm.rms_norm (with/without weight), f32/f16/bf16.
//
// Each function runs through `llmc run --entry NAME` (JIT on the CPU) and its
// out0.npy is compared by `llmc_check expr` with the numpy reference of
// test/lib/llmc_ref.py, written from LLMOps.td (see llmc_check.py for the
// tolerances: f32 rtol 1e-5 + atol 1e-6, f16 2e-3 + 1e-3, bf16 1.6e-2 + 1e-2,
// `exact` for integers and data movement). Inputs are seeded (llmc_check gen).
// bf16 cases take and return f32 and cast inside (numpy has no bf16).
//
// RUN: rm -rf %t && mkdir -p %t/ln %t/ln_axis1 %t/ln_axis_neg2_bcast %t/ln_plain %t/ln_eps %t/rms %t/rms_noweight_eps %t/rms_3d %t/ln_f16 %t/rms_f16 %t/rms_bf16 %t/ln_bf16
// RUN: %python -m llmc_check gen %t x=4x16xf32:-3:5 g=16xf32 b=16xf32 z=2x3x8xf32 g38=3x8xf32 b38=3x8xf32 g8=8xf32 t=2x5xf32:-0.1:0.1 xh=4x16xf16 gh=16xf16 bh=16xf16 xb=4x16xbf16 gb=16xbf16

// Inputs in [-3, 5): a non-zero mean that must be removed.
// RUN: llmc run %s --entry ln --input arg0=%t/x.npy --input arg1=%t/g.npy --input arg2=%t/b.npy --output-dir %t/ln
// RUN: %python -m llmc_check expr "layer_norm(x, g, b)" --arg b=%t/b.npy --arg g=%t/g.npy --arg x=%t/x.npy --actual %t/ln/out0.npy --name ln | FileCheck %s --check-prefix=LN
// LN: ln: shape [4, 16] dtype float32 {{.*}} PASS
func.func @ln(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = llm.layer_norm %x scale %g bias %b {axis = -1 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// Normalizes over the last two dims (axis = 1 of 3).
// RUN: llmc run %s --entry ln_axis1 --input arg0=%t/z.npy --input arg1=%t/g38.npy --input arg2=%t/b38.npy --output-dir %t/ln_axis1
// RUN: %python -m llmc_check expr "layer_norm(z, g38, b38, axis=1)" --arg b38=%t/b38.npy --arg g38=%t/g38.npy --arg z=%t/z.npy --actual %t/ln_axis1/out0.npy --name ln_axis1 | FileCheck %s --check-prefix=LN_AXIS1
// LN_AXIS1: ln_axis1: shape [2, 3, 8] dtype float32 {{.*}} PASS
func.func @ln_axis1(%x: tensor<2x3x8xf32>, %g: tensor<3x8xf32>, %b: tensor<3x8xf32>) -> tensor<2x3x8xf32> {
  %0 = llm.layer_norm %x scale %g bias %b {axis = 1 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<2x3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// axis -2 with a scale of shape [8] broadcast to the normalized shape [3, 8],
// no bias.
// RUN: llmc run %s --entry ln_axis_neg2_bcast --input arg0=%t/z.npy --input arg1=%t/g8.npy --output-dir %t/ln_axis_neg2_bcast
// RUN: %python -m llmc_check expr "layer_norm(z, g8, axis=-2)" --arg g8=%t/g8.npy --arg z=%t/z.npy --actual %t/ln_axis_neg2_bcast/out0.npy --name ln_axis_neg2_bcast | FileCheck %s --check-prefix=LN_AXIS_NEG2_BCAST
// LN_AXIS_NEG2_BCAST: ln_axis_neg2_bcast: shape [2, 3, 8] dtype float32 {{.*}} PASS
func.func @ln_axis_neg2_bcast(%x: tensor<2x3x8xf32>, %g: tensor<8xf32>) -> tensor<2x3x8xf32> {
  %0 = llm.layer_norm %x scale %g {axis = -2 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// No scale or bias, default axis and epsilon.
// RUN: llmc run %s --entry ln_plain --input arg0=%t/x.npy --output-dir %t/ln_plain
// RUN: %python -m llmc_check expr "layer_norm(x)" --arg x=%t/x.npy --actual %t/ln_plain/out0.npy --name ln_plain | FileCheck %s --check-prefix=LN_PLAIN
// LN_PLAIN: ln_plain: shape [4, 16] dtype float32 {{.*}} PASS
func.func @ln_plain(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = llm.layer_norm %x : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// Small inputs (variance ~3e-3) so that epsilon = 1e-2 matters.
// RUN: llmc run %s --entry ln_eps --input arg0=%t/t.npy --output-dir %t/ln_eps
// RUN: %python -m llmc_check expr "layer_norm(t, epsilon=1e-2)" --arg t=%t/t.npy --actual %t/ln_eps/out0.npy --name ln_eps | FileCheck %s --check-prefix=LN_EPS
// LN_EPS: ln_eps: shape [2, 5] dtype float32 {{.*}} PASS
func.func @ln_eps(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = llm.layer_norm %x {epsilon = 1.0e-02 : f32} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// RUN: llmc run %s --entry rms --input arg0=%t/x.npy --input arg1=%t/g.npy --output-dir %t/rms
// RUN: %python -m llmc_check expr "rms_norm(x, g)" --arg g=%t/g.npy --arg x=%t/x.npy --actual %t/rms/out0.npy --name rms | FileCheck %s --check-prefix=RMS
// RMS: rms: shape [4, 16] dtype float32 {{.*}} PASS
func.func @rms(%x: tensor<4x16xf32>, %w: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = llm.rms_norm %x weight %w {epsilon = 1.0e-06 : f32} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// RUN: llmc run %s --entry rms_noweight_eps --input arg0=%t/t.npy --output-dir %t/rms_noweight_eps
// RUN: %python -m llmc_check expr "rms_norm(t, epsilon=1e-2)" --arg t=%t/t.npy --actual %t/rms_noweight_eps/out0.npy --name rms_noweight_eps | FileCheck %s --check-prefix=RMS_NOWEIGHT_EPS
// RMS_NOWEIGHT_EPS: rms_noweight_eps: shape [2, 5] dtype float32 {{.*}} PASS
func.func @rms_noweight_eps(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = llm.rms_norm %x {epsilon = 1.0e-02 : f32} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// RUN: llmc run %s --entry rms_3d --input arg0=%t/z.npy --output-dir %t/rms_3d
// RUN: %python -m llmc_check expr "rms_norm(z)" --arg z=%t/z.npy --actual %t/rms_3d/out0.npy --name rms_3d | FileCheck %s --check-prefix=RMS_3D
// RMS_3D: rms_3d: shape [2, 3, 8] dtype float32 {{.*}} PASS
func.func @rms_3d(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %0 = llm.rms_norm %x : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// RUN: llmc run %s --entry ln_f16 --input arg0=%t/xh.npy --input arg1=%t/gh.npy --input arg2=%t/bh.npy --output-dir %t/ln_f16
// RUN: %python -m llmc_check expr "layer_norm(xh, gh, bh)" --arg bh=%t/bh.npy --arg gh=%t/gh.npy --arg xh=%t/xh.npy --actual %t/ln_f16/out0.npy --dtype f16 --name ln_f16 | FileCheck %s --check-prefix=LN_F16
// LN_F16: ln_f16: shape [4, 16] dtype float16 {{.*}} PASS
func.func @ln_f16(%x: tensor<4x16xf16>, %g: tensor<16xf16>, %b: tensor<16xf16>) -> tensor<4x16xf16> {
  %0 = llm.layer_norm %x scale %g bias %b : (tensor<4x16xf16>, tensor<16xf16>, tensor<16xf16>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// RUN: llmc run %s --entry rms_f16 --input arg0=%t/xh.npy --input arg1=%t/gh.npy --output-dir %t/rms_f16
// RUN: %python -m llmc_check expr "rms_norm(xh, gh)" --arg gh=%t/gh.npy --arg xh=%t/xh.npy --actual %t/rms_f16/out0.npy --dtype f16 --name rms_f16 | FileCheck %s --check-prefix=RMS_F16
// RMS_F16: rms_f16: shape [4, 16] dtype float16 {{.*}} PASS
func.func @rms_f16(%x: tensor<4x16xf16>, %w: tensor<16xf16>) -> tensor<4x16xf16> {
  %0 = llm.rms_norm %x weight %w : (tensor<4x16xf16>, tensor<16xf16>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// RUN: llmc run %s --entry rms_bf16 --input arg0=%t/xb.npy --input arg1=%t/gb.npy --output-dir %t/rms_bf16
// RUN: %python -m llmc_check expr "rms_norm(xb, gb, dtype='bf16')" --arg gb=%t/gb.npy --arg xb=%t/xb.npy --actual %t/rms_bf16/out0.npy --dtype bf16 --name rms_bf16 | FileCheck %s --check-prefix=RMS_BF16
// RMS_BF16: rms_bf16: shape [4, 16] dtype float32 {{.*}} PASS
func.func @rms_bf16(%x: tensor<4x16xf32>, %w: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = llm.cast %x : (tensor<4x16xf32>) -> tensor<4x16xbf16>
  %1 = llm.cast %w : (tensor<16xf32>) -> tensor<16xbf16>
  %2 = llm.rms_norm %0 weight %1 : (tensor<4x16xbf16>, tensor<16xbf16>) -> tensor<4x16xbf16>
  %3 = llm.cast %2 : (tensor<4x16xbf16>) -> tensor<4x16xf32>
  return %3 : tensor<4x16xf32>
}

// RUN: llmc run %s --entry ln_bf16 --input arg0=%t/xb.npy --input arg1=%t/gb.npy --output-dir %t/ln_bf16
// RUN: %python -m llmc_check expr "layer_norm(xb, gb, dtype='bf16')" --arg gb=%t/gb.npy --arg xb=%t/xb.npy --actual %t/ln_bf16/out0.npy --dtype bf16 --name ln_bf16 | FileCheck %s --check-prefix=LN_BF16
// LN_BF16: ln_bf16: shape [4, 16] dtype float32 {{.*}} PASS
func.func @ln_bf16(%x: tensor<4x16xf32>, %g: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = llm.cast %x : (tensor<4x16xf32>) -> tensor<4x16xbf16>
  %1 = llm.cast %g : (tensor<16xf32>) -> tensor<16xbf16>
  %2 = llm.layer_norm %0 scale %1 : (tensor<4x16xbf16>, tensor<16xbf16>) -> tensor<4x16xbf16>
  %3 = llm.cast %2 : (tensor<4x16xbf16>) -> tensor<4x16xf32>
  return %3 : tensor<4x16xf32>
}
