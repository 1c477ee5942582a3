// `llmc run --evict-cache=MiB` reads a buffer of that many MiB before each
// warm-up and timed run (outside the timed region) and says so on the time
// line; the results are the same as without it. Bad sizes are one
// diagnostic and exit code 1.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: llmc run %s --repeat 2 --output-dir %t/warm > %t/warm.txt
// RUN: llmc run %s --repeat 2 --evict-cache=16 --output-dir %t/cold \
// RUN:   > %t/cold.txt
// RUN: FileCheck %s --check-prefix=WARM < %t/warm.txt
// RUN: FileCheck %s --check-prefix=COLD < %t/cold.txt
// Same printed sums and byte-identical result files.
// RUN: grep '^out0:' %t/warm.txt > %t/warm.sum
// RUN: grep '^out0:' %t/cold.txt > %t/cold.sum
// RUN: diff %t/warm.sum %t/cold.sum
// RUN: cmp %t/warm/out0.npy %t/cold/out0.npy
// One timed run without warm-up is evicted too; 0 is off.
// RUN: llmc run %s --evict-cache 1 | FileCheck %s --check-prefix=ONE
// RUN: llmc run %s --evict-cache=0 | FileCheck %s --check-prefix=WARM1
//
// WARM: out0: tensor<2x8xf32> sum={{-?[0-9.e+-]+}} mean_abs=
// WARM-NEXT: time: median {{[0-9.]+}} ms, min {{[0-9.]+}} ms (2 runs after 1 warm-up){{$}}
// COLD: out0: tensor<2x8xf32> sum={{-?[0-9.e+-]+}} mean_abs=
// COLD-NEXT: time: median {{[0-9.]+}} ms, min {{[0-9.]+}} ms (2 runs after 1 warm-up, caches evicted: 16 MiB){{$}}
// ONE: time: median {{[0-9.]+}} ms, min {{[0-9.]+}} ms (1 run after 0 warm-up, caches evicted: 1 MiB){{$}}
// WARM1: time: median {{[0-9.]+}} ms, min {{[0-9.]+}} ms (1 run after 0 warm-up){{$}}
//
// Sizes out of range, and not a number.
// RUN: not llmc run %s --evict-cache=65537 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: llmc: error: --evict-cache must be in [0, 65536] MiB, got 65537
// BIG-NOT: time:
// RUN: not llmc run %s --evict-cache=-1 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: llmc: error: --evict-cache must be in [0, 65536] MiB, got -1
// RUN: not llmc run %s --evict-cache=99999999999999999999 2>&1 | FileCheck %s --check-prefix=NAN
// RUN: not llmc run %s --evict-cache=lots 2>&1 | FileCheck %s --check-prefix=NAN
// NAN: for the --evict-cache option: '{{.*}}' value invalid for llong argument!

func.func @main(%x: tensor<2x16xf32>) -> tensor<2x8xf32> {
  %w = llm.constant dense<[[1.0, -2.0, 0.5, 3.0, -1.0, 0.25, 2.0, -0.5],
                           [0.5, 1.0, -1.0, 2.0, 1.5, -0.25, 0.0, 1.0],
                           [1.0, -2.0, 0.5, 3.0, -1.0, 0.25, 2.0, -0.5],
                           [0.5, 1.0, -1.0, 2.0, 1.5, -0.25, 0.0, 1.0],
                           [1.0, -2.0, 0.5, 3.0, -1.0, 0.25, 2.0, -0.5],
                           [0.5, 1.0, -1.0, 2.0, 1.5, -0.25, 0.0, 1.0],
                           [1.0, -2.0, 0.5, 3.0, -1.0, 0.25, 2.0, -0.5],
                           [0.5, 1.0, -1.0, 2.0, 1.5, -0.25, 0.0, 1.0],
                           [1.0, -2.0, 0.5, 3.0, -1.0, 0.25, 2.0, -0.5],
                           [0.5, 1.0, -1.0, 2.0, 1.5, -0.25, 0.0, 1.0],
                           [1.0, -2.0, 0.5, 3.0, -1.0, 0.25, 2.0, -0.5],
                           [0.5, 1.0, -1.0, 2.0, 1.5, -0.25, 0.0, 1.0],
                           [1.0, -2.0, 0.5, 3.0, -1.0, 0.25, 2.0, -0.5],
                           [0.5, 1.0, -1.0, 2.0, 1.5, -0.25, 0.0, 1.0],
                           [1.0, -2.0, 0.5, 3.0, -1.0, 0.25, 2.0, -0.5],
                           [0.5, 1.0, -1.0, 2.0, 1.5, -0.25, 0.0, 1.0]]>
      : tensor<16x8xf32>
  %y = llm.matmul %x, %w : (tensor<2x16xf32>, tensor<16x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}
