// ===- profile.js - ONNX Runtime's own time per call (onnxruntime-node) -=== //
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ===--------------------------------------------------------------------=== //
//
// Times ONNX Runtime calls with ONNX Runtime's own profiler instead of a
// JavaScript clock around `await session.run()`. The JavaScript clock also
// counts what onnxruntime-node adds to each call: the hand-off to its worker
// thread and back, and the copy of every output into a JavaScript typed array
// (with the garbage collections that the outputs' external memory sets off).
// On the 2-vCPU VMs this was measured at 0.1 ms for a 100x100x100 MatMul
// (0.15 against 0.04 ms) and about 3 ms for one with a 1 MiB output (3.3 ms
// against ORT's own 0.22 ms), from one call to the next and not in every
// process: an overhead that a C, C++ or Python user of ONNX Runtime does not
// pay in the same way, and that llmc's own timer (`llmc run --repeat`, a
// native loop) does not count for llmc. ONNX Runtime's profiler records each
// InferenceSession::Run as a `model_run` event whose duration covers the
// whole call inside ONNX Runtime, output allocation included, but also the
// profiler's own work for every node (on decode768, about 60 nodes, it made
// the calls 0.2-0.6 ms slower). Neither timer is ONNX Runtime's time alone:
// run.js and ort_generate.js time the calls both ways and keep the smaller.
//
// ===--------------------------------------------------------------------=== //

'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

/// Session options that turn ONNX Runtime's profiler on, writing into a new
/// temporary directory. Returns [options, directory].
function profilingOptions(options) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'llmc-ort-profile-'));
  return [
    Object.assign({}, options, {
      enableProfiling: true,
      profileFilePrefix: path.join(dir, 'ort'),
    }),
    dir,
  ];
}

/// Ends the profiling of `session` (whose profile goes to `dir`), removes
/// `dir` and returns the duration in ms of every `model_run` (one per
/// session.run, in call order).
function endProfiling(session, dir) {
  session.endProfiling();
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
  if (files.length !== 1)
    throw new Error('ONNX Runtime wrote ' + files.length + ' profiles into ' + dir);
  const events = JSON.parse(fs.readFileSync(path.join(dir, files[0]), 'utf8'));
  fs.rmSync(dir, { recursive: true, force: true });
  return events.filter((e) => e.name === 'model_run')
    .sort((a, b) => a.ts - b.ts)
    .map((e) => e.dur / 1000);
}

module.exports = { profilingOptions, endProfiling };
