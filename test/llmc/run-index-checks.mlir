// Run-time index checks: an llm.embedding / llm.gather index outside
// [-size, size) is an error after the call that names the op, its location,
// the index and the size; llmc run exits 1 and writes no output. In-range
// indices (negative ones count from the end) give numpy's result.
//
// RUN: rm -rf %t && mkdir -p %t/ok %t/bad
// RUN: %python -c "import numpy as np, sys; d = sys.argv[1]; np.save(d + '/ids_ok.npy', np.array([[0, -16, 15, 3]], np.int64)); np.save(d + '/ids_hi.npy', np.array([[1, 2, 16, 3]], np.int64)); np.save(d + '/ids_lo.npy', np.array([[1, -17, 0, 3]], np.int64)); np.save(d + '/idx_ok.npy', np.array([4, -5, 0], np.int32)); np.save(d + '/idx_bad.npy', np.array([1, 7, -9], np.int32))" %t
//
// RUN: llmc run %s --input arg0=%t/ids_ok.npy --input arg1=%t/idx_ok.npy --output-dir %t/ok
// RUN: %python -c "import numpy as np, sys; d = sys.argv[1]; t = (np.arange(128, dtype=np.float32) * 0.5).reshape(16, 8); x = (np.arange(10, dtype=np.float32) - 3).reshape(5, 2); e = t[np.load(d + '/ids_ok.npy')]; g = x[np.load(d + '/idx_ok.npy')]; print('emb', np.array_equal(np.load(d + '/ok/out0.npy'), e), 'gather', np.array_equal(np.load(d + '/ok/out1.npy'), g))" %t | FileCheck %s --check-prefix=OK
// OK: emb True gather True
//
// RUN: not llmc run %s --input arg0=%t/ids_hi.npy --input arg1=%t/idx_ok.npy --output-dir %t/bad 2>&1 | FileCheck %s --check-prefix=HI
// HI: llmc: error: llm.embedding at {{.*}}run-index-checks.mlir:[[# @LINE + 49]]:8: index 16 is out of range [-16, 16) of a dimension of size 16 (the outputs of this call are not valid)
// RUN: not llmc run %s --input arg0=%t/ids_lo.npy --input arg1=%t/idx_ok.npy --output-dir %t/bad 2>&1 | FileCheck %s --check-prefix=LO
// LO: llmc: error: llm.embedding at {{.*}}run-index-checks.mlir:[[# @LINE + 47]]:8: index -17 is out of range [-16, 16)
// The gather's i32 indices: the largest offending one is named.
// RUN: not llmc run %s --input arg0=%t/ids_ok.npy --input arg1=%t/idx_bad.npy --output-dir %t/bad 2>&1 | FileCheck %s --check-prefix=GATHER
// GATHER: llmc: error: llm.gather at {{.*}}run-index-checks.mlir:[[# @LINE + 45]]:8: index 7 is out of range [-5, 5) of a dimension of size 5
// Both bad: the first failing check of the call is reported.
// RUN: not llmc run %s --input arg0=%t/ids_hi.npy --input arg1=%t/idx_bad.npy --output-dir %t/bad 2>&1 | FileCheck %s --check-prefix=HI
// RUN: %python -c "import os, sys; print('files', os.listdir(sys.argv[1]))" %t/bad | FileCheck %s --check-prefix=NOFILES
// NOFILES: files []
//
// The check survives the compile cache: a hit (second run) reports the same.
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/cache llmc run %s --input arg0=%t/ids_ok.npy --input arg1=%t/idx_ok.npy --output-dir %t/ok
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/cache not llmc run %s --verbose --input arg0=%t/ids_hi.npy --input arg1=%t/idx_ok.npy --output-dir %t/bad 2>&1 | FileCheck %s --check-prefix=CACHED
// CACHED: cache hit
// CACHED: llmc: error: llm.embedding at {{.*}}: index 16 is out of range [-16, 16)
//
// Repeated calls: every call is checked (the status is reset before each).
// RUN: not llmc run %s --repeat 3 --warmup 1 --input arg0=%t/ids_hi.npy --input arg1=%t/idx_ok.npy 2>&1 | FileCheck %s --check-prefix=HI

