// Sizes, names and options that used to crash `llmc` (abort, SIGSEGV or an
// abort inside libomp): each case prints one diagnostic and exits with 1.
//
// RUN: rm -rf %t && split-file %s %t && mkdir -p %t/out
//
// A host tensor that cannot be allocated (1 PiB) is an error, not an abort.
// RUN: not llmc run %t/huge-arg.mlir 2>&1 | FileCheck %s --check-prefix=HUGEARG
// HUGEARG: llmc: error: arg0: cannot allocate 1125899906842624 bytes
// HUGEARG-NOT: LLVM ERROR
// RUN: not llmc run %t/huge-out.mlir 2>&1 | FileCheck %s --check-prefix=HUGEOUT
// HUGEOUT: llmc: error: out0: cannot allocate 1125899906842624 bytes
// HUGEOUT-NOT: LLVM ERROR
//
// Entry tensors whose size in bytes overflows int64 are rejected before
// anything is allocated (the count used to wrap to a tiny buffer).
// RUN: not llmc run %t/overflow-arg.mlir 2>&1 | FileCheck %s --check-prefix=OVFARG
// OVFARG: overflow-arg.mlir:1:17: error: entry function @main: argument #0 'tensor<4611686018427387905x4xf32>' is too large: its size in bytes overflows int64
// RUN: not llmc run %t/overflow-out.mlir 2>&1 | FileCheck %s --check-prefix=OVFOUT
// OVFOUT: overflow-out.mlir:1:1: error: entry function @main: result #0 'tensor<2305843009213693952x4xf32>' is too large: its size in bytes overflows int64
// RUN: not llmc compile %t/overflow-arg.mlir -o %t/x.o --emit=obj 2>&1 | FileCheck %s --check-prefix=OVFARG
//
// Intermediate tensors and constants too large to exist: a diagnostic on the
// op, exit code 1 and no output (the byte size of the broadcast used to wrap,
// and the program crashed at run time; the 24 TiB constant aborted the
// translation to LLVM IR with "LLVM ERROR: out of memory").
// RUN: not llmc run %t/overflow-mid.mlir 2>&1 | FileCheck %s --check-prefix=OVFMID
// OVFMID: overflow-mid.mlir:2:8: error: 'llm.broadcast_to' op result #0 type 'tensor<4611686018427387904x2x3xf32>' is too large: its size in bytes overflows int64 (llm-to-linalg lowers tensors of at most 2^47 bytes, 128 TiB)
// RUN: not llmc compile %t/huge-const.mlir -o %t/c.o --emit=obj 2>&1 | FileCheck %s --check-prefix=HUGECONST
// HUGECONST: huge-const.mlir:2:8: error: 'llm.constant' op result #0 type 'tensor<1099511627776x2x3xf32>' is too large: 26388279066624 bytes (llm-to-linalg lowers constants of at most 2^31 bytes, 2 GiB)
// HUGECONST-NOT: LLVM ERROR
// RUN: test ! -e %t/c.o
//
// An intermediate that fits the lowering but not the machine (64 TiB): the
// compiled code's allocation fails; llmc reports it (it used to write through
// the null pointer: SIGSEGV), writes no output, and so does an object linked
// into a C program (the fallback without a handler, or the program's own
// __llmc_out_of_memory).
// RUN: not llmc run %t/huge-mid.mlir --output-dir %t/mid 2>&1 | FileCheck %s --check-prefix=HUGEMID
// RUN: not llmc run %t/huge-mid.mlir --no-opt --threads 2 2>&1 | FileCheck %s --check-prefix=HUGEMID
// HUGEMID: llmc: error: out of memory: the compiled model could not allocate {{[0-9]+}} bytes (the outputs of this call are not valid)
// RUN: test ! -e %t/mid/out0.npy
// The caller's arena (as llmc generate uses) is allocated by the runtime: an
// error too (it used to abort in LLVM's new-handler).
// RUN: not llmc run %t/huge-mid.mlir --pipeline-options=memory-arena=caller 2>&1 | FileCheck %s --check-prefix=HUGEARENA
// HUGEARENA: error: JIT compilation failed: cannot allocate the model's arena of {{[0-9]+}} bytes
// HUGEARENA-NOT: LLVM ERROR
// RUN: llmc compile %t/huge-mid.mlir -o %t/mid.o --emit=obj
// RUN: clang-22 %S/Inputs/oom_main.c %t/mid.o -o %t/oom %omp_lib -lm -Wl,-rpath,%mlir_lib_dir
// RUN: not %t/oom 2>&1 | FileCheck %s --check-prefix=OOMOBJ
// OOMOBJ: llmc: out of memory: the compiled model could not allocate {{[0-9]+}} bytes
// OOMOBJ-NOT: returned
// RUN: clang-22 -DHANDLER %S/Inputs/oom_main.c %t/mid.o -o %t/oom-handler %omp_lib -lm -Wl,-rpath,%mlir_lib_dir
// RUN: %t/oom-handler > %t/handler.txt || test $? = 3
// RUN: FileCheck %s --check-prefix=OOMHANDLER < %t/handler.txt
// OOMHANDLER: handler: {{[0-9]+}} bytes
// OOMHANDLER-NOT: returned
//
// A function named like a library function the compiled code calls.
// RUN: not llmc run %t/clash-expf.mlir 2>&1 | FileCheck %s --check-prefix=EXPF
// EXPF: clash-expf.mlir:1:1: error: function name '@expf' clashes with a runtime library symbol the compiled code calls; rename it
// RUN: not llmc compile %t/clash-malloc.mlir -o %t/x.o --emit=obj 2>&1 | FileCheck %s --check-prefix=MALLOC
// MALLOC: clash-malloc.mlir:1:1: error: function name '@malloc' clashes with a runtime library symbol the compiled code calls; rename it
// RUN: test ! -e %t/x.o
//
// Thread counts libomp cannot handle.
// RUN: not llmc run %t/huge-arg.mlir --threads 100000 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: llmc: error: --threads must be in [1, 1024], got 100000
// RUN: not llmc run %t/huge-arg.mlir --threads 0 2>&1 | FileCheck %s --check-prefix=THREADS0
// THREADS0: llmc: error: --threads must be in [1, 1024], got 0
// RUN: not llmc run %t/huge-arg.mlir --threads=-3 2>&1 | FileCheck %s --check-prefix=THREADSNEG
// THREADSNEG: llmc: error: --threads must be in [1, 1024], got -3
// RUN: not llmc run %t/two.mlir --pipeline-options="num-threads=100000" 2>&1 | FileCheck %s --check-prefix=NUMTHREADS
// NUMTHREADS: two.mlir:1:1: error: invalid pipeline options 'num-threads=100000': num-threads must be in [0, 1024] (0: the OpenMP default), got 100000
//
// An output directory that cannot be created fails before compiling.
// RUN: not llmc run %t/huge-arg.mlir --output-dir /proc/llmc-no-such/out 2>&1 | FileCheck %s --check-prefix=MKDIR
// MKDIR: llmc: error: cannot create output directory '/proc/llmc-no-such/out': {{.+}}
// MKDIR-NOT: cannot allocate
//
// Output paths that are directories are named in the error.
// RUN: mkdir -p %t/dir %t/out/out1.npy
// RUN: not llmc compile %t/two.mlir -o %t/dir --emit=obj 2>&1 | FileCheck %s --check-prefix=ISDIR -DPATH=%t/dir
// ISDIR: llmc: error: cannot write '[[PATH]]': Is a directory
// RUN: not llmc run %t/two.mlir --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=ISDIR2 -DPATH=%t/out/out1.npy
// ISDIR2: llmc: error: cannot write '[[PATH]]': Is a directory
// All outputs or none: out0.npy was not written either, and no temporary
// file is left behind.
// RUN: test ! -e %t/out/out0.npy
// RUN: ls %t/out | count 1

