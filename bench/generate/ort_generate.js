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
// "ids": [...], "js_prefill_ms": P', "js_decode_ms": [...]} (greedy ids;
// decode_ms of every call after the prompt's). The trials run twice, on two
// sessions: timed with process.hrtime around `await session.run()` (which
// also counts onnxruntime-node's copy of every output, the presents: the
// whole cache, each step) and by ONNX Runtime's profiler (which also counts
// its cost per node; ../ort/profile.js). Each trial prints the times of the
// timer whose median decode step is smaller ("timer": "js" or "profiler"),
// and both sets as js_decode_ms / profiler_decode_ms.
//
// ===--------------------------------------------------------------------=== //

'use strict';
const path = require('path');
const ort = require(path.join(__dirname, '..', 'node_modules', 'onnxruntime-node'));
const { profilingOptions, endProfiling } = require('../ort/profile.js');

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
  const base = {
    executionProviders: ['cpu'],
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
  // The trials on `session`: [{prefill_ms, decode_ms, ids}] timed in
  // JavaScript.
  const generate = async (session) => {
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
    const trials = [];
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
      trials.push({ prefill_ms: prefill, decode_ms: decode, ids: out });
    }
    return trials;
  };
  const js = await generate(await ort.InferenceSession.create(model, base));
  const [options, profileDir] = profilingOptions(base);
  const session = await ort.InferenceSession.create(model, options);
  const prof = await generate(session);
  // ONNX Runtime's own times: newTokens calls per trial, in order.
  const runs = endProfiling(session, profileDir);
  if (runs.length !== prof.length * newTokens)
    throw new Error('the profile has ' + runs.length + ' runs, expected ' + prof.length * newTokens);
  const median = (t) => t.slice().sort((a, b) => a - b)[Math.floor(t.length / 2)];
  js.forEach((trial, t) => {
    const own = runs.slice(t * newTokens, (t + 1) * newTokens);
    const p = { prefill_ms: own[0], decode_ms: own.slice(1) };
    const useProfile = median(p.decode_ms) < median(trial.decode_ms);
    const best = useProfile ? p : trial;
    console.log(JSON.stringify({
      prefill_ms: best.prefill_ms, decode_ms: best.decode_ms, ids: trial.ids,
      timer: useProfile ? 'profiler' : 'js',
      js_prefill_ms: trial.prefill_ms, js_decode_ms: trial.decode_ms,
      profiler_prefill_ms: p.prefill_ms, profiler_decode_ms: p.decode_ms,
      profiler_ids_match: prof[t].ids.join() === trial.ids.join(),
    }));
  });
}

main().catch((e) => { console.error(e.message || e); process.exit(1); });