//
// The same checks in GPU kernels, through the CUDA-kernel emulator: the
// kernels record into a device copy of the status that each call copies
// back (llm-forward-gpu-index-status); run-target-cuda-index-checks.mlir
// checks those copies on the CUDA route.
// RUN: llmc run %s --target cuda-emulator --no-cache --input arg0=%t/ids_ok.npy --input arg1=%t/idx_ok.npy --output-dir %t/ok-gpu
// RUN: %python -c "import numpy as np, sys; d = sys.argv[1]; t = (np.arange(128, dtype=np.float32) * 0.5).reshape(16, 8); x = (np.arange(10, dtype=np.float32) - 3).reshape(5, 2); e = t[np.load(d + '/ids_ok.npy')]; g = x[np.load(d + '/idx_ok.npy')]; print('emb', np.array_equal(np.load(d + '/ok-gpu/out0.npy'), e), 'gather', np.array_equal(np.load(d + '/ok-gpu/out1.npy'), g))" %t | FileCheck %s --check-prefix=OK
// RUN: not llmc run %s --target cuda-emulator --no-cache --input arg0=%t/ids_hi.npy --input arg1=%t/idx_ok.npy --output-dir %t/bad 2>&1 | FileCheck %s --check-prefix=HI
// RUN: not llmc run %s --target cuda-emulator --no-cache --input arg0=%t/ids_ok.npy --input arg1=%t/idx_bad.npy --output-dir %t/bad 2>&1 | FileCheck %s --check-prefix=GATHER
// RUN: not llmc run %s --target cuda-emulator --no-cache --input arg0=%t/ids_hi.npy --input arg1=%t/idx_bad.npy --output-dir %t/bad 2>&1 | FileCheck %s --check-prefix=HI
// RUN: not llmc run %s --target cuda-emulator --no-cache --repeat 3 --warmup 1 --input arg0=%t/ids_hi.npy --input arg1=%t/idx_ok.npy 2>&1 | FileCheck %s --check-prefix=HI
// RUN: %python -c "import os, sys; print('files', os.listdir(sys.argv[1]))" %t/bad | FileCheck %s --check-prefix=NOFILES
//
// A check in a called function: its failure is not overwritten by the
// caller's own (empty) status when the caller returns, and the caller's is
// reported too; the same on the CPU.
// RUN: %python -c "import numpy as np, sys; d = sys.argv[1]; np.save(d + '/c_ok.npy', np.array([[1, 2, 3, 4]], np.int64)); np.save(d + '/c_bad.npy', np.array([[1, 50, 3, 4]], np.int64))" %t
// RUN: not llmc run %S/Inputs/index-checks-call.mlir --target cuda-emulator --no-cache --input arg0=%t/c_bad.npy --input arg1=%t/c_ok.npy 2>&1 | FileCheck %s --check-prefix=CALLEE
// RUN: not llmc run %S/Inputs/index-checks-call.mlir --no-cache --input arg0=%t/c_bad.npy --input arg1=%t/c_ok.npy 2>&1 | FileCheck %s --check-prefix=CALLEE
// CALLEE: llmc: error: llm.embedding at {{.*}}index-checks-call.mlir:6:8: index 50 is out of range [-16, 16)
// RUN: not llmc run %S/Inputs/index-checks-call.mlir --target cuda-emulator --no-cache --input arg0=%t/c_ok.npy --input arg1=%t/c_bad.npy 2>&1 | FileCheck %s --check-prefix=CALLER
// CALLER: llmc: error: llm.embedding at {{.*}}index-checks-call.mlir:11:8: index 50 is out of range [-16, 16)
// RUN: llmc run %S/Inputs/index-checks-call.mlir --target cuda-emulator --no-cache --input arg0=%t/c_ok.npy --input arg1=%t/c_ok.npy
func.func @main(%ids: tensor<1x4xi64>, %idx: tensor<3xi32>) -> (tensor<1x4x8xf32>, tensor<3x2xf32>) {
  %r = llm.constant dense<0.5> : tensor<128xf32>
  %a = llm.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0, 120.0, 121.0, 122.0, 123.0, 124.0, 125.0, 126.0, 127.0]> : tensor<128xf32>
  %m = llm.mul %a, %r : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
  %t = llm.reshape %m : (tensor<128xf32>) -> tensor<16x8xf32>
  %x = llm.constant dense<[[-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<5x2xf32>
  %0 = llm.embedding %t, %ids : (tensor<16x8xf32>, tensor<1x4xi64>) -> tensor<1x4x8xf32>
  %1 = llm.gather %x, %idx {axis = 0 : i64} : (tensor<5x2xf32>, tensor<3xi32>) -> tensor<3x2xf32>
  return %0, %1 : tensor<1x4x8xf32>, tensor<3x2xf32>
}
