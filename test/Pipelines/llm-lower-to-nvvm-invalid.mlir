// Bad llm-lower-to-nvvm / llm-lower-to-gpu-emulator options are refused
// before any pass runs (LowerToNVVMOptions::verify), with exit code 1: an
// empty chip in the list crashed nvvm-attach-target's verifier, and upstream
// gpu-module-to-binary printed "Invalid format specified." and exited 0.
//
// RUN: not llm-opt %s --llm-lower-to-nvvm="format=isa chip=sm_80," 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not llm-opt %s --llm-lower-to-nvvm="chip=sm_80,,sm_90a" 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not llm-opt %s --llm-lower-to-nvvm="chip=sm_70" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not llm-opt %s --llm-lower-to-nvvm="format=bogus" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not llm-opt %s --llm-lower-to-nvvm="opt-level=4" 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not llm-opt %s --llm-lower-to-gpu-emulator="block-size=-64" 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not llm-opt %s --llm-lower-to-gpu-emulator="opt-level=99" 2>&1 | FileCheck %s --check-prefix=OPT99
// RUN: not llm-opt %s --llm-lower-to-nvvm="tensor-parallel=0" 2>&1 | FileCheck %s --check-prefix=TP
// RUN: not llm-opt %s --llm-lower-to-nvvm="tensor-parallel=2 rank=2" 2>&1 | FileCheck %s --check-prefix=RANK
//
// llmc checks the same options in --pipeline-options, and refuses chip= and
// opt-level= for --target cuda (--chip and --opt-level set them, and would
// override them without a word).
// RUN: not llmc run %s --entry f --target cuda-emulator --pipeline-options="chip=sm_80," 2>&1 | FileCheck %s --check-prefix=LLMC-EMPTY
// RUN: not llmc compile %s --entry f --target cuda --emit=mlir -o %t.mlir --pipeline-options="chip=sm_90a" 2>&1 | FileCheck %s --check-prefix=LLMC-CHIP
//
// EMPTY: error: llm-lower-to-nvvm: unknown chip '' in chip= (expected sm_80, sm_89 or sm_90a)
// CHIP: error: llm-lower-to-nvvm: unknown chip 'sm_70' in chip= (expected sm_80, sm_89 or sm_90a)
// FORMAT: error: llm-lower-to-nvvm: unknown kernel format 'bogus' in format= (expected isa, bin or fatbin)
// OPT: error: llm-lower-to-nvvm: opt-level must be 0-3, got 4
// BLOCK: error: llm-lower-to-gpu-emulator: block-size must be 0 (the chip's) or a multiple of 32 up to 1024, got -64
// OPT99: error: llm-lower-to-gpu-emulator: opt-level must be 0-3, got 99
// TP: error: llm-lower-to-nvvm: tensor-parallel must be at least 1 (1: off), got 0
// RANK: error: llm-lower-to-nvvm: rank must be in [0, tensor-parallel) = [0, 2), got 2
// LLMC-EMPTY: llm-lower-to-nvvm-invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: invalid pipeline options 'chip=sm_80,': unknown chip '' in chip= (expected sm_80, sm_89 or sm_90a)
// LLMC-CHIP: llm-lower-to-nvvm-invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: give the chips and the optimization level with --chip and --opt-level, not chip= or opt-level= in the pipeline options

func.func @f(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = llm.matmul %a, %b : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
