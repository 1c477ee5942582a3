//===- Passes.td - llm code generation passes --------------*- tablegen -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Target code generation passes: they take linalg on tensors (the output of
// convert-llm-to-linalg plus fusion) to loops and vectors for one target. All
// target-specific choices (tile sizes, vector width, parallel mapping) come
// from a target description (llm/Codegen/TargetDescription.h), never from the
// patterns themselves.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_CODEGEN_PASSES_TD
#define LLM_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// ABI
//===----------------------------------------------------------------------===//

def LLMEmitCInterfacePass : Pass<"llm-emit-c-interface", "ModuleOp"> {
  let summary = "Mark public functions with llvm.emit_c_interface";
  let description = [{
    Adds the unit attribute `llvm.emit_c_interface` to every public
    `func.func` that has a body, so that `convert-func-to-llvm` emits a
    `_mlir_ciface_<name>` wrapper taking each memref argument as a pointer to
    its descriptor `{T *allocated, T *aligned, int64_t offset,
    int64_t sizes[R], int64_t strides[R]}`. Private functions and
    declarations are left alone. The `llm.dim_bounds` and `llm.kv_cache`
    argument attributes (used by then) are removed from every function. Running it twice
    changes nothing.
  }];
}

//===----------------------------------------------------------------------===//
// Lowering configuration
//===----------------------------------------------------------------------===//