//--- huge-arg.mlir
func.func @main(%a: tensor<70368744177664x4xf32>) -> tensor<70368744177664x4xf32> {
  %c = llm.relu %a : tensor<70368744177664x4xf32>
  return %c : tensor<70368744177664x4xf32>
}

//--- huge-out.mlir
func.func @main() -> tensor<70368744177664x4xf32> {
  %e = tensor.empty() : tensor<70368744177664x4xf32>
  return %e : tensor<70368744177664x4xf32>
}

//--- overflow-arg.mlir
func.func @main(%a: tensor<4611686018427387905x4xf32>) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  return %e : tensor<2xf32>
}

//--- overflow-out.mlir
func.func @main() -> tensor<2305843009213693952x4xf32> {
  %e = tensor.empty() : tensor<2305843009213693952x4xf32>
  return %e : tensor<2305843009213693952x4xf32>
}

//--- overflow-mid.mlir
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %b = llm.broadcast_to %x : (tensor<2x3xf32>) -> tensor<4611686018427387904x2x3xf32>
  %0 = llm.reduce_sum %b {axes = array<i64: 0>} : (tensor<4611686018427387904x2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

//--- huge-mid.mlir
func.func @main(%a: tensor<4194304x1xf32>, %b: tensor<1x4194304xf32>) -> tensor<4194304xf32> {
  %0 = llm.matmul %a, %b : (tensor<4194304x1xf32>, tensor<1x4194304xf32>) -> tensor<4194304x4194304xf32>
  %1 = llm.softmax %0 {axis = 1 : i64} : tensor<4194304x4194304xf32>
  %2 = llm.reduce_sum %1 {axes = array<i64: 1>, keepdims = false} : (tensor<4194304x4194304xf32>) -> tensor<4194304xf32>
  return %2 : tensor<4194304xf32>
}

//--- huge-const.mlir
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = llm.constant dense<1.0> : tensor<1099511627776x2x3xf32>
  %0 = llm.reduce_max %c {axes = array<i64: 0>} : (tensor<1099511627776x2x3xf32>) -> tensor<2x3xf32>
  %1 = llm.add %x, %0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

//--- clash-expf.mlir
func.func @expf(%x: f32) -> f32 {
  return %x : f32
}
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = llm.exp %a : tensor<4xf32>
  return %c : tensor<4xf32>
}

//--- clash-malloc.mlir
func.func private @malloc(i64) -> i64
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = llm.relu %a : tensor<4xf32>
  return %c : tensor<4xf32>
}

//--- two.mlir
func.func @main(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c = llm.relu %a : tensor<2xf32>
  return %c, %a : tensor<2xf32>, tensor<2xf32>
}
