// ===- ort_generate.js - greedy generation with ONNX Runtime (past KV) --=== //
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ===--------------------------------------------------------------------=== //
//
// The usual ONNX Runtime generation loop over a decoder exported with its
// past (past_key_values.* inputs, present.* outputs): one call on the prompt
// with an empty past, then one call per token with the presents fed back as
// the past. CPU execution provider (npm onnxruntime-node in
// bench/node_modules), intraOpNumThreads = THREADS, interOpNumThreads = 1,
// sequential execution, all graph optimizations. Started by
// bench/generate/past_kv.py.
//
// Usage: node ort_generate.js MODEL.onnx THREADS PROMPT_IDS NEW TRIALS
//
// Prints one JSON line per trial: {"prefill_ms": P, "decode_ms": [...],
// "ids": [...]} (greedy ids; decode_ms of every call after the prompt's).
//
// ===--------------------------------------------------------------------=== //

'use strict';
const path = require('path');
const ort = require(path.join(__dirname, '..', 'node_modules', 'onnxruntime-node'));

function argmaxLast(logits) {
  const [, s, v] = logits.dims;
  const data = logits.data;
  let best = 0;
  const base = (s - 1) * v;
  for (let i = 1; i < v; ++i)
    if (data[base + i] > data[base + best]) best = i;
  return best;
}

async function main() {
  const [model, threads, promptText, newText, trialsText] = process.argv.slice(2);
  const prompt = promptText.split(',').map(Number);
  const newTokens = Number(newText);
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  // The past inputs' shapes: [1, Hkv, 0, D] to start.
  const pastNames = session.inputNames.filter((n) => n.startsWith('past'));
  const meta = session.inputMetadata || {};
  const pastDims = {};
  for (const n of pastNames) {
    const m = Array.isArray(meta) ? meta.find((x) => x.name === n) : meta[n];
    const shape = (m && (m.shape || m.dimensions)) || null;
    if (!shape) throw new Error('no shape for ' + n);
    pastDims[n] = shape.map((d, i) => (typeof d === 'number' ? d : (i === 0 ? 1 : 0)));
  }
  const presentOf = (n) => n.replace(/^past_key_values/, 'present');
  for (let t = 0; t < Number(trialsText); ++t) {
    let feeds = {};
    for (const n of pastNames)
      feeds[n] = new ort.Tensor('float32', new Float32Array(0), pastDims[n]);
    let ids = prompt.slice();
    const out = [];
    const decode = [];
    let prefill = 0;
    for (let step = 0; step < newTokens; ++step) {
      feeds.input_ids = new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]);
      const t0 = process.hrtime.bigint();
      const res = await session.run(feeds);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (step === 0) prefill = ms; else decode.push(ms);
      const tok = argmaxLast(res.logits);
      out.push(tok);
      const next = {};
      for (const n of pastNames) next[n] = res[presentOf(n)];
      feeds = next;
      ids = [tok];
    }
    console.log(JSON.stringify({ prefill_ms: prefill, decode_ms: decode, ids: out }));
  }
}

main().catch((e) => { console.error(e.message || e); process.exit(1); });
