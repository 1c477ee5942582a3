// The persistent compile cache of `llmc run` (llm/Runtime/CompileCache.h,
// docs/llmc.md; ONNX models: compile-cache-onnx.test). lit turns the cache off (LLMC_CACHE=off); each RUN line
// here turns it on with a directory of its own under %t.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: cp %s %t/model.mlir
// RUN: %python %S/Inputs/npytool.py save %t/x.npy --shape 4,8 --values random:1
// RUN: %python %S/Inputs/npytool.py save %t/w.npy --shape 8,16 --values random:2
// RUN: %python %S/Inputs/npytool.py save %t/b.npy --shape 16 --values random:3
//
// The first run compiles and stores one entry.
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/cache llmc run %t/model.mlir \
// RUN:   --input arg0=%t/x.npy --input arg1=%t/w.npy --input arg2=%t/b.npy \
// RUN:   --output-dir %t/first --verbose 2>&1 | FileCheck %s --check-prefix=MISS
// MISS: llmc: compile: cache miss, stored ({{.*}}cache{{/|\\}}{{[0-9a-f]+}}.llmcc), {{[0-9.]+}} s
// MISS: out0: tensor<4x16xf32> sum=
// RUN: %python %S/Inputs/cache_tool.py count %t/cache | FileCheck %s --check-prefix=ONE
// ONE: 1 entries
//
// The second run loads it (nothing is parsed or lowered) and computes the
// same bits.
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/cache llmc run %t/model.mlir \
// RUN:   --input arg0=%t/x.npy --input arg1=%t/w.npy --input arg2=%t/b.npy \
// RUN:   --output-dir %t/second --verbose 2>&1 | FileCheck %s --check-prefix=HIT
// HIT: llmc: compile: cache hit ({{.*}}.llmcc), {{[0-9.]+}} s
// HIT: out0: tensor<4x16xf32> sum=
// RUN: cmp %t/first/out0.npy %t/second/out0.npy
// RUN: %python %S/Inputs/npytool.py check %t/second/out0.npy 'gelu(a0.astype(np.float64) @ a1 + a2).astype(np.float32)' %t/x.npy %t/w.npy %t/b.npy --rtol 1e-4 --atol 1e-6 \
// RUN:   | FileCheck %s --check-prefix=MATCH
// MATCH: match float32 4x16
//
// The key is the content, not the path: a copy hits. Options that change
// the code (--no-opt, --opt-level, --pipeline-options, --entry) and a
// changed model miss; each stores an entry of its own.
// RUN: cp %t/model.mlir %t/copy.mlir
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/cache llmc run %t/copy.mlir --verbose 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/cache llmc run %t/model.mlir --no-opt --verbose 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/cache llmc run %t/model.mlir --opt-level=1 --verbose 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/cache llmc run %t/model.mlir --pipeline-options=vectorize=false --verbose 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/cache llmc run %t/model.mlir --entry=other --verbose 2>&1 | FileCheck %s --check-prefix=MISS2
// MISS2: llmc: compile: cache miss, stored
// MISS2: out0: tensor<4xf32> sum=
// RUN: echo '// changed' >> %t/copy.mlir
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/cache llmc run %t/copy.mlir --verbose 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: %python %S/Inputs/cache_tool.py count %t/cache | FileCheck %s --check-prefix=SIX
// SIX: 6 entries
// Options that do not change the code (--verify-each, --repeat, --seed)
// hit; --threads, which plans the loops for its threads (num-threads), is a
// new key.
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/cache llmc run %t/model.mlir --verify-each=false --repeat 2 --seed 3 --verbose 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/cache llmc run %t/model.mlir --threads 1 --verbose 2>&1 | FileCheck %s --check-prefix=MISS
//
// --no-cache (and LLMC_CACHE=off, lit's default) neither looks up nor stores.
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/cache llmc run %t/model.mlir --no-cache --verbose 2>&1 | FileCheck %s --check-prefix=NOCACHE
// NOCACHE: llmc: compile: cache off (--no-cache), {{[0-9.]+}} s
// RUN: env LLMC_CACHE_DIR=%t/cache llmc run %t/model.mlir --opt-level=0 --verbose 2>&1 | FileCheck %s --check-prefix=ENVOFF
// ENVOFF: llmc: compile: cache off (LLMC_CACHE=off), {{[0-9.]+}} s
// RUN: %python %S/Inputs/cache_tool.py count %t/cache | FileCheck %s --check-prefix=SEVEN
// SEVEN: 7 entries
// A model on stdin has no key.
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/cache llmc run - --verbose < %t/model.mlir 2>&1 | FileCheck %s --check-prefix=STDIN
// STDIN: llmc: compile: cache off (model read from stdin)
//
// A corrupt entry (one byte flipped) or a truncated one is detected by its
// checksum or size, removed and recompiled, silently without --verbose; the
// outputs stay the same bits and the next run hits the new entry.
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/c2 llmc run %t/model.mlir \
// RUN:   --input arg0=%t/x.npy --input arg1=%t/w.npy --input arg2=%t/b.npy > %t/c2.out
// RUN: %python %S/Inputs/cache_tool.py corrupt %t/c2
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/c2 llmc run %t/model.mlir \
// RUN:   --input arg0=%t/x.npy --input arg1=%t/w.npy --input arg2=%t/b.npy \
// RUN:   --output-dir %t/corrupt --verbose 2>&1 | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: llmc: compile: cache miss, corrupt entry (object checksum mismatch): removed, recompiling; stored ({{.*}}.llmcc)
// RUN: cmp %t/first/out0.npy %t/corrupt/out0.npy
// RUN: %python %S/Inputs/cache_tool.py truncate %t/c2
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/c2 llmc run %t/model.mlir \
// RUN:   --input arg0=%t/x.npy --input arg1=%t/w.npy --input arg2=%t/b.npy \
// RUN:   --output-dir %t/truncated 2> %t/truncated.err
// RUN: count 0 < %t/truncated.err
// RUN: cmp %t/first/out0.npy %t/truncated/out0.npy
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/c2 llmc run %t/model.mlir --verbose 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: %python %S/Inputs/cache_tool.py count %t/c2 | FileCheck %s --check-prefix=ONE
//
// An entry's path that is not a regular file (a FIFO someone put there) is
// not opened (that would wait for a writer): the model is compiled and the
// FIFO replaced by the new entry.
// RUN: rm -rf %t/c3 && mkdir %t/c3
// RUN: %python -c "import os, sys; [os.mkfifo(os.path.join(sys.argv[2], n)) for n in os.listdir(sys.argv[1]) if n.endswith('.llmcc')]" %t/c2 %t/c3
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/c3 llmc run %t/model.mlir --verbose 2>&1 | FileCheck %s --check-prefix=FIFO
// FIFO: llmc: compile: cache miss, unreadable entry (not a regular file); stored ({{.*}}.llmcc)
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/c3 llmc run %t/model.mlir --verbose 2>&1 | FileCheck %s --check-prefix=HIT
//
// A cache directory that cannot be created or written (here: a regular
// file's path) only disables storing, with one warning; the run succeeds.
// RUN: echo > %t/not-a-dir
// RUN: env LLMC_CACHE=on LLMC_CACHE_DIR=%t/not-a-dir llmc run %t/model.mlir \
// RUN:   --input arg0=%t/x.npy --input arg1=%t/w.npy --input arg2=%t/b.npy \
// RUN:   --output-dir %t/unwritable 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// UNWRITABLE: llmc: warning: compile cache: cannot store compiled models in '{{.*}}not-a-dir': {{.*}} (caching of new models is off)
// UNWRITABLE-NEXT: out0: tensor<4x16xf32> sum=
// RUN: cmp %t/first/out0.npy %t/unwritable/out0.npy
//
// The size limit (LLMC_CACHE_MAX_MB) evicts the least recently used entries.
// RUN: %python %S/Inputs/cache_tool.py evict llmc %t/model.mlir %t/c3 | FileCheck %s --check-prefix=EVICT
// EVICT: evict OK


func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>)
    -> tensor<4x16xf32> {
  %h = llm.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %hb = llm.add %h, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %g = llm.gelu %hb : tensor<4x16xf32>
  return %g : tensor<4x16xf32>
}

func.func @other(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = llm.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
