// Errors of llm-quantize-activations: each is one diagnostic and the pass
// fails.
// RUN: %python %S/Inputs/make_ranges.py good %t.good.json
// RUN: %python %S/Inputs/make_ranges.py othertype %t.other.json
// RUN: %python %S/Inputs/make_ranges.py missing %t.missing.json
// RUN: %python %S/Inputs/make_ranges.py badhist %t.badhist.json
// RUN: not llm-opt %s --llm-quantize-activations 2>&1 | FileCheck %s --check-prefix=NORANGES
// NORANGES: error: llm-quantize-activations: ranges=FILE is required
// RUN: not llm-opt %s --llm-quantize-activations="ranges=%t.good.json method=kl" 2>&1 | FileCheck %s --check-prefix=METHOD
// METHOD: error: llm-quantize-activations: unknown method 'kl' (minmax, percentile or entropy)
// RUN: not llm-opt %s --llm-quantize-activations="ranges=%t.good.json method=percentile percentile=0" 2>&1 | FileCheck %s --check-prefix=PCT
// PCT: error: llm-quantize-activations: percentile must be in (0, 100], got 0
// RUN: not llm-opt %s --llm-quantize-activations="ranges=%t.other.json" 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: error: llm-quantize-activations: the calibration table's t0 is a tensor<2x8xf32> read by llm.matmul (t0-name), but this module's t0 is a tensor<4x8xf32> read by llm.matmul (fc1:lhs): the table was recorded for another model or another preparation of it
// RUN: not llm-opt %s --llm-quantize-activations="ranges=%t.missing.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: llm-quantize-activations: the calibration table has no entry for t1 (fc2:lhs, tensor<4x16xf32> read by llm.matmul)
// RUN: not llm-opt %s --llm-quantize-activations="ranges=%t.badhist.json" 2>&1 | FileCheck %s --check-prefix=HIST
// HIST: error: llm-quantize-activations: calibration table '{{.*}}': tensor 0: 't0': the histogram has 3 bins, expected 2048
// RUN: %python %S/Inputs/make_ranges.py badhistmax %t.badhistmax.json
// RUN: not llm-opt %s --llm-quantize-activations="ranges=%t.badhistmax.json" 2>&1 | FileCheck %s --check-prefix=HISTMAX
// HISTMAX: error: llm-quantize-activations: calibration table '{{.*}}': tensor 0: 't0': hist_max must be max(-min, max)
// RUN: %python %S/Inputs/make_ranges.py badcount %t.badcount.json
// RUN: not llm-opt %s --llm-quantize-activations="ranges=%t.badcount.json" 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: error: llm-quantize-activations: calibration table '{{.*}}': tensor 0: 't0': the histogram holds 1010 elements but count is 6144
// RUN: not llm-opt %s --llm-quantize-activations="ranges=%t.good.json entry=main2" 2>&1 | FileCheck %s --check-prefix=ENTRY2
// ENTRY2: error: llm-quantize-activations: no function @main2 with a body
// RUN: not llm-opt %s --llm-quantize-activations="ranges=%s" 2>&1 | FileCheck %s --check-prefix=NOTJSON
// NOTJSON: error: llm-quantize-activations: calibration table '{{.*}}': not JSON
// RUN: not llm-opt %s --llm-quantize-activations="ranges=%t.none.json" 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: error: llm-quantize-activations: cannot read calibration table '{{.*}}none.json'
// RUN: not llm-opt %s --llm-quantize-activations="ranges=%t.good.json exclude=[" 2>&1 | FileCheck %s --check-prefix=GLOB
// GLOB: error: llm-quantize-activations: exclude '['
// RUN: not llm-opt %s --llm-quantize-activations="ranges=%t.good.json entry=nope" 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: error: llm-quantize-activations: no function @nope with a body
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w1 = llm.constant dense<1.0> : tensor<8x16xf32>
  %w2 = llm.constant dense<0.5> : tensor<8x16xf32>
  %h = llm.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32> loc("fc1")
  %a = llm.relu %h : tensor<4x16xf32>
  %o = llm.matmul %a, %w2 {transpose_b} : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32> loc("fc2")
  return %o : tensor<4x8xf32>
}
