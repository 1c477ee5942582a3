// On the GPU targets, `llmc run --target cuda-emulator --entry NAME` and
// `llmc compile --target cuda --entry NAME` compile NAME and what it calls,
// not the module's other functions (the CPU checks them all): @gather
// runs on the GPU emulator although @dynamic, which the GPU path refuses
// (dynamic shapes), is in the same file.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: llmc run %s --entry gather --target cuda-emulator --no-cache --output-dir %t/emu | FileCheck %s --check-prefix=EMU
// EMU: out0: tensor<2x4xf32>
// RUN: llmc run %s --entry gather --no-cache --output-dir %t/cpu | FileCheck %s --check-prefix=EMU
// RUN: %python -c "import numpy as np; a, b = np.load('%t/emu/out0.npy'), np.load('%t/cpu/out0.npy'); print(a.shape, np.array_equal(a, b))" | FileCheck %s --check-prefix=SAME
// SAME: (2, 4) True
// The refused function itself still gets its error.
// RUN: not llmc run %s --entry dynamic --target cuda-emulator --no-cache 2>&1 | FileCheck %s --check-prefix=REFUSED
// REFUSED: error: llm-form-gpu-kernels: a GPU kernel result must be a statically shaped tensor, got 'tensor<?x4xf32>'
// RUN: llmc compile %s --entry gather --target cuda --chip sm_80 --emit=ptx -o %t/gather.ptx --quiet
// RUN: FileCheck %s --check-prefix=PTX < %t/gather.ptx
// PTX: .visible .entry
// RUN: not grep -q dynamic %t/gather.ptx

func.func private @twice(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = llm.add %x, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

func.func @gather(%x: tensor<16x4xf32>, %i: tensor<2xi64>) -> tensor<2x4xf32> {
  %0 = llm.gather %x, %i {axis = 0 : i64} : (tensor<16x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %1 = func.call @twice(%0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

func.func @dynamic(%x: tensor<?x4xf32> {llm.dim_bounds = array<i64: 8, 4>}) -> tensor<?x4xf32> {
  %0 = llm.add %x, %x : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
