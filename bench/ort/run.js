// ===- run.js - times one workload in ONNX Runtime (onnxruntime-node) ---=== //
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ===--------------------------------------------------------------------=== //
//
// One timed trial of one exported workload on ONNX Runtime's CPU execution
// provider (npm onnxruntime-node, installed into bench/node_modules by
// bench/run). Started by bench/run under `taskset`.
//
// Usage: node run.js WORKDIR THREADS WARMUP REPEAT [OUTDIR]
//
// Reads WORKDIR/meta.json, WORKDIR/model.onnx and WORKDIR/in/<input>.npy
// (little-endian <f4, <f2, <i8 or <i4, or |b1 bool; C order), creates a session
// with intraOpNumThreads = THREADS, interOpNumThreads = 1, sequential execution
// and all graph optimizations, runs WARMUP untimed calls and REPEAT timed
// calls (inputs prepared beforehand), writes the outputs to
// OUTDIR/<output>.npy when OUTDIR is given, and prints one JSON line:
// {"times_ms": [...], "info": {...}}. Both timers of ../ort/profile.js
// overstate ONNX Runtime's time, each in its own way: the JavaScript clock
// around `await session.run()` counts onnxruntime-node's overhead, and
// ONNX Runtime's profiler (its `model_run` events) counts the profiler's
// cost per node. So the REPEAT calls run twice, on two sessions, once per
// timer, and times_ms is the set with the smaller median (info.timer says
// which; info.js_times_ms and info.profiler_times_ms are both). With
// LLMC_ORT_PROFILE=0 in the environment only the JavaScript clock runs.
//
// ===--------------------------------------------------------------------=== //

'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, '..', 'node_modules', 'onnxruntime-node'));
const { profilingOptions, endProfiling } = require('./profile.js');

const DTYPES = {
  '<f4' : [ 'float32', Float32Array ],
  '<f2' : [ 'float16', Uint16Array ],
  '<i8' : [ 'int64', BigInt64Array ],
  '<i4' : [ 'int32', Int32Array ],
  '|b1' : [ 'bool', Uint8Array ],
};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(file + ': not a .npy file');
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const hstart = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', hstart, hstart + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(file + ': Fortran order');
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1]
    .split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const [type, Arr] = DTYPES[descr] || [];
  if (!type) throw new Error(file + ': unsupported dtype ' + descr);
  const off = hstart + hlen;
  const n = shape.reduce((a, b) => a * b, 1);
  // Copy into an aligned buffer of its own.
  const data = new Arr(n);
  Buffer.from(data.buffer).set(buf.subarray(off, off + n * Arr.BYTES_PER_ELEMENT));
  return new ort.Tensor(type, data, shape);
}

function writeNpy(file, tensor) {
  const descr = {
    float32 : '<f4',
    float16 : '<f2',
    int64 : '<i8',
    int32 : '<i4',
    bool : '|b1'
  }[tensor.type];
  let header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" +
    tensor.dims.join(', ') + (tensor.dims.length === 1 ? ',' : '') + '), }';
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const d = tensor.data;
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'),
    Buffer.from(d.buffer, d.byteOffset, d.byteLength)]));
}

async function main() {
  const [wdir, threadsS, warmupS, repeatS, outdir] = process.argv.slice(2);
  const threads = Number(threadsS), warmup = Number(warmupS), repeat = Number(repeatS);
  const meta = JSON.parse(fs.readFileSync(path.join(wdir, 'meta.json'), 'utf8'));
  const feeds = {};
  for (const name of meta.inputs) feeds[name] = readNpy(path.join(wdir, 'in', name + '.npy'));
  const base = {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
  const model = path.join(wdir, 'model.onnx');
  // WARMUP + REPEAT calls of a session; returns [JavaScript times of the
  // timed calls, the last outputs].
  const timeCalls = async (session) => {
    let outs;
    for (let i = 0; i < warmup; i++) outs = await session.run(feeds);
    const times = [];
    for (let i = 0; i < repeat; i++) {
      const t0 = process.hrtime.bigint();
      outs = await session.run(feeds);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    return [times, outs];
  };
  // 1. The JavaScript clock, no profiler.
  const [jsTimes, outs] = await timeCalls(await ort.InferenceSession.create(model, base));
  if (outdir) {
    fs.mkdirSync(outdir, { recursive: true });
    for (const name of meta.outputs) writeNpy(path.join(outdir, name + '.npy'), outs[name]);
  }
  // 2. ONNX Runtime's profiler (LLMC_ORT_PROFILE=0: skipped); the timed
  // calls are the last `repeat` runs of the profile.
  let profTimes = null;
  if (process.env.LLMC_ORT_PROFILE !== '0') {
    const [options, profileDir] = profilingOptions(base);
    const session = await ort.InferenceSession.create(model, options);
    await timeCalls(session);
    profTimes = endProfiling(session, profileDir).slice(-repeat);
    if (profTimes.length !== repeat)
      throw new Error('the profile has ' + profTimes.length + ' of ' + repeat + ' timed calls');
  }
  const median = (t) => t.slice().sort((a, b) => a - b)[Math.floor(t.length / 2)];
  const useProfile = profTimes && median(profTimes) < median(jsTimes);
  console.log(JSON.stringify({
    times_ms: useProfile ? profTimes : jsTimes,
    info: {
      onnxruntime: ort.env.versions.common,
      timer: useProfile ? 'ort-profiler model_run' : 'js',
      js_times_ms: jsTimes,
      profiler_times_ms: profTimes,
    },
  }));
}

main().catch((e) => { console.error('ort/run.js: ' + (e && e.stack || e)); process.exit(1); });