def LLMSelectGPULoweringConfigPass
    : Pass<"llm-select-gpu-lowering-config", "::mlir::ModuleOp"> {
  let summary = "Record the GPU target's lowering choices on llm ops as "
                "llm.lowering_config";
  let description = [{
    The GPU half of the per-op lowering configuration (the CPU half is
    `llm-select-lowering-config`): runs on llm ops before
    `convert-llm-to-linalg`, and from the GPU target description of `chip`
    (llm/Codegen/GPU/GPUTargetDescription.h) attaches to every
    `llm.attention` without a configuration
    `{attention_tile = array<i64: Q, KV>, stage_values = true}`: the flash
    lowering's tile, whose buffers the GPU kernel keeps in workgroup memory
    (llm-map-gpu-kernels' forall strategy), and the value tiles staged there
    too. The tile is the first of [64, 64], [32, 64], [64, 32], [32, 32],
    [16, 64], [16, 32], [16, 16], [8, 16], [8, 8], [4, 8], [1, 8], [1, 4], [1, 2], [1, 1] (each
    clamped to the sequence lengths, as the lowering does) whose buffers take
    at most 7/8 of the chip's static shared memory per block (48 KiB on
    sm_80, sm_89 and sm_90a), estimated in bytes as

      e * D * Tk          the key tile, transposed (e: the input's bytes)
    + e * Tk * Dv         the value tile
    + 4 * 3 * Tq * Tk     scores, logits and probabilities (f32)
    + 4 * Tq * Dv         the output accumulator (f32)
    + 4 * 8 * Tq          running maximum, sum and their temporaries (f32)
    + e * Tq * Dv         the output tile, when Tq does not divide Sq (the
                          last tile is stored in part, through a copy)

    (GPT-2's head dim 64 in f32: [32, 32], about 37 KiB; a head dim of 128:
    [16, 16]). A larger tile reads each key/value tile for more query rows;
    the estimate keeps the kernel within what a block may declare without
    the dynamic shared memory opt-in.

    A decode step's attention (its query tile covers the whole query
    sequence) whose batch x heads blocks are fewer than the chip's SMs also
    gets `kv_splits = min(key tiles, ceil(SMs / blocks), 16)` when that is
    more than 1: the key/value tiles in that many parts, each a block,
    whose partial results a second kernel combines (flash-decoding; GPT-2
    small's decode, 12 heads over 512 cached tokens on an sm_80: 8 parts).

    Ops that already carry a configuration (a test's, a tuner's) keep it.
    Errors: an unknown `chip`.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "NVIDIA chip whose target description is read: sm_80, sm_89 or "
           "sm_90a">,
  ];
}

def LLMSelectLoweringConfigPass
    : Pass<"llm-select-lowering-config", "::mlir::ModuleOp"> {
  let summary = "Record the CPU target's lowering choices on llm ops as "
                "llm.lowering_config";
  let description = [{
    The CPU half of the per-op lowering configuration (in the manner of
    IREE's `lowering_config`): runs on llm ops before
    `convert-llm-to-linalg`, which is target-neutral and reads only these
    attributes. From the CPU target description `target`
    (llm/Codegen/TargetDescription.h) it attaches
    `llm.lowering_config` (llm/Dialect/LLM/IR/LoweringConfig.h) to:

    * every `llm.attention`: `{attention_tile = array<i64: Q, KV>}`, the
      target's `attentionTile` (or `attention-tile`), the tile of the
      flash-attention lowering; and `padded_head_dims = array<i64: D',
      Dv'>` when a head dim (D of the query and key, Dv of the value) has a
      remainder r of the f32 lanes L that is not a power of two and needs
      at most D / 8 added columns: that dim is rounded up to a multiple of
      L (unless `pad-attention-head-dims=false`). LLVM splits a row
      remainder into one operation per set bit of r (15 = 8 + 4 + 2 + 1),
      a padded row takes one, but the added columns are also work in
      Q K^T: head dim 15 on a Zen 5 core took 0.092 ms padded against
      0.111 ms (8 heads, 128 positions), while 8, 24, 40, 100 and 120 (r a
      power of two) were 5-12% slower padded and 5 (11 added columns) 12%
      slower. An attention that already has a configuration (a tuning
      cache's tile) gets this entry added unless it has one;
    * every `llm.dequant_matmul`: `{dot_product = "bf16" | "f32", streamed
      = true | false}`: `bf16` on targets with AVX512-BF16 dot products
      (`bf16DotProduct`; the 4-bit decode matvec uses them), and `streamed`
      when the weight's stored bytes (elements times the storage width, 4
      bits for int4) are at least the target's `streamedWeightMinBytes` (or
      `streamed-weight-min-bytes`): the decode matvec kernels then take
      their streaming block shapes;
    * every `llm.matmul_integer`: `{dot_product = "i8" | "amx_i8" |
      "f32"}`: `i8` on targets with 8-bit dot products (`int8DotProduct`,
      AVX512-VNNI `vpdpbusd`, or AVX-VNNI's on ymm), `amx_i8` instead for
      at least 32 static rows on targets with AMX-INT8 tiles (`amxInt8`, or
      `emulate-amx`), with `vector_bits = 512 | 256` (the target's vector
      width): a constant 8-bit weight then takes the dot-product kernel, or
      the AMX one (exact i32, like the f32 panels they replace);
    * every `llm.matmul` by a constant weight that the bf16 dot-product
      kernel takes (`isBF16DotMatmul`: K static, N >= 16)
      whose inputs are bf16, or f32 with `demote-contraction-inputs=bf16`,
      on targets with AVX512-BF16 dot products: `{dot_product = "bf16"}`,
      or `{dot_product = "amx_bf16"}` on targets with AMX-BF16 tiles
      (`amxBF16`, or the option `emulate-amx`) when the rows are static and
      at least 32 (`isAMXBF16Matmul`: a prefill; decode steps and dynamic
      sequences keep `vdpbf16ps`).
      The weight is then stored in bf16 (packed at compile time), an f32
      activation is rounded to bf16 (nearest even) and the products are
      summed in f32 by `vdpbf16ps`: bf16 autocast, as IREE's
      `--iree-opt-demote-contraction-inputs-to-bf16` and the GPU pipeline's
      option of that name do. Without the option an f32 matmul stays exact.

    Ops inside `llm.fusion_group` regions are configured too. An op that
    already carries `llm.lowering_config` (a tuner's or a test's choice) is
    left as it is. The GPU pipeline (`llm-lower-to-nvvm`) does not run this
    pass: its ops keep the neutral defaults of `convert-llm-to-linalg`.

    Example (`target=avx512-bf16`):

    ```mlir
    %0 = llm.attention %q, %k, %v {llm.lowering_config =
        {attention_tile = array<i64: 32, 64>}} : ...
    %1 = llm.dequant_matmul %x, %w {transpose_b, llm.lowering_config =
        {dot_product = "bf16", streamed = true}} : ...
    ```

    Errors: an unknown `target` name is reported at each function (at the
    module if there is none), an `attention-tile` that is not two positive
    sizes, a `streamed-weight-min-bytes` below -1 or a
    `demote-contraction-inputs` other than empty or `bf16` at the module,
    and a configuration already on an op that asks for dot products the
    target lacks (`dot_product = "bf16"` without AVX512-BF16, `"i8"`
    without 8-bit dot products, `"amx_bf16"` without AMX-BF16 and
    `"amx_i8"` without AMX-INT8 unless `emulate-amx`) at that op; the pass
    fails. `demote-contraction-inputs=bf16` on a target without
    AVX512-BF16 is a warning (the matmuls stay f32). Invalid attribute
    values written by hand are rejected by the llm dialect's verifier.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "CPU target description: host, a target name or a CPU name "
           "(llmc --print-target lists them)">,
    ListOption<"attentionTile", "attention-tile", "int64_t",
               "Override the target's flash-attention tile [query rows, "
               "key/value rows]">,
    Option<"padAttentionHeadDims", "pad-attention-head-dims", "bool",
           /*default=*/"true",
           "Pad attention head dims whose remainder of the f32 lanes is not "
           "a power of two to whole vectors (padded_head_dims)">,
    Option<"streamedWeightMinBytes", "streamed-weight-min-bytes", "int64_t",
           /*default=*/"-1",
           "Override the target's smallest weight (stored bytes) of a "
           "weight-only decode matvec taken as streamed from DRAM (-1: the "
           "target's; 0: every weight)">,
    Option<"demoteContractionInputs", "demote-contraction-inputs",
           "std::string", /*default=*/"\"\"",
           "bf16: f32 matmuls by a constant weight round their inputs to "
           "bf16 and run on bf16 dot products (f32 accumulation; default "
           "none: exact f32)">,
    Option<"emulateAMX", "emulate-amx", "bool", /*default=*/"false",
           "Choose AMX tiles (dot_product = \"amx_bf16\" / \"amx_i8\") as "
           "if the target had AMX-BF16 and AMX-INT8 where it has the "
           "AVX-512 bf16 / 8-bit dot products (tests of the AMX kernels on "
           "other CPUs, with llm-emulate-amx)">,
  ];
  let dependentDialects = ["::mlir::llm::LLMDialect"];
  let statistics = [
    Statistic<"numOpsConfigured", "ops-configured",
              "llm ops given an llm.lowering_config">,
  ];
}

def LLMApplyTuningCachePass
    : Pass<"llm-apply-tuning-cache", "::mlir::ModuleOp"> {
  let summary = "Record the tuned tiles of a tuning cache on the matmuls "
                "they were measured for";
  let description = [{
    Reads the tuning cache `cache` (a JSON file written by `llmc tune`;
    llm/Codegen/TuningCache.h) and, for every `linalg.matmul` and
    `linalg.batch_matmul` on tensors of static shape (in fusion groups too)
    whose kernel key (op, batch, M, N, K, element types, whether B is a
    constant and its layout, and the threads the compile is planned for:
    `num-threads`, or 1 without `parallel`) has an entry for the kind of CPU
    of `target` ("<cpu>/<family>", e.g. `znver5/avx512-bf16`), attaches

    ```mlir
    linalg.matmul {llm.lowering_config = {cache_tile = array<i64: 128, 256, 768>,
                                          register_tile = array<i64: 8, 32, 1>}}
        ins(...) outs(...) -> tensor<128x3072xf32>
    ```

    which `llm-tile-and-vectorize` uses instead of the target's default
    tiles; and on every `llm.attention` with static shapes and no
    `kv_length` whose key (batch, heads, sequences, head dims, element type,
    layout, causal, mask, threads) has an entry, its flash-attention tile
    `{attention_tile = array<i64: Q, KV>}`, which `convert-llm-to-linalg`
    reads. `llm-lower-to-cpu` runs it twice: before
    `llm-select-lowering-config` (the attentions) and right before
    `llm-tile-and-vectorize` (the matmuls, with the shapes the tiler sees).
    An op that already has `llm.lowering_config` keeps it.

    A cache with entries for other kinds of CPU only (made on another
    machine) is ignored with a warning naming them; matmuls without an
    entry keep the default tiles.

    Errors (at the module; the pass fails): an unknown `target`, a cache that
    cannot be read, is not JSON or is not a tuning cache (the message names
    the file and the bad field).
  }];
  let options = [
    Option<"cache", "cache", "std::string", /*default=*/"",
           "Tuning cache file (JSON, from `llmc tune`)">,
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "CPU target description: host, a target name or a CPU name">,
    Option<"numThreads", "num-threads", "int64_t", /*default=*/"0",
           "Threads the parallel loops are planned for (0: the machine's)">,
    Option<"parallel", "parallel", "bool", /*default=*/"true",
           "Whether the matmuls get parallel outer loops (else the keys "
           "say one thread)">,
    Option<"warnOtherCPU", "warn-other-cpu", "bool", /*default=*/"true",
           "Warn about a cache made on another kind of CPU (a pipeline "
           "running the pass twice warns once)">,
  ];
  let dependentDialects = ["::mlir::llm::LLMDialect"];
  let statistics = [
    Statistic<"numOpsTuned", "ops-tuned",
              "matmuls and attentions given the tiles of a tuning cache "
              "entry">,
  ];
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def LLMFuseElementwisePass : Pass<"llm-fuse-elementwise"> {
  let summary = "Fuse elementwise linalg ops, keeping contractions named";
  let description = [{
    Upstream `linalg-fuse-elementwise-ops` with llmc's control policy:

    * an elementwise producer is fused into its consumer when the consumer is
      its only user (no recomputation);
    * reshapes are propagated through elementwise generics by expansion, but
      never folded into or out of a contraction (`linalg.matmul`,
      `linalg.batch_matmul`, or any op implementing the contraction
      interface): folding the `expand_shape` that follows a collapsed
      `[B*S, K] x [K, N]` matmul into it would turn the named op into a
      higher-rank `linalg.generic` that the matmul tiling no longer
      recognizes.

    * a fusion whose fused body would exceed `max-fused-ops` operations is
      not made (TVM's `FuseOps` bounds its groups by `max_depth` the same
      way). Upstream fuses one producer-consumer pair at a time and clones
      the producer's body into every fused op, so fusing a chain of N
      elementwise ops into one costs O(N^2) cloned operations; with the
      bound a chain becomes ceil(N / max-fused-ops) kernels at O(N) compile
      time, each still reading and writing memory once per
      `max-fused-ops` ops. 0 removes the bound. `max-fused-operands`
      bounds the fused op's operands the same way (a sum over N parallel
      branches gathers N inputs, each fusion copying them).

    Runs on tensors, after `convert-llm-to-linalg`.
  }];
  let options = [
    Option<"maxFusedOps", "max-fused-ops", "int64_t", /*default=*/"256",
           "Largest fused body (operations in the fused linalg op's region) "
           "a fusion may create; 0: unbounded">,
    Option<"maxFusedOperands", "max-fused-operands", "int64_t",
           /*default=*/"64",
           "Most operands (inputs and inits) of a fused linalg op a fusion "
           "may create; 0: unbounded">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

//===----------------------------------------------------------------------===//
// Tiling and vectorization
//===----------------------------------------------------------------------===//

def LLMTileAndVectorizePass
    : Pass<"llm-tile-and-vectorize", "::mlir::func::FuncOp"> {
  let summary = "Tile linalg ops on tensors for a CPU target and vectorize "
                "the register tiles";
  let description = [{
    Works on linalg ops on tensors (before bufferization) with static shapes,
    driven by a CPU target description (`target`):

    * `linalg.matmul` and `linalg.batch_matmul` (the root of a fusion group):
      the outer level is an `scf.forall` over M (and the batch dimension; over
      N when M is too small to give every thread work, or when splitting M
      would leave a thread a partial register tile of rows, e.g. 12 rows on
      2 threads; a serial `scf.for`
      below `min-parallel-work` multiply-adds unless B has 256 KiB or more)
      with the producers of
      the tile (`linalg.fill` of the accumulator) fused into it, so that one
      group is one parallel loop nest. Inside, `scf.for` loops tile N to the
      cache tile, K to the cache tile (a divisor of K near the target's, or
      all of K), then [m, n, k] to the register tile. A matmul with fewer
      rows than the register tile (a decode matvec) uses the target's
      small-M tiles instead: all its rows in one register tile, wide along
      N (the target's accumulator lanes shared by the rows, narrowed so that
      each thread gets a tile) under short K tiles, so that B is read once,
      along whole rows. A plain matmul whose N is a multiple of the register tile
      width reads B from [N / n, K, n] strips (`packMatmulRhs` of the
      target): a constant B is packed at compile time (M >= one register
      tile), another B of at least 1 MiB by a transpose at run time
      (M >= four register tiles), copied one vector row of a strip at a
      time under an `scf.forall` over the strips. On targets other than
      `generic`, an f32 constant B whose values are all exactly f16 values
      (else bf16 values) is packed into f16 (bf16) strips, and each
      register tile widens the row it reads (`arith.extf`): the same
      products and sums in half the bytes. This is the weight of an
      f16/bf16 matmul run in f32 by `llm-promote-contraction-inputs`, whose
      strips then equal those of the unpromoted decode matvec of the same
      weight (a generation model stores one 16-bit copy). The partial last
      iteration of each register-tile loop is peeled, innermost loop first
      (e.g. 67x45x33; the remainder rows get full column tiles too), so the
      main loops hold full tiles of static size, which are vectorized with
      `linalg::vectorize` into `vector.contract`, like the remainder tiles
      once their sizes fold (no masks). Tile widths along N are a power of
      two times the vector; a remainder of N wider than one vector and not
      a whole number of vectors is split off first (`linalg::splitOp`) into
      one-vector tiles and the last partial one (N = 120 with 32-wide tiles:
      3 x 32, 16, 8), since a 24- or 80-wide vector row lowers through
      element inserts. A tile whose rows or columns are dynamic (a dynamic
      sequence, a thread's chunk min(chunk, M - i), the last cache tile of
      N) would have a dynamic remainder, which does not vectorize; it is
      split first into loops of static pieces: rows in tiles of the
      register height, then at most one tile each of 4, 2 and 1 rows;
      columns in tiles of the register width, then at most one each of one
      vector, 4 and 1 columns (e.g. 37x360x200 on two threads). The accumulator read/write is hoisted out of the K loop
      (`loop-invariant-subset-hoisting`), so it lives in registers.
    * All-parallel `linalg.generic`/`linalg.fill`/`linalg.transpose` ops
      and generics with trailing reduction dimensions: when `parallel` is set
      and the outer parallel dimension is large enough, it is tiled with an
      `scf.forall` so that the op runs on all threads. These ops are not
      vectorized here (LLVM's loop vectorizer handles their inner loops).
    * 2-D `linalg.transpose`: square tiles of one vector length (peeled),
      vectorized into `vector.transpose` (lowered to shuffles).
    * `linalg.matmul` and 2-D `linalg.transpose` marked
      `llm.vectorize_in_place` (the tile matmuls and the K-tile transpose of
      the flash-attention lowering, already inside their own loop nest):
      register tiles (square transpose tiles) in place (`scf.for`, peeled,
      no outer loop), vectorized like the above; the marker is removed (also
      when `vectorize` is off).
    * Static linalg ops marked `llm.vectorize_rows` whose first and last
      loops are parallel (the flash-attention lowering's logits,
      exponentials, accumulator rescale and normalization on `[Tq, Tk]` /
      `[Tq, Dv]` tiles): tiled into rows (`scf.for`) and each row
      vectorized (`vector<1xN>`; a reduction between the row and its last
      dimension, as in partial row sums `[R, K, 16] -> [R, 16]`, becomes
      whole-vector ops), so that a row of N not a multiple of the
      vector width (a head dim of 40) is one vector per row rather than
      LLVM's unrolled row vectorized across rows with gathers and scatters
      (attention with head dim 40, 8 heads, 128 positions, one Zen 5 core:
      0.30-0.40 -> 0.21-0.26 ms). Ops reading or writing i1 (a boolean
      mask: a vector of i1 would be loaded as packed bits) or whose last
      loop is a reduction stay loops. The marker is removed (also when
      `vectorize` is off).
    * `scf.forall` marked `llm.fuse_consumers` (the block loops of the
      quantized matmul panels, QuantPanels.cpp): while its result has a
      single elementwise `linalg.generic` user in the same block (bias,
      activation, the W8A8 rescale and requantize), that user is fused into
      the loop (upstream `scf::tileAndFuseConsumer`), one block at a time;
      operand-free producers of its other operands (`tensor.empty`,
      constants) move above the loop. The marker is removed.
    * `linalg.matmul` whose B operand is stored [N, K] (transpose_b, the
      layout of weights) with at least two register tiles of rows: B is first
      transposed into a [K, N] copy so that the register tiles read rows of
      B instead of strided columns.

    * `llm.fusion_group` regions (from `llm-fuse`, their ops lowered to
      linalg): first, each becomes one loop nest (`lowerFusionGroupForCPU`):
      reshapes inside the group are folded by collapsing dimensions; a group
      whose root consumes a matmul's result (bias, activation, residual
      epilogue) is tiled like the matmul above but with the epilogue as the
      root of the outer and N cache-tile loops and the matmul fused into
      both, so the epilogue runs on each cache tile right after it is
      computed; a matmul root takes its prologue into the outer loop; other
      groups (norms, softmax) are tiled over the root's first parallel
      dimension of size >= 2 (rows of about 32 KiB, at most
      ceil(size / threads) and at least two tiles) with every op of the
      group fused in. An `scf.forall` of the group marked
      `llm.fuse_producers = true` (the block loop of the bf16 dot-product
      kernel over at most 16 rows, which reads every row in each block)
      with more than one iteration gets the group's ops that compute the
      values it reads (a decode step's norm prologue: reductions,
      normalization, their inits and reshapes; never a contraction or a
      transpose) cloned at the start of its body, so that each block
      recomputes them; with `false` or one iteration those ops are tiled
      as one loop nest of their own before it, like a norm's group. The
      marker is removed (also outside groups). The region is then inlined; ops that could not be fused are
      handled like ops outside groups.

    Ops with dynamic shapes, non-linalg ops and linalg ops of other kinds are
    left untouched (they are lowered to loops later). With
    `parallel=false` every loop is an `scf.for`.

    Errors: an unknown `target` name, a register tile that is not three
    positive sizes or a cache tile that is not three non-negative sizes is
    reported at the function and the pass fails.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "CPU target description: host, a family (avx512-bf16, "
           "avx512-vnni, avx512, avx2, generic) or an x86-64 CPU name">,
    Option<"parallel", "parallel", "bool", /*default=*/"true",
           "Make the outer tile loops scf.forall (OpenMP later)">,
    Option<"vectorize", "vectorize", "bool", /*default=*/"true",
           "Vectorize the full matmul register tiles">,
    ListOption<"registerTile", "register-tile", "int64_t",
               "Override the target's matmul register tile [m, n, k]">,
    ListOption<"cacheTile", "cache-tile", "int64_t",
               "Override the target's matmul cache tile [m, n, k] (0: the "
               "whole dimension)">,
    Option<"numThreads", "num-threads", "int64_t", /*default=*/"0",
           "Threads to plan the parallel split for (0: the target's)">,
    Option<"minParallelWork", "min-parallel-work", "int64_t",
           /*default=*/"-1",
           "Smallest matmul (batch x M x N x K multiply-adds) given a "
           "parallel outer loop; smaller ones get a serial scf.for (-1: the "
           "target's minParallelMatmulWork, 2^21)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
  let statistics = [
    Statistic<"numTilesVectorized", "register-tiles-vectorized",
              "Matmul and transpose register tiles vectorized">,
    Statistic<"numOpsParallelized", "ops-parallelized",
              "Linalg ops given an scf.forall outer loop">,
    Statistic<"numGroupsTiled", "fusion-groups-tiled",
              "llm.fusion_group regions lowered to one loop nest">,
    Statistic<"numConsumersFused", "consumers-fused",
              "Elementwise consumers fused into llm.fuse_consumers loops">,
  ];
}

def LLMLowerVectorsPass : Pass<"llm-lower-vectors", "::mlir::func::FuncOp"> {
  let summary = "Hoist vector transfers and lower vector ops to FMA form";
  let description = [{
    After bufferization: hoists loop-invariant vector transfer pairs out of
    `scf.for` loops (`linalg::hoistRedundantVectorTransfers`, which keeps
    matmul accumulators in registers across the K loop), then lowers
    `vector.mask`, `vector.contract` to `vector.outerproduct` and further to
    `vector.fma`, transfer permutation maps, multi-reductions, transposes,
    broadcasts and shape casts, so that `convert-vector-to-scf` and
    `convert-vector-to-llvm` only see 1-D vector ops.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def LLMApproximateMathPass
    : Pass<"llm-approximate-math", "::mlir::func::FuncOp"> {
  let summary = "Rewrite f32 transcendental math ops to vectorizable "
                "polynomial approximations";
  let description = [{
    Rewrites `math.tanh`, `math.erf`, `math.exp` and `math.expm1` on f32
    scalars and vectors into arith (and vector) ops: the upstream
    polynomial/rational approximations
    (`populateMathPolynomialApproximationPatterns`, Cephes and Eigen
    coefficients; a few ulp of error in f32, special values +-inf, NaN and
    the overflow and underflow ranges of exp handled; checked against numpy
    by test/Integration/math-approx.mlir). The logarithms are left to libm:
    their approximation flushes subnormal inputs. Without it these ops become
    calls to libm (`tanhf`, `erff`, `expf`) that LLVM cannot vectorize, so
    the loops of layer norms, GELU, SiLU and softmax stay scalar.
    `llm-lower-to-cpu` runs it (option `approximate-math`, default on) after
    linalg is lowered to loops and before the conversion to LLVM. f16/bf16
    math ops are left alone (the lowering computes them in f32 already).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
  let statistics = [
    Statistic<"numApproximated", "ops-approximated",
              "Math ops rewritten to approximations">,
  ];
}

def LLMBoundDynamicAllocsPass
    : Pass<"llm-bound-dynamic-allocs", "::mlir::func::FuncOp"> {
  let summary = "Give dynamically sized scratch buffers in loops a static "
                "size";
  let description = [{
    A `memref.alloc(%sizes)` inside a loop whose dynamic sizes have an
    upper bound (a constant one: a row tile `affine.min(32, n - i)` of a
    dynamic sequence, upstream `ValueBoundsConstraintSet`; or one that
    follows the sequence length and its declared bound, a whole [S, N]
    accumulator, getSequenceSizeBound) becomes a static buffer
    of the bound's bytes, `memref.alloc() : memref<Nxi8>`, read through
    `memref.view` with the run-time sizes (the alloc's own type, identity
    layout). The static buffer is then treated as a static tile's scratch
    is: promoted to the stack when small, hoisted out of the loop, planned;
    without this, every iteration of the loop calls `malloc`. Allocs with
    static shapes, outside loops, with a size without a constant bound, or
    of non-integer/float elements are left alone.
    `llm-lower-to-cpu` runs it after one-shot bufferization, before buffer
    hoisting.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numBounded", "allocs-bounded",
              "Dynamically sized allocs in loops given a static size">,
  ];
}

def LLMPromoteTileScratchPass
    : Pass<"llm-promote-tile-scratch", "::mlir::ModuleOp"> {
  let summary = "Put the static scratch buffers of parallel loop iterations "
                "on the stack";
  let description = [{
    A `memref.alloc()` directly in the body of a bufferized `scf.forall`
    (no results, no shared outputs) with a static shape, an identity layout,
    integer or float elements and at most `max-bytes` bytes, whose uses
    (through view-like ops) all stay inside the body (no call, return,
    terminator, dealloc or non-view op yielding a memref) becomes a
    `memref.alloca()` with the same type and alignment: the scratch of a
    tile (a matmul tile's accumulator panel, flash attention's K/V and score
    tiles, the bounded scratch of llm-bound-dynamic-allocs), which would
    otherwise be a `malloc` and a `free` in every iteration of every call.
    The loop's body then runs in one `memref.alloca_scope`, so that each
    iteration releases its stack space (the serial lowering turns the loop
    into an `scf.for`; the OpenMP lowering adds a scope of its own).
    Buffers above `max-bytes` (default 64 KiB, well below the 4 MiB stack of
    an OpenMP worker thread even for several tiles), dynamic ones, and
    allocs that escape the iteration stay heap allocations. The largest
    stack scratch of one iteration of any loop (the static allocas in its
    body, in bytes: what one thread holds at a time) goes into the module's
    `llm.report` as `tile_scratch_bytes`.
    `llm-lower-to-cpu` runs it after `llm-plan-memory` (which plans the
    function's top-level buffers and reads the tiles of a loop directly in
    its body) and before the deallocation pipeline.
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"65536",
           "Largest scratch buffer (bytes) put on the stack">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numPromoted", "allocs-promoted",
              "Tile scratch allocs of parallel loops put on the stack">,
  ];
}

def LLMExpandStridedCopiesPass
    : Pass<"llm-expand-strided-copies", "::mlir::func::FuncOp"> {
  let summary = "Rewrite memref.copy between strided static views to "
                "linalg.copy loops";
  let description = [{
    `memref.copy %src, %dst` where at least one memref is not contiguous
    row-major (a subview of a larger buffer, such as the slot of a KV cache
    that a concat writes into, or a row tile of a dynamic sequence) becomes
    `linalg.copy ins(%src) outs(%dst)`. The copy then lowers to loops that
    LLVM vectorizes along the contiguous innermost dimension, instead of the
    runtime's generic `memrefCopy`, which copies one element per `memcpy`
    call for non-contiguous layouts. Contiguous copies (static shapes, or
    identity layouts with a dynamic size: one `memcpy`) and rank-0 copies
    are left alone. Element types: any.
    A copy of at least `parallel-min-bytes` bytes (integer and float
    elements; 0 disables it) is split over its outermost dimension of size
    > 1: an `scf.forall` over that dimension whose body copies one slice
    (`memref.subview`s of both sides), which `llm-lower-to-cpu` runs on the
    OpenMP threads (a decode step's KV-cache concat moves megabytes).
    `llm-lower-to-cpu` runs it after the bufferization ops are converted to
    memref and before linalg is lowered to loops and scf.forall to OpenMP.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
  let options = [
    Option<"parallelMinBytes", "parallel-min-bytes", "int64_t",
           /*default=*/"262144",
           "Split copies of at least this many bytes into an scf.forall over "
           "the outermost dimension (0: never)">,
  ];
}

def LLMUnmapBlockLoopsPass : Pass<"llm-unmap-block-loops"> {
  let summary = "Drop the #llm.block_loop mapping of CPU kernels' block loops";
  let description = [{
    convert-llm-to-linalg's CPU kernels (the bf16, 8-bit and AMX dot
    products, the W8A8 panels, the sparse block loops) build their
    `scf.forall` over column blocks with `mapping = [#llm.block_loop]`,
    so that a kernel of one block stays a loop through canonicalization:
    `llm-tile-and-vectorize` fuses its elementwise consumers into it and
    `llm-count-kernels` counts it once. This pass removes that mapping
    (from every `scf.forall` under the op it runs on, tensors or buffers):
    `llm-lower-to-cpu` runs it before lowering the loops, so that a loop
    of one iteration is then inlined by the canonicalizer rather than run
    as a parallel region; `llm-lower-to-nvvm` right after
    convert-llm-to-linalg, so that its kernel mapping sees plain loops.
    Other mappings are left alone.

    Errors: an `scf.forall` whose mapping mixes `#llm.block_loop` with
    other kinds is reported at the loop and the pass fails.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

//===----------------------------------------------------------------------===//
// Compile report
//===----------------------------------------------------------------------===//

def LLMMarkArgumentWritabilityPass
    : Pass<"llm-mark-argument-writability", "::mlir::ModuleOp"> {
  let summary = "Say which entry arguments bufferization may write";
  let description = [{
    One-shot bufferization with `bufferize-function-boundaries` treats every
    function argument as writable unless it carries
    `bufferization.writable = false`: an op whose destination is an argument
    (a `tensor.insert_slice` into it, a scatter's loop-carried input) is then
    done in place in the caller's buffer. For llmc's entries the caller's
    inputs must stay as they were, except the key/value cache, which the
    model updates in place on purpose.

    On every public `func.func` with a body, each tensor argument gets
    `bufferization.writable = false`, except an argument with the unit
    attribute `llm.kv_cache` (docs/Generation.md), which gets
    `bufferization.writable = true`. Private functions are left alone (their
    callers are in the module). An `llm.kv_cache` attribute on a non-tensor
    argument, or one that is not a unit attribute, is an error at the
    function. Running it twice changes nothing.

    Run it right before `one-shot-bufferize`.
  }];
}

def LLMCloneEmptyTensorsPass : Pass<"llm-clone-empty-tensors"> {
  let summary = "Give every use of a tensor.empty its own tensor.empty";
  let description = [{
    `tensor.empty` has no side effects, so CSE merges every empty tensor of
    one type and shape into one op whose result then initializes many
    unrelated destinations (each elementwise generic's `outs`). One-shot
    bufferization puts all of them into one alias set and checks every
    pair of its reads and writes for conflicts: a chain of N such ops costs
    O(N^2) or worse in `eliminate-empty-tensors` and `one-shot-bufferize`
    (500 ops took 10 s), and the conflicts it finds become copies. This
    pass clones the `tensor.empty` (with its dynamic sizes, which dominate
    the clone) right before each use but the first, so each destination is
    its own allocation candidate, as before CSE. It changes no value: an
    empty tensor's contents are undefined.

    Then a `tensor.extract_slice` (or reshape) of a single-use
    `tensor.empty` becomes an empty of the slice's (or reshape's) sizes
    (upstream `tensor::populateFoldTensorEmptyPatterns`). A producer fused
    into a tile loop (a matmul under its bias epilogue, an add before a
    norm) writes a slice of an empty of the whole result; without the fold
    that becomes a whole-result buffer allocated in each iteration of the
    loop (a `[S, 3d]` buffer per row tile of a QKV projection), with it a
    tile-sized one.

    With `fills`, a `linalg.fill` of a tensor.empty whose result has several
    uses is cloned the same way (the fill and its empty, right before each
    use but the first): CSE merges the equal fills of a tiled loop nest (the
    flash-attention lowering's running maximum and its per-tile row maximum
    both start at -inf), which makes a loop's carried value share its
    buffer with a value computed in the loop, and one-shot bufferization
    then refuses the loop ("Yield operand #0 is not equivalent to the
    corresponding iter bbArg"). Set by `llm-lower-to-nvvm`, whose kernels
    run such loop nests as they are.

    Run it right before `eliminate-empty-tensors`.
  }];
  let options = [
    Option<"fills", "fills", "bool", /*default=*/"false",
           "Also give every use of a multiply used linalg.fill of a "
           "tensor.empty its own fill">,
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def LLMLowerCollectivesPass
    : Pass<"llm-lower-collectives", "::mlir::ModuleOp"> {
  let summary = "lower the shard all-reduces of a per-rank module to MPI or "
                "NCCL calls";
  let description = [{
    Rewrites each `shard.all_gather` (of a split function result, e.g. the
    logits of a vocabulary-split LM head) into an all-reduce of the rank's
    part placed at its offset (`mpi.comm_rank` times the part) into zeros,
    and each `shard.all_reduce` (sum, over the whole 1-D grid: what
    `llm-shard` plans) on a tensor into an `mpi.allreduce` on
    `MPI_COMM_WORLD`, from the tensor's buffer into a new one (the
    reduction is computed in the tensor's element type: f32 or f64, or an
    integer type; an f16/bf16 tensor is extended to f32 before and rounded
    once after, as MPI has no 16-bit float type), then erases the grids. It runs before one-shot
    bufferization; upstream `mpi` lowering (`convert-to-llvm`) turns the ops
    into calls of the MPI library named by `mpi` (its ABI: `openmpi` or
    `mpich`), recorded on the module as
    `dlti.map<"MPI:Implementation" = ...>`.

    Upstream `convert-shard-to-mpi` is not used for the all-reduce: in MLIR
    22 it splits a new communicator (`MPI_Comm_split`, a collective call
    that allocates) on every all-reduce, passes one buffer as both send
    and receive buffer (which MPI forbids), and its `MPI_Comm_split`
    lowering loads OpenMPI's pointer communicator as an i32.

    The grid must have as many ranks as the MPI job: the runtime checks
    `MPI_Comm_size` against it before the first call.

    With `library=nccl` (the GPU pipeline `llm-lower-to-nvvm`, whose
    buffers live in device memory) each all-reduce is instead a call
    `llmcCudaAllReduceSum_<type>(memref<*xT> in, memref<*xT> out, i32 ranks)`
    of llmc's CUDA runtime (include/llm/Runtime/CUDA/CUDARuntime.h), which
    sums the buffers over its NCCL communicator (`ncclAllReduce`, in the
    tensor's own type: f16, bf16, f32, f64, i8, i32 or i64) and checks that
    the communicator has `ranks` ranks; an all_gather's rank is
    `llmcCudaGetTensorParallelRank()`. The calls stay on the host between
    kernels (gpu-async-region waits for the kernels before each).

    Errors: an all-reduce of another element type (f8, ...), a reduction
    other than sum, a grid that is not 1-D, a shard op left after
    `llm-lower-shard`, an unknown `library` or `mpi`.
  }];
  let options = [
    Option<"mpi", "mpi", "std::string", "\"openmpi\"",
           "ABI of the MPI library to call: openmpi or mpich">,
    Option<"library", "library", "std::string", "\"mpi\"",
           "Where the all-reduces run: mpi (host buffers, MPI_COMM_WORLD) "
           "or nccl (device buffers, llmc's CUDA runtime's NCCL "
           "communicator)">,
  ];
  let dependentDialects = ["::mlir::mpi::MPIDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::DLTIDialect"];
}

def LLMFixMPISymbolsPass : Pass<"llm-fix-mpi-symbols", "::mlir::ModuleOp"> {
  let summary = "rename MLIR 22's OpenMPI reduction-op symbols to OpenMPI's";
  let description = [{
    OpenMPI 4 and 5 export their predefined reduction ops as
    `ompi_mpi_op_<name>` (`MPI_SUM` is `&ompi_mpi_op_sum`, mpi.h), but MLIR
    22's `mpi` to LLVM lowering references `ompi_mpi_<name>`, which no
    OpenMPI library defines (the program fails to link). On a module whose
    `dlti.map` names `"MPI:Implementation" = "OpenMPI"`, this renames the
    external `llvm.mlir.global`s `ompi_mpi_{sum, max, min, prod, land, band,
    lor, bor, lxor, bxor, maxloc, minloc, replace, no_op}` and their uses to
    OpenMPI's names. Run it after the mpi dialect is lowered to LLVM.
  }];
}

def LLMEmulateAMXPass : Pass<"llm-emulate-amx"> {
  let summary = "Rewrite AMX tile ops into vector ops with the same results "
                "(AMX code on CPUs without AMX)";
  let description = [{
    For tests and checks of AMX kernels on machines without AMX (the AMX
    bf16 matmul of convert-llm-to-linalg, `dot_product = "amx_bf16"`). Each
    `!amx.tile<R x C x T>` becomes `vector<R x C x T>`, loop-carried tiles
    included:

    * `amx.tile_zero` -> a zero `arith.constant`;
    * `amx.tile_load %m[%i...]` / `amx.tile_store` -> `vector.transfer_read`
      / `transfer_write` of the memref's two innermost dims at the indices
      (a tile row per row of the memref, in bounds);
    * `amx.tile_mulf %a, %b, %c` (`a` M x 2Q bf16/f16, `b` Q x 2N in AMX's
      pair layout, `c` M x N f32) -> `c[m, n] + sum_{q,t} a[m, 2q + t] *
      b[q, 2n + t]` in f32, a `vector.contract` of `a` and `b` rearranged
      to [2Q, N] (Intel SDM: TDPBF16PS, TDPFP16PS). The hardware sums in
      another order and flushes denormal inputs and results to zero; the
      results agree to f32 rounding for normal values;
    * `amx.tile_muli %a, %b, %c` (`a` M x 4Q 8-bit, `b` Q x 4N, `c` M x N
      i32) -> `c[m, n] + sum_{q,t} ext(a[m, 4q + t]) * ext(b[q, 4n + t])`
      in i32, each operand zero- or sign-extended as its `isZextLhs` /
      `isZextRhs` says (TDPBUSD and its signed/unsigned variants): exact,
      as the hardware.

    Errors: tile loads or stores with an explicit `stride`, tiles passed
    to or returned from a function (arguments, results, calls), and tiles
    larger than the static innermost dims of the memref they are loaded
    from or stored to are not emulated: the op is reported and the pass
    fails.
    `llm-lower-to-cpu{emulate-amx}` runs this pass after bufferization.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def LLMRequestAMXStatePass
    : Pass<"llm-request-amx-state", "::mlir::ModuleOp"> {
  let summary = "Ask Linux for the AMX tile state before the first AMX "
                "instruction";
  let description = [{
    Linux gives a process the AMX tile data state (XTILEDATA, 8 KiB of
    register state per thread) only after it asks with
    `arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)` (Linux 5.16 and
    later; Documentation/arch/x86/xstate.rst); the first AMX instruction
    of a process that did not ask faults (SIGILL). The tile configuration
    itself (`ldtilecfg`) is emitted by LLVM's X86 backend.

    On a module of the LLVM dialect, every function that calls an AMX
    intrinsic (`llvm.x86.tile*`, `llvm.x86.tdp*`: what
    `convert-vector-to-llvm{enable-amx}` makes of the `amx` dialect) calls
    `__llmc_request_amx_state()` first. That function (internal, added
    once, with an internal flag `__llmc_amx_state_requested`) makes the
    system call the first time it runs in the process (the permission is
    the whole process's, its threads included); if Linux refuses, it
    prints "llmc: Linux refused this process the AMX tile state ..." on
    standard error and calls `exit(1)` instead of letting the process
    fault. Modules without AMX intrinsics are left unchanged.

    A function whose first operation already calls the request is left
    as it is (running the pass twice adds nothing). Only the functions of
    the module the pass runs on are instrumented, not those of nested
    modules.

    Errors: a `__llmc_request_amx_state`, `syscall`, `dprintf` or `exit`
    already declared with another signature, and another symbol named
    `__llmc_amx_state_requested` or `__llmc_amx_state_message`, are
    reported; the pass fails.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def LLMCheckAllocationsPass
    : Pass<"llm-check-allocations", "::mlir::ModuleOp"> {
  let summary = "define the generic allocation functions with a null check "
                "that reports out-of-memory instead of crashing";
  let description = [{
    `finalize-memref-to-llvm{use-generic-functions=true}` lowers
    `memref.alloc` / `memref.dealloc` to calls of
    `_mlir_memref_to_llvm_alloc(i64 bytes) -> !llvm.ptr`,
    `_mlir_memref_to_llvm_aligned_alloc(i64 alignment, i64 bytes)` and
    `_mlir_memref_to_llvm_free(!llvm.ptr)` and leaves them declared. This
    pass gives each declared one a body in the module (`weak` linkage;
    `llmc compile` makes them internal, like every function but the C
    wrappers):

    ```
    p = malloc(bytes)            // aligned_alloc(alignment, bytes)
    if (p == null && bytes != 0) __llmc_out_of_memory(bytes)  // no return
    return p
    ```

    The module also gets `__llmc_out_of_memory(i64 bytes)` (weak, unless
    it already defines one): it prints "llmc: out of memory: the compiled
    model could not allocate N bytes" on standard error (`dprintf(2, ...)`)
    and calls `exit(1)`; it must not return. llmc's runtime defines its own
    in each JIT, which wins over the weak one: the call that ran out of
    memory returns that error to `llmc run`, Python and the C API (the
    buffers the call had already allocated are not freed). A C program
    linking an llmc object may define one too. `llmc compile` keeps this
    function weak. Without this pass the lowered code writes through a null
    pointer when `malloc` fails (a segfault).

    Run it after `finalize-memref-to-llvm` with generic functions, on a
    module in the LLVM dialect. A module that declares none of the three
    functions is left unchanged.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def LLMOutlineKernelsPass
    : Pass<"llm-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Move each loop nest of a large function into a function of "
                "its own";
  let description = [{
    After bufferization and the lowering of linalg to loops, a model is one
    function whose body is a sequence of loop nests (one per kernel) over
    memrefs. Compile time of such a function grows faster than its size:
    `convert-scf-to-cf` splits its one block at every loop (each split moves
    the rest of the block: O(N^2) for N loops; 4000 kernels took 36 s), and
    LLVM's function passes and instruction scheduling are superlinear in a
    function's size (500 kernels: 14 s). This pass gives every loop nest of
    a function that has at least `min-kernels` of them a private function
    `@<function>_kernel<i>` (an op at the function's top level that has
    regions and no results: `scf.for`, `scf.forall`, `scf.parallel`,
    `scf.if`, `memref.alloca_scope`, ...), called in its place with the
    values it uses from outside as arguments (constants without operands
    are cloned in instead). The functions are marked `passthrough =
    ["noinline"]` (LLVM's `noinline` after `convert-func-to-llvm`), so LLVM
    does not put them back together; when all their memref arguments are
    static (shape, strides and offset), they also get `llvm.bareptr`, so
    that `convert-func-to-llvm` passes each memref as its aligned pointer
    rather than a descriptor. A loop nest equal to one outlined
    before up to locations (the same kernel of the next transformer layer,
    which reads other weights through its arguments) calls the existing
    function: a 12-layer model compiles about one layer's kernels.
    Functions with fewer loop nests are
    left as they are (LLVM sees their kernels side by side, with alias
    information across them); `min-kernels=0` outlines every loop nest.
  }];
  let options = [
    Option<"minKernels", "min-kernels", "int64_t", /*default=*/"64",
           "Outline the loop nests of functions with at least this many">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def LLMCountKernelsPass : Pass<"llm-count-kernels", "::mlir::ModuleOp"> {
  let summary = "Record the kernel count and intermediate bytes in llm.report";
  let description = [{
    Counts, in every `func.func` with a body, the kernels: the ops directly
    in the function body (not nested in another op) that become loop nests,
    i.e. `scf.forall`, `scf.for`, `scf.parallel`, any linalg op, and the
    tensor ops that bufferize into copies (`tensor.insert_slice`,
    `tensor.concat`, `tensor.pad`, `tensor.generate`). Reshapes,
    `tensor.extract_slice` (views), `tensor.empty` and constants are not
    kernels.

    `intermediate_bytes` is the number of bytes those kernels write to
    tensors that are not function results (directly or through
    `tensor.expand_shape`/`collapse_shape`): the intermediates written per
    call, before bufferization and memory planning (which may reuse their
    storage but not avoid the writes). A dynamic (sequence) dimension counts
    at the function's declared bound (`llm.dim_bounds`); tensors with a
    dynamic dimension and no bound are not counted.

    Both figures are set (not accumulated) as `kernels` and
    `intermediate_bytes` in the module's `llm.report` dictionary
    (llm/Support/Report.h). `llm-lower-to-cpu` runs the pass right after
    `llm-tile-and-vectorize` and its cleanup (on tensors), the point where
    every fusion of the pipeline has happened.
  }];
  let dependentDialects = [];
  let statistics = [
    Statistic<"numKernels", "kernels", "Kernels (top-level loop nests)">,
  ];
}

//===----------------------------------------------------------------------===//
// Memory planning
//===----------------------------------------------------------------------===//

def LLMPlanMemoryPass : Pass<"llm-plan-memory", "ModuleOp"> {
  let summary = "Place the static intermediate buffers of each function in "
                "one arena";
  let description = [{
    Runs after bufferization (and `buffer-results-to-out-params`), before the
    buffer deallocation pipeline. In every `func.func` with a body of one
    block, each `memref.alloc` directly in that block with a static shape,
    the identity layout and an integer or float element type (an
    "intermediate buffer") gets a byte offset in one arena; the alloc is
    replaced by `memref.view %arena[%offset][]`. Buffers an alias of which
    is returned are left alone, as are allocs inside loops (per-thread
    temporaries of `scf.forall` bodies) and `memref.alloca`s.

    Live interval of a buffer: the positions, in the function's top-level
    op list, of the first and the last top-level op that uses the buffer or
    any alias of it (`BufferViewFlowAnalysis`: subviews, reshapes, casts,
    loop-carried values); a use nested in a loop counts at the loop. Two
    buffers may share bytes only when their intervals are disjoint. The
    function body being one block, these linear intervals are exact
    liveness.

    Placement: greedy by size with best fit, the algorithm of TensorFlow
    Lite's arena planner (`ArenaPlanner` + `SimpleMemoryArena`,
    tensorflow/lite/simple_memory_arena.cc) and of IREE's slice packing
    (`stream.resource.pack`, iree/compiler/Dialect/Stream/Transforms/
    LayoutSlices.cpp): buffers sorted by decreasing size (ties: earlier
    first use, then program order); each is placed in the smallest gap
    between the already placed buffers whose intervals overlap its own,
    where it fits, else after the highest of them. Sizes are rounded up to
    `alignment` bytes (default 64), so every offset is a multiple of it.

    Arena: with `arena=per-call` (default) one `memref.alloc` of
    `memref<Nxi8>` (aligned to `alignment`) at the start of the function;
    the buffer deallocation pipeline frees it at the end. With
    `arena=caller` each public function gets an extra trailing argument
    `memref<?xi8>`, the caller provides at
    least N bytes aligned to `alignment` (checked with a `cf.assert` at run
    time), and the module attribute `llm.arena_bytes` (a dictionary from
    function name to N) tells a runtime how much to provide. Private
    functions always use a per-call arena.

    Results: first, a `memref.copy` of a (reshaped) alloc into a function
    argument that nothing else uses (an out-param), when the copy is the
    alloc's last use, is removed and the alloc replaced by the out-param
    reshaped to its type: the result is computed straight into the
    caller's buffer (`buffer-results-to-out-params{hoist-static-allocs}`
    only covers an alloc returned as is).

    Live-range splitting (`split-live-ranges`, default on): one-shot
    bufferization writes a new tensor into the buffer of a dead one
    whenever it can (destination-passing style), so one alloc may hold
    several values in turn, e.g. the same activation of every layer, and
    its interval would span them all. At each top-level op after the
    buffer's first use that overwrites every byte of it before reading any
    (a linalg op whose payload ignores its only init, a full `memref.copy`,
    or an `scf.forall` whose body reaches the buffer through one subview
    tile that covers it across iterations and is first fully written), the
    uses from that op on move to a new alloc of the same type, created
    right before it (top-level reshapes/subviews of the buffer used from
    there on are cloned). Each value then gets its own interval; buffers
    with other kinds of aliases are not split.

    Report: for the whole module (sums over functions), statistics and
    `llm.report` keys (llm/Support/Report.h): `arena_bytes` (arena sizes),
    `naive_bytes` (sum of the planned buffers' sizes, one allocation each,
    counted after live-range splitting: one allocation per intermediate
    value the planner sees, after fusion),
    `live_bound_bytes` (for each function, the largest total size of the
    buffers live at one top-level op: no placement can use less) and
    `planned_buffers`. All in bytes of the aligned sizes.

    `verify` re-checks the plan before rewriting: every two buffers whose
    intervals overlap must occupy disjoint byte ranges, every offset must be
    aligned and every buffer inside the arena; a violation is an error at
    the function and the pass fails. `test-overlap-all` (tests only) places
    every buffer at offset 0 so that the verifier can be seen to fire.

    Errors: an `alignment` that is not a positive power of two, or an
    `arena` value other than `per-call` and `caller`.
  }];
  let options = [
    Option<"arena", "arena", "std::string", /*default=*/"\"per-call\"",
           "Where the arena comes from: per-call (allocated at function "
           "entry) or caller (an extra trailing memref<?xi8> argument of "
           "public functions)">,
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Alignment in bytes of the arena and of every offset (a power "
           "of two, at most 4096)">,
    Option<"verify", "verify", "bool", /*default=*/"false",
           "Check that no two simultaneously live buffers overlap">,
    Option<"splitLiveRangesOpt", "split-live-ranges", "bool",
           /*default=*/"true",
           "Give each value a buffer holds its own live range: split a "
           "buffer at every op that overwrites all of it">,
    Option<"testOverlapAll", "test-overlap-all", "bool", /*default=*/"false",
           "Testing only: place every buffer at offset 0 (a wrong plan)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::memref::MemRefDialect",
  ];
  let statistics = [
    Statistic<"numPlanned", "planned-buffers", "Buffers placed in an arena">,
    Statistic<"numSplits", "live-range-splits",
              "Buffers split at a full overwrite (allocs added)">,
    Statistic<"numCopiesRemoved", "result-copies-removed",
              "Final copies into out-params removed">,
    Statistic<"arenaBytes", "arena-bytes", "Total arena bytes">,
    Statistic<"naiveBytes", "naive-bytes",
              "Total bytes of the planned buffers, one allocation each">,
    Statistic<"liveBoundBytes", "live-bound-bytes",
              "Sum over functions of the largest live set in bytes">,
  ];
}

def LLMDemoteContractionInputsPass
    : Pass<"llm-demote-contraction-inputs", "::mlir::func::FuncOp"> {
  let summary = "Round the f32 inputs of matmuls to bf16 or f16, keeping f32 "
                "accumulation";
  let description = [{
    For each linalg contraction on tensors whose inputs and output are f32
    (`linalg.matmul`, `linalg.batch_matmul` and generic matmuls whose
    payload is `out + a * b`, as `linalg::isaContractionOpInterface`
    says), the inputs are rounded to `type` (bf16 or f16, round to nearest
    even) and the products and the sum stay f32:

    - an input that is a constant (a weight: `arith.constant` of `dense` or
      `dense_resource` elements) is converted at compile time and stored in
      `type` (half the bytes), read through `arith.extf` in the payload;
    - any other input (an activation) is rounded in the payload:
      `arith.extf(arith.truncf(a))`.

    The op becomes a `linalg.generic` with the payload
    `out + ext(round(a)) * ext(round(b))`, which `llm-map-gpu-kernels`
    with `tensor-cores` runs on mma.sync (rounding the activations while it
    stages them in workgroup memory). This is what bf16 autocast does to a
    matmul (PyTorch, and IREE's `--iree-opt-demote-contraction-inputs-to-bf16`):
    each product's inputs lose their low mantissa bits (bf16 keeps 8
    significant bits, f16 11 with a range to 65504: an f16 weight beyond it
    becomes infinite), the accumulation does not. `llm-lower-to-nvvm`'s
    option `demote-contraction-inputs` runs it after
    `convert-llm-to-linalg`.

    Errors: `type` other than bf16 or f16.
  }];
  let options = [
    Option<"type", "type", "std::string", /*default=*/"\"bf16\"",
           "The type the inputs are rounded to: bf16 or f16">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
  ];
}

//===----------------------------------------------------------------------===//
// GPU (NVIDIA) code generation
//===----------------------------------------------------------------------===//

def LLMFormGPUKernelsPass
    : Pass<"llm-form-gpu-kernels", "::mlir::func::FuncOp"> {
  let summary = "Wrap each fusion group and each lone linalg op on tensors "
                "into one GPU kernel loop";
  let description = [{
    On linalg on tensors (after `convert-llm-to-linalg` and
    `llm-fuse-elementwise`), every `llm.fusion_group` and every linalg op
    with results outside a group becomes a one-iteration `scf.forall`
    mapped to `#gpu.block<x>` and marked `llm.gpu_kernel`:

    ```mlir
    %r = llm.fusion_group : tensor<64x512xf32> { ops; llm.yield %v }
    // ->
    %e = tensor.empty() : tensor<64x512xf32>
    %r = scf.forall (%i) in (1) shared_outs(%o = %e) -> tensor<64x512xf32> {
      ops
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %v into %o[0, 0] [64, 512] [1, 1] ...
      }
    } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
    ```

    The loop keeps the kernel's ops together through one-shot bufferization
    (its results are destinations, so the group's last ops write into them
    after empty-tensor elimination); `llm-map-gpu-kernels` then replaces it
    by one `gpu.launch`. Results must be statically shaped tensors (error
    otherwise).

    A group holding a matmul that `llm-map-gpu-kernels` computes as output
    tiles (loops (b.., m, n, k), M and N at least 32) after other work, or
    followed by more than point-local elementwise ops, is split: each such
    matmul starts a kernel of its own with the fill of its destination and
    its elementwise epilogue, and the ops after those start the next
    kernel; values crossing kernels become their results. A materialized
    attention (QK^T, scale and mask; softmax; PV) is thus three kernels,
    both products tiles, instead of one block per query row that reads all
    of K and V.

    A tiled loop nest in a group (an `scf.forall`: the flash-attention
    lowering of `llm.attention`) is a kernel of its own, marked as it is
    (`llm.gpu_kernel` and `llm.gpu_block_loop`: each of its iterations a
    block, see `llm-map-gpu-kernels`' forall strategy) instead of wrapped:
    the scalar code only it uses (a `kv_length` read from its 0-d tensor)
    moves into it, and a generic in one of its `scf.for` loops whose
    destination `linalg-fold-unit-extent-dims` moved to its inputs (so that
    the loop's yielded value no longer shares its iteration argument's
    buffer, which bufferization refuses) writes the iteration argument in
    place again.
  }];
  let dependentDialects = [
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::gpu::GPUDialect",
  ];
}

def LLMHoistKernelAllocsPass
    : Pass<"llm-hoist-kernel-allocs", "::mlir::func::FuncOp"> {
  let summary = "Move the scratch buffers of GPU kernel loops in front of "
                "them";
  let description = [{
    After one-shot bufferization, each statically shaped `memref.alloc`
    directly inside a loop marked `llm.gpu_kernel` (one iteration, from
    `llm-form-gpu-kernels`; not a tiled loop nest marked
    `llm.gpu_block_loop`, whose buffers are per block) moves in front of
    the loop, so that
    `llm-plan-memory` places the kernel's intermediate buffers in the arena
    with the others (device code allocates nothing). Dynamically sized
    allocations stay.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def LLMMapGPUKernelsPass : Pass<"llm-map-gpu-kernels", "::mlir::ModuleOp"> {
  let summary = "Replace each bufferized kernel by one gpu.launch and move "
                "the host's buffers to the device";
  let description = [{
    On buffers (after one-shot bufferization and `llm-plan-memory`), each
    loop marked `llm.gpu_kernel` by `llm-form-gpu-kernels`, and each linalg
    op or `memref.copy` left on the host, becomes exactly one `gpu.launch`
    (1-D grid and block). Its linalg ops (the stages, generalized) are
    distributed by one of two strategies, recorded in the launch's
    `llm.gpu_strategy` attribute `{strategy, stages, rows}`:

    - `flat`: a kernel of one stage whose parallel points are independent
      (no reduction, or at least 4096 points): one point per thread, the
      parallel dims linearized with the innermost fastest (coalesced);
      reductions run serially in registers.
    - `rows`: the leading parallel dims shared by every stage (same extents,
      and every access to a buffer written in the kernel indexes them first
      through the same view) form the grid, one block per row. In a block,
      a stage with a parallel dim left puts its innermost one on thread x
      (a loop strided by the block size); a row reduction (no parallel dim
      left, payload `yield combine(out, f(ins))` with combine one of
      add/mul/max/min/and/or/xor) splits its innermost reduction dim over
      the threads and combines the partials with `gpu.all_reduce` (warp
      shuffles and shared memory after NVVM lowering); anything else runs on
      thread 0. `gpu.barrier` separates stages. When every stage can keep a
      parallel dim for the threads with a grid of at least one block per SM,
      that is preferred.
    - `rows` in column mode (`column_groups = G` in the attribute): when the
      rows are every parallel dim of every stage and the one reduction stage
      reads an input along the last row dim (a decode matvec x[1, K] @
      W[K, N], whose block per output would have its threads read W down a
      column), a block covers 32 consecutive values of the last row dim, one
      per lane, and its G warps (up to 32, each at least 16 steps) split the
      reduction dim, each warp's loop unrolled by 4; the partial results go
      to workgroup memory [G, 32] and, after a barrier, warp 0 combines them
      in warp order and runs the other stages for its lanes' outputs.
    - `tiles` (`tile = [TM, TN, TK]`, `thread_tile = [tm, tn]` in the
      attribute): a kernel whose one reduction stage is a matmul
      C[b.., m, n] += f(A[.. m, k ..], B[.. k, n ..]) (loops (b.., m, n, k),
      combined by an addition, M and N at least 32), the other stages
      parallel over (b.., m, n) and accessing buffers written in the kernel
      only at the point itself (a prefill projection with its fill, bias,
      activation or residual). A block computes a TM x TN tile of C (64 x 64
      with 4 x 4 per thread; 32 x 32 with 2 x 2 when 64 x 64 tiles would
      leave SMs idle) for one batch index: the K loop steps by TK = 16,
      copying A's and B's tiles to workgroup memory (k-major, coalesced
      global loads, a barrier before and after), and each thread reads its
      tm values of A and tn values of B per step with one vector load each.
      The other stages run at each of the thread's points, before and after.
      With `tensor-cores` (set by `llm-lower-to-nvvm` and by the emulator's
      pipeline, whose `llm-emulate-gpu-kernels` runs the MMAs), a matmul `c + ext(a) *
      ext(b)` of f16 or bf16 into f32 whose M and N are multiples of 64 and
      K of 32 (`mma = "m16n8k16"` in the attribute) uses 4 warps per 64 x 64
      tile, each 2 x 4 `nvvm.mma.sync` m16n8k16 per 16 steps of K, A and B
      staged in workgroup memory [64][40] (m- and n-major) 32 steps at a
      time; the other stages run at 32 points per thread with a barrier
      between them and the MMAs. With `sparse-weights` as well, such a
      matmul whose B is a whole `memref.get_global` of a constant global
      that is exact 2:4 along K (at most 2 nonzeros in every group of 4
      consecutive k of each column n) runs on `nvvm.mma.sp.sync` m16n8k32
      (`mma = "m16n8k32.sp"`, kernel names `*_mma_sp_*`): B is packed into
      two new private constant globals, `<name>_2of4_values` ([N][K / 2] of
      the MMA type: the 2 kept elements of each group, explicit zeros where
      it has fewer) and `<name>_2of4_metadata` (i32 words: per 16 columns
      n, K tile of 32, thread group g and K half h, the 2-bit positions of
      n = g in the low 16 bits and of n = g + 8 in the high ones), marked
      `llm.packed_from = "<weight>:<nk|kn>:<MMA type>:<values|metadata>"`
      and made once per weight, layout and MMA type, and the kernel computes
      C^T = B^T A^T with B^T the sparse operand (per K tile: A's tile and
      B's stored values [64][24] in workgroup memory, 2 x 4 MMAs per warp).
    - `forall` (`blocks = [N0, N1, ...]` in the attribute): a kernel loop
      marked `llm.gpu_block_loop` (a tiled loop nest, the flash-attention
      lowering of `llm.attention`; static bounds from 0, step 1) runs each
      of its N0 x N1 x ... iterations as a block (the block id
      delinearized, the last iv fastest). Each `memref.alloc` in it (static
      shape) is a workgroup attribution of the launch: together at most the
      chip's 48 KiB of static shared memory per block (error otherwise).
      Each linalg op (and `memref.copy`) in it runs over the block's
      threads, `for p = tid; p < points; p += blockDim` over its parallel
      points (innermost fastest; reductions serial at each point); its
      `scf.for` (no carried values) and `scf.if` (no results) run on every
      thread alike; a `gpu.barrier` comes before an op that reads or writes
      what an earlier op since the last barrier wrote, or writes what it
      read, and at the end of a loop body that leaves such accesses.

    Each launch is named (its `module` and `function` attributes, which
    `gpu-kernel-outlining` gives the kernel) `<function>_<strategy>_<i>`:
    the strategy (`mma` for tensor-core tiles) and the launch's index among
    the module's launches, e.g. `@main_tiles_3` (with `_k` appended while
    another symbol of the module has that name).

    Block size: the longest distributed loop rounded up to the warp size, at
    most `block-size` (default: the chip's, 256). Host allocations
    (`memref.alloc`/`dealloc`, the memory plan's arena) become
    `gpu.alloc`/`gpu.dealloc`; `memref.get_global` (weights) and constants
    used by a kernel are cloned into it, so the weights live in the kernel
    module. The functions' memref arguments are device pointers.

    Host scalar code (loads, arithmetic, stores and `scf.if`s between the
    kernels: the run-time index checks, a cache position read from an
    input, a quantization scale reduced by one kernel and stored as a
    result) runs on the device: each run of it becomes a single-thread
    kernel (`scalar`), last run first; a value such code computes and a
    later kernel or run uses is computed again there (the loads repeated at
    the kernel's start) when nothing from the load up to the kernel, and
    nothing in it, may write the bytes loaded (distinct entry buffers do not
    overlap; memory-plan slots overlap where their byte ranges meet);
    otherwise (an arena slot reused in between: ONNX NLL/softmax
    cross-entropy losses with class weights) the scalar kernel stores the
    value into a device buffer of its own (`gpu.alloc` of a 0-d memref)
    right after computing it, and each later kernel that uses it (directly,
    or through a subview at that offset, taken again in the kernel) loads
    it at its start. The host code left without users is erased.

    Errors: an unknown `chip`; a `block-size` not a multiple of the warp size
    or above 1024; dynamic loop ranges; a grid above 2^31 - 1 blocks; an op
    with memory effects that is not a linalg op inside a kernel; control flow
    or memory reads on the host; a value of device scalar code used by the
    host itself (e.g. a dynamic allocation size), which cannot read device
    memory.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "GPU target description (sm_80, sm_89 or sm_90a)">,
    Option<"blockSize", "block-size", "int64_t", /*default=*/"0",
           "Threads per block of the generic kernels (0: the chip's)">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"false",
           "f16/bf16 matmul tiles on tensor cores (nvvm.mma.sync; sm_80+)">,
    Option<"sparseWeights", "sparse-weights", "bool", /*default=*/"false",
           "With tensor-cores: constant weights that are exact 2:4 along K "
           "on the sparse tensor cores (nvvm.mma.sp.sync m16n8k32)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def LLMMergeGPUModulesPass
    : Pass<"llm-merge-gpu-modules", "::mlir::ModuleOp"> {
  let summary = "Merge the outlined kernel modules into one gpu.module";
  let description = [{
    After `gpu-kernel-outlining` (one `gpu.module` per kernel, each with its
    own copy of the `memref.global`s its kernel reads), moves every kernel
    into one `gpu.module @llm_kernels` (with the first module's targets),
    renamed after its old module (`@main_tiles_3::@main_tiles_3` stays
    `@llm_kernels::@main_tiles_3`, `@f_kernel_0::@f_kernel` becomes
    `@llm_kernels::@f_kernel_0`; `gpu.launch_func` ops follow), and keeps
    one copy of each other symbol (weights, libdevice declarations). The
    result compiles to one PTX/cubin per chip, loaded once. Nothing moves
    with fewer than two kernel modules. Every kernel's workgroup buffers get
    `llvm.align = 16` (unless set), which the 128-bit vector loads of the
    matmul tiles need (`gpu.launch` cannot carry attribution attributes,
    so they are set on the outlined `gpu.func`s).
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def LLMReportGPUKernelsPass
    : Pass<"llm-report-gpu-kernels", "::mlir::ModuleOp"> {
  let summary = "Record each GPU kernel's launch figures in the compile "
                "report";
  let description = [{
    After `llm-map-gpu-kernels` (which names each `gpu.launch` after its
    function, its strategy and its index among the module's launches, e.g.
    `main_tiles_3`: the outlined kernel's name), records one entry per
    launch, in launch order, in the `gpu_kernels` array of the module's
    `llm.report` dictionary (`include/llm/Support/Report.h`), which
    `llmc compile --target cuda --report[=json]` prints:

    - `name`: the kernel's name (its `function` attribute), `function`: the
      host function that launches it;
    - `strategy`: the `llm.gpu_strategy` dictionary (how the work was
      distributed: `flat`, `rows`, `tiles`, `scalar`, with the tile sizes);
    - `grid`, `block`: the launch's sizes (x, y, z), -1 where not a constant;
    - `shared_bytes`: the bytes of its workgroup buffers (and dynamic shared
      memory when constant);
    - `bytes_read`, `bytes_written`: an estimate of the global-memory
      traffic of one launch: each buffer (a function argument, weight,
      memory-plan slot, seen through its views) the kernel reads, resp.
      writes, counted once at its full size: the compulsory traffic of a
      kernel that touches its buffers whole. Tiles that read a matmul's
      operands several times move more through L2; a gather (an embedding
      lookup) or a subview reads less than the buffer it is charged for.
      -1 when a buffer the kernel touches has a dynamic shape.

    Also sets `gpu_launches` (launches per call of all entry points) and
    `gpu_scalar_launches` (single-thread scalar kernels) as integers.
    Nothing in the IR changes but the report.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def LLMAddGPUHostEntriesPass
    : Pass<"llm-add-gpu-host-entries", "::mlir::ModuleOp"> {
  let summary = "Add an entry point on host buffers for each GPU entry "
                "point";
  let description = [{
    After `llm-map-gpu-kernels` the public functions take device buffers.
    For each public function `@f` (memref arguments only, statically shaped,
    identity layout; its last N arguments are the results it had before
    bufferization, N recorded by `llm-form-gpu-kernels` in
    `llm.gpu_num_results`), adds a public `@f_host` with the same signature
    on host buffers:

    ```
    d_k = gpu.alloc for every argument; gpu.memcpy d_k <- arg_k (inputs)
    call @f(d_0, ...)
    gpu.memcpy arg_k <- d_k (results); gpu.dealloc d_k
    ```

    so that a host program (llmc's `--emit=exe` runner, `llmc run --target
    cuda`) passes host arrays; `@f` itself stays for callers holding device
    pointers. Errors: a symbol `@f_host` that already exists; a dynamic or
    strided argument.
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
  ];
}

def LLMForwardGPUIndexStatusPass
    : Pass<"llm-forward-gpu-index-status", "::mlir::ModuleOp"> {
  let summary = "Let kernels record failed run-time index checks in device "
                "memory that the host status receives";
  let description = [{
    The run-time index checks of `llm.embedding` / `llm.gather`
    (convert-llm-to-linalg) record a failure in the host global
    `@__llmc_status : memref<4xi64>` ([check number, index, size, 0], zero
    until a check fails; the first failure of a call is kept), which
    `CompiledModel` and C callers of an object read after a call. After
    `llm-map-gpu-kernels` those checks run inside kernels, where the host
    global is out of reach. For each function whose code uses the status,
    this pass gives the kernels a device copy instead:

    ```
    %h = memref.get_global @__llmc_status
    %d = gpu.alloc() : memref<4xi64>
    gpu.memcpy %d, %h          // a failure already recorded is kept
    ... the kernels read and write %d ...
    gpu.memcpy %h, %d          // before each return
    gpu.dealloc %d
    ```

    and around each `func.call` the copy goes to the host before the call
    and comes back after it (the callee records into a copy of its own),
    so that a failed check reaches the host exactly as on the CPU, for
    `llmc run --target cuda`, the `--emit=exe` runner and objects alike. The
    copy back waits for the function's kernels (32 bytes, one
    device-to-host copy per call of a function with checks; functions
    without checks are unchanged). Runs after `llm-map-gpu-kernels` and
    before `llm-add-gpu-host-entries`. Errors: a status global that is not
    a `memref<4xi64>`.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def LLMEmulateGPUKernelsPass
    : Pass<"llm-emulate-gpu-kernels", "::mlir::ModuleOp"> {
  let summary = "Run the kernels of llm-map-gpu-kernels on the CPU (numerical "
                "checks without a GPU)";
  let description = [{
    Replaces each `gpu.launch` of `llm-map-gpu-kernels` (1-D constant grid
    and block; synchronization only by `gpu.barrier`, `gpu.all_reduce`
    with a reduction kind and the tensor cores' `nvvm.mma.sync` /
    `nvvm.mma.sp.sync`, at the top level or in the body of an `scf.for`
    whose bounds are uniform across the block) by host loops:

    ```
    for block in grid:
      for each interval between synchronization points:
        for thread in block: the interval's ops
        at an all_reduce: the threads' values combined in thread order
        at an MMA: each warp's fragments gathered into its A and B, each
          thread's accumulators computed from them in f32
    ```

    The MMAs emulated are m16n8k16 `nvvm.mma.sync` (row-major A,
    column-major B) and m16n8k32 `nvvm.mma.sp.sync` (A 2:4 sparse, selector
    0 or 1, unordered metadata) on f16 or bf16 (`vector<2xf16>` or i32
    registers) accumulating in f32, with the fragment layouts of the PTX ISA
    ("Matrix Fragments for mma.m16n8k16 with floating point type", "Sparse
    matrix storage"): each warp's fragments are gathered into its A (16 x 16
    stored values; for a 2:4 A, each one's column k from its 2-bit metadata
    index) and B (K x 8), and each accumulator is `c + sum A[row][c] *
    B[k(c)][col]` over A's 16 stored columns c, in f32, in that order (the
    hardware's order and internal precision differ by rounding; the
    columns a 2:4 A does not select take no part, as on the hardware). The MMA's result may only be read by `llvm.extractvalue` in
    its block. The whole block meets at an MMA in this schedule, a stronger
    synchronization than the warp's own, so a race between warps around an
    MMA (a missing barrier) is not caught there.

    one of the schedules a GPU may run (every thread reaches a barrier
    before any passes it). A loop that synchronizes (the matmul tiles' K
    loop, the flash kernel's key/value loop) becomes a host loop whose
    iterations run its body's intervals in turn; its bounds are computed on
    the host from the block id, constants, values from outside the launch
    and loads of buffers the launch does not write. Values crossing a synchronization point are kept
    per thread in `memref.alloca` buffers of block-size entries;
    `gpu.alloc`/`gpu.dealloc`/`gpu.memcpy` become
    `memref.alloc`/`dealloc`/`copy`. The result
    runs through the CPU lowering, so the GPU kernels' indexing, thread
    loops, block reductions and barriers are checked against the CPU path
    (`llmc run --target cuda-emulator`). It does not check the NVVM lowering
    (warp shuffles, PTX), which ptxas and a GPU check.

    Errors: a launch with a non-constant or multi-dimensional grid or block,
    synchronization inside control flow other than such a loop (or in a
    loop whose bounds depend on the thread), an `all_reduce` with a custom
    region, an MMA of another shape, type or layout (or a block that is not
    whole warps, or a non-constant sparsity selector), an asynchronous
    `gpu.alloc` or `gpu.memcpy`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

#endif // LLM_CODEGEN_PASSES_TD
