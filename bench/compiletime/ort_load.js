// ===- ort_load.js - ONNX Runtime session creation time ------------------=== //
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ===--------------------------------------------------------------------=== //
//
// Usage: node ort_load.js MODEL.onnx THREADS
// Creates an onnxruntime-node CPU session (all graph optimizations, as
// bench/ort/run.js does) and prints {"load_s": seconds} on one line: ONNX
// Runtime's counterpart of llmc's compile time.
//
// ===--------------------------------------------------------------------=== //

'use strict';
const path = require('path');
const ort = require(path.join(__dirname, '..', 'node_modules', 'onnxruntime-node'));

async function main() {
  const [model, threads] = process.argv.slice(2);
  const start = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: Number(threads || 1),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  void session;
  console.log(JSON.stringify({ load_s: seconds }));
}

main().catch((e) => { console.error(e.message); process.exit(1); });
