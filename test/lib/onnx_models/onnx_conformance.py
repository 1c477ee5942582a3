#!/usr/bin/env python3
# ===- onnx_conformance.py - ONNX backend node tests, compiled and run ----=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Conformance of llmc against ONNX's own backend node tests.

For every test directory under DATA (default: Debian libonnx-testdata,
/usr/share/libonnx-testdata/data/node/*: model.onnx + test_data_set_*/), the
runner

  1. reads the test's inputs and expected outputs (TensorProto .pb files);
  2. binds the "attribute-like" inputs (SHAPE_INPUTS below: Reshape's shape,
     Slice's starts/ends/axes/steps, a Reduce's axes, ...) as initializers:
     exported models always feed these from constants and the importer needs
     them at import time. Data inputs (Gather's indices, Where's condition,
     ...) stay runtime inputs;
  3. imports, compiles and runs it with one `llmc run MODEL.onnx` (the
     llm-lower-to-cpu pipeline, JIT-compiled on the host CPU at LLVM -O0) on
     the test's inputs. The import comes first, so a model the importer
     rejects is never compiled: it is reported as a skip with the importer's
     diagnostic (located at MODEL.onnx:0:0, e.g. "unsupported op Det");
     any other error is a failure (one process per test: process start-up
     dominates the time on these small models);
  4. compares every output with the expected one as ONNX's backend test
     runner does (onnx/backend/test/runner: same dtype, same shape,
     numpy.testing.assert_allclose with rtol=1e-3, atol=1e-7; NaNs compare
     equal). bfloat16 (numpy has no such type; ONNX stores the raw bits as
     uint16) is widened to float32 on both sides, which is exact.

It prints one line per skipped or failed test with its reason (the
diagnostic, and the stated out-of-scope or not-yet-supported reason of
OUT_OF_SCOPE / NOT_YET), the count of skips of each kind, and ends with
`N passed, N failed, N skipped`. The exit code is 1 when any test fails
(wrong result, crash, timeout, missing output) or when a test in the
LLM-relevant list (LLM_RELEVANT below) is skipped; otherwise 0.

Usage: onnx_conformance.py LLMC [--data DIR] [--filter REGEX] [--jobs N]
                           [--workdir DIR] [--summary-file FILE] [--verbose]
Environment: LLMC_CONFORMANCE_QUANT=1 treats the QuantizeLinear/
DequantizeLinear tests (PENDING_QUANT) as LLM-relevant.
"""

import argparse
import glob
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper

# ONNX's backend test runner tolerances (onnx/backend/test/runner/__init__.py,
# `_assert_similar_outputs` defaults).
RTOL = 1e-3
ATOL = 1e-7

# Seconds allowed for importing, compiling and running one test.
TIMEOUT = 60

# Inputs that are attributes in earlier opsets and that exported models always
# compute from constants: op type -> input positions. These are bound as
# initializers (their test values) before import.
SHAPE_INPUTS = {
    "Reshape": {1}, "Expand": {1}, "Tile": {1}, "ConstantOfShape": {0},
    "Range": {0, 1, 2}, "Slice": {1, 2, 3, 4}, "Split": {1},
    "Squeeze": {1}, "Unsqueeze": {1}, "Pad": {1, 2, 3}, "TopK": {1},
    "Resize": {1, 2, 3}, "Upsample": {1}, "OneHot": {1}, "CumSum": {1},
    "Clip": {1, 2}, "Trilu": {1}, "Dropout": {1, 2},
    # CastLike's `target_type` only gives the element type.
    "CastLike": {1},
    "ReduceSum": {1}, "ReduceMean": {1}, "ReduceMax": {1}, "ReduceMin": {1},
    "ReduceProd": {1}, "ReduceL1": {1}, "ReduceL2": {1},
    "ReduceLogSum": {1}, "ReduceLogSumExp": {1}, "ReduceSumSquare": {1},
    # Quantization parameters (scales, zero points): constants in every
    # quantized export (torch FX / QDQ), and the importer needs them.
    "QuantizeLinear": {1, 2}, "DequantizeLinear": {1, 2},
    "MatMulInteger": {2, 3}, "QLinearMatMul": {1, 2, 4, 5, 6, 7},
}

# The ops an LLM export uses. Every test whose name matches one of these
# prefixes must pass: a skip or a failure makes the run fail. (Names are
# matched as `test_<prefix>` followed by `_` or the end, so `matmul` does not
# take in `matmulinteger`.)
LLM_RELEVANT = [
    "matmul", "gemm", "softmax", "logsoftmax", "layer_normalization",
    "add", "add_bcast", "sub", "sub_bcast", "sub_example", "mul", "div", "pow",
    "sqrt", "reciprocal", "neg", "exp", "log", "erf", "tanh", "sigmoid", "relu",
    "reduce_mean", "reduce_sum", "reduce_max", "reduce_min",
    "transpose", "reshape", "squeeze", "unsqueeze", "flatten",
    "gather", "concat", "split", "slice", "expand", "cast", "where",
    "argmax", "argmin", "equal", "less", "less_equal", "greater",
    "greater_equal", "not", "and", "or", "xor", "clip", "min", "max",
    "identity", "constant", "shape", "range", "trilu", "tril", "triu",
]

# QuantizeLinear/DequantizeLinear are imported by the `quant` branch (llm
# quantize/dequantize ops); they count as LLM-relevant once that is merged:
# flip QUANT_MERGED (or set LLMC_CONFORMANCE_QUANT=1).
PENDING_QUANT = ["quantizelinear", "dequantizelinear"]
QUANT_MERGED = os.environ.get("LLMC_CONFORMANCE_QUANT", "1") == "1"

# Tests outside llmc's scope, with the reason (matched on the test name,
# first match wins). They are still run: a test matching one that passes is
# a pass, and an LLM-relevant one that is skipped does not fail the run.
OUT_OF_SCOPE = [
    (r"_(uint(8|16|32|64)|int16)$|^test_bitshift_",
     "unsigned / int16 tensors (llm has i8/i32/i64; uint8 is i8 storage for "
     "the quantized ops only)"),
    (r"^test_pow_types_(int|float$)",
     "Pow with an integer base (llm.pow is floating point)"),
    (r"^test_reduce_log_sum_exp_",
     "f64 exp/log/reductions (llm's f64 covers arithmetic, casts, "
     "comparisons and data movement)"),
    (r"STRING|^test_(strnorm|tfidfvectorizer|regex)",
     "string tensors (not used by LLMs)"),
    (r"_(opt|optional|sequence)|sequence_|^test_(optional|if_seq|if_opt|"
     r"loop1[136]|loop16_seq|identity_opt|split_to_sequence|"
     r"concat_from_sequence)", "optional/sequence types"),
    (r"^test_(if|loop\d+|scan\d*|range_.*_expanded)(_|$)",
     "control flow (If/Loop/Scan subgraphs)"),
    (r"^test_(rnn|simple_rnn|lstm|gru)_", "recurrent layers (RNN/LSTM/GRU)"),
    (r"^test_(training_dropout|batchnorm_.*training_mode|adagrad|adam|"
     r"momentum|nesterov_momentum)",
     "training (random dropout, batch statistics, optimizers)"),
    (r"^test_(bernoulli|random)", "random number generation"),
    (r"^test_(resize|upsample|maxpool|averagepool|roialign|"
     r"nonmaxsuppression|gridsample|maxunpool|lrn|convtranspose)_?",
     "image ops (resize, pools, RoiAlign, NMS, GridSample, ConvTranspose)"),
    (r"^test_(dft|stft|melweightmatrix|blackmanwindow|hammingwindow|"
     r"hannwindow)", "signal processing (DFT/STFT, windows)"),
    (r"^test_(unique|compress|nonzero|reversesequence)",
     "results whose shape depends on run-time values"),
    (r"^test_det_", "linear algebra (Det)"),
    (r"^test_(basic_convinteger|convinteger|qlinearconv)",
     "integer convolution"),
    (r"^test_castlike_.*BFLOAT16.*_expanded$",
     "ONNX 1.12 test data gives the unused `like` input shape [1], the "
     "expanded model declares [3, 4]"),
]

# In-scope ops that llmc does not support yet, with the reason: reported
# apart from the out-of-scope ones. Empty since issue 20 (TopK, GatherND,
# ScatterND, ScatterElements, Einsum on f64, DynamicQuantizeLinear and
# Acos/Asin/Atan are supported).
NOT_YET = []


def skip_reason(name, opset):
    """('out of scope' | 'not yet supported', reason) for a test, or None."""
    if known_deviation(name):
        return "out of scope", known_deviation(name)
    if 0 < opset < 7:
        return "out of scope", "opset %d (llmc imports opsets 7 to 18)" % opset
    for pattern, reason in OUT_OF_SCOPE:
        if re.search(pattern, name):
            return "out of scope", reason
    for pattern, reason in NOT_YET:
        if re.search(pattern, name):
            return "not yet supported", reason
    return None


# Failures that are intended deviations from ONNX 1.12's test data, reported
# as skips with the reason (a test matching one that passes is a pass).
KNOWN_DEVIATIONS = [
    (r"^test_cast(like)?_FLOAT_to_BFLOAT16$", "ONNX 1.12 made the expected bfloat16 "
     "values by truncating float32; llm.cast rounds to nearest even (as later "
     "ONNX releases specify)"),
]


def known_deviation(name):
    for pattern, reason in KNOWN_DEVIATIONS:
        if re.search(pattern, name):
            return reason
    return None


def declared_shape(vi):
    """The static shape a graph input/output declares, or None."""
    if not vi.type.HasField("tensor_type") or \
            not vi.type.tensor_type.HasField("shape"):
        return None
    dims = []
    for d in vi.type.tensor_type.shape.dim:
        if not d.HasField("dim_value"):
            return None
        dims.append(d.dim_value)
    return tuple(dims)


def is_llm_relevant(name, opset):
    """Whether `name` (test_xxx, a model of `opset`) is in the LLM-relevant
    list and has no stated skip reason; returns (relevant, reason)."""
    prefixes = LLM_RELEVANT + (PENDING_QUANT if QUANT_MERGED else [])
    relevant = any(re.match(r"test_%s(_|$)" % re.escape(p), name)
                   for p in prefixes)
    reason = skip_reason(name, opset)
    return relevant and reason is None, reason


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    if not t.HasField("data_type") or t.data_type == 0:
        raise ValueError("not a TensorProto")
    return t.data_type, numpy_helper.to_array(t)


def bf16_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def to_comparable(dtype, array):
    """The expected array as llmc writes it (bf16 as f32)."""
    if dtype == onnx.TensorProto.BFLOAT16:
        return bf16_to_f32(array)
    return array


def first_error(stderr):
    for line in stderr.splitlines():
        if "error:" in line:
            return line.split("error: ", 1)[-1].strip()
    lines = [l for l in stderr.splitlines() if l.strip()]
    return lines[-1].strip() if lines else "no diagnostic"


def model_opset(model):
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return 0


def run_test(args):
    """Runs one test; returns (name, status, reason, opset) with status one
    of 'pass', 'fail', 'skip'."""
    llmc, test_dir, workdir, llmc_args, compare = args
    name = os.path.basename(test_dir)
    tmp = tempfile.mkdtemp(prefix=name + ".", dir=workdir)
    opset = 0
    try:
        model = onnx.load(os.path.join(test_dir, "model.onnx"),
                          load_external_data=False)
        opset = model_opset(model)
        return ((name,) +
                _run_test(llmc, test_dir, tmp, model, llmc_args, compare) +
                (opset,))
    except Exception as e:  # noqa: BLE001 (a harness error is a failure)
        return (name, "fail", "harness error: %s: %s" % (type(e).__name__, e),
                opset)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run_test(llmc, test_dir, tmp, model, llmc_args, compare):
    inits = {t.name for t in model.graph.initializer}
    graph_inputs = [i for i in model.graph.input if i.name not in inits]
    data_sets = sorted(glob.glob(os.path.join(test_dir, "test_data_set_*")))
    if not data_sets:
        return "skip", "no test data set"
    # Attribute-like inputs, by the position of their first consumer.
    shape_like = set()
    for node in model.graph.node:
        for pos in SHAPE_INPUTS.get(node.op_type, ()):
            if pos < len(node.input) and node.input[pos]:
                shape_like.add(node.input[pos])

    for ds in data_sets:
        try:
            inputs = [load_pb(os.path.join(ds, "input_%d.pb" % i))
                      for i in range(len(graph_inputs))]
            expected = [load_pb(os.path.join(ds, "output_%d.pb" % i))
                        for i in range(len(model.graph.output))]
        except Exception:  # noqa: BLE001 (sequence/optional/missing data)
            return "skip", "non-tensor test data (sequence or optional values)"
        bound = onnx.ModelProto()
        bound.CopyFrom(model)
        runtime = []
        for vi, (_, value) in zip(graph_inputs, inputs):
            # The declared type: bfloat16 data is stored as UINT16 bits.
            dtype = vi.type.tensor_type.elem_type
            if vi.name in shape_like:
                t = onnx.TensorProto()
                t.ParseFromString(open(os.path.join(
                    ds, "input_%d.pb" % graph_inputs.index(vi)), "rb").read())
                t.name = vi.name
                if (dtype == onnx.TensorProto.BFLOAT16 and
                        t.data_type == onnx.TensorProto.UINT16):
                    # bfloat16 test data is stored as its UINT16 bits (the
                    # same int32_data/raw_data layout): retype it.
                    t.data_type = onnx.TensorProto.BFLOAT16
                bound.graph.initializer.append(t)
                for j, gi in enumerate(bound.graph.input):
                    if gi.name == vi.name:
                        del bound.graph.input[j]
                        break
            else:
                # The model is compiled for its declared static shape; data of
                # the same size (e.g. [1] for a declared scalar) is reshaped.
                want = declared_shape(vi)
                if want is not None and tuple(value.shape) != want:
                    if value.size != int(np.prod(want, dtype=np.int64)):
                        return "skip", ("test data for input '%s' has shape "
                                        "%s, the model declares %s" % (
                                            vi.name, list(value.shape),
                                            list(want)))
                    value = value.reshape(want)
                runtime.append((vi.name, dtype, value))
        onnx_path = os.path.join(tmp, "model.onnx")
        onnx.save(bound, onnx_path)

        # One `llmc run` imports, compiles and runs. The import comes first,
        # so a rejected model is never compiled; its diagnostics are located
        # at `MODEL.onnx:0:0` (the importer's location), any later error
        # (verifier, lowering, JIT, inputs) is not.
        cmd = [llmc, "run", onnx_path, "--output-dir", os.path.join(tmp, "out"),
               "--opt-level=0"] + llmc_args
        for k, (iname, dtype, value) in enumerate(runtime):
            if value.dtype.kind in "OSU":
                # Strings have no .npy form llmc reads (nor an llm type): the
                # import rejects the input first.
                continue
            path = os.path.join(tmp, "in%d.npy" % k)
            if dtype == onnx.TensorProto.BFLOAT16:
                value = bf16_to_f32(value)
            if value.dtype == np.uint8:
                # llmc holds ONNX uint8 (quantized data) in i8 storage: the
                # same bits, passed as an int8 .npy.
                value = np.asarray(value).view(np.int8)
            # (np.ascontiguousarray would turn a scalar into shape [1].)
            np.save(path, np.array(value, order="C"), allow_pickle=False)
            cmd += ["--input", "%s=%s" % (iname, path)]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return "fail", "llmc run timed out after %d s" % TIMEOUT
        if p.returncode != 0:
            if p.returncode == 1 and (onnx_path + ":0:0: error: ") in p.stderr:
                return "skip", first_error(p.stderr)
            if p.returncode == 1 and "error:" in p.stderr:
                return "fail", "llmc run: " + first_error(p.stderr)
            return "fail", "llmc run crashed (exit %d): %s" % (
                p.returncode, first_error(p.stderr))

        if not compare:
            continue
        for k, (out, (_, want)) in enumerate(
                zip(model.graph.output, expected)):
            dtype = out.type.tensor_type.elem_type
            path = os.path.join(tmp, "out", out.name + ".npy")
            if not os.path.exists(path):
                path = os.path.join(tmp, "out", "out%d.npy" % k)
            if not os.path.exists(path):
                return "fail", "output '%s' was not written" % out.name
            got = np.load(path, allow_pickle=False)
            want = to_comparable(dtype, want)
            if want.dtype == np.uint8 and got.dtype == np.int8:
                got = got.view(np.uint8)  # uint8 in i8 storage (see above)
            if got.dtype != want.dtype:
                return "fail", "output '%s': dtype %s, expected %s" % (
                    out.name, got.dtype, want.dtype)
            if got.shape != want.shape:
                return "fail", "output '%s': shape %s, expected %s" % (
                    out.name, got.shape, want.shape)
            try:
                np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
            except AssertionError as e:
                lines = [l.strip() for l in str(e).splitlines() if l.strip()]
                detail = "; ".join(l for l in lines
                                   if l.startswith(("Mismatched", "Max")))
                return "fail", "output '%s' differs (rtol %g, atol %g): %s" % (
                    out.name, RTOL, ATOL, detail)
    return "pass", ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("llmc", help="path of the llmc driver")
    ap.add_argument("--data", default="/usr/share/libonnx-testdata/data/node")
    ap.add_argument("--filter", default="", help="regex on the test name")
    ap.add_argument("--jobs", type=int, default=2, help="parallel tests")
    ap.add_argument("--workdir", default=None,
                    help="scratch directory (default: a temporary one)")
    ap.add_argument("--summary-file", default=None,
                    help="also write the summary line to this file")
    ap.add_argument("--llmc-arg", action="append", default=[],
                    help="an extra argument of each `llmc run` (e.g. "
                    "--llmc-arg=--target=cuda-emulator); repeatable")
    ap.add_argument("--no-compare", dest="compare", action="store_false",
                    help="count a test as passed when `llmc run` succeeds, "
                    "without comparing its outputs (over the fake CUDA "
                    "driver, which runs no kernel: the models compile for "
                    "the device, ptxas accepts them, they load and launch)")
    ap.add_argument("--verbose", action="store_true",
                    help="print passing tests too")
    a = ap.parse_args()

    tests = [d for d in sorted(glob.glob(os.path.join(a.data, "test_*")))
             if os.path.isfile(os.path.join(d, "model.onnx"))
             and re.search(a.filter, os.path.basename(d))]
    if not tests:
        print("error: no ONNX node tests under %s" % a.data, file=sys.stderr)
        return 2
    workdir = a.workdir or tempfile.mkdtemp(prefix="onnx-conformance.")
    os.makedirs(workdir, exist_ok=True)
    start = time.time()
    counts = {"pass": 0, "fail": 0, "skip": 0}
    relevant_bad = []
    unexplained = []
    skip_kinds = {"out of scope": 0, "not yet supported": 0}
    with multiprocessing.Pool(max(1, a.jobs)) as pool:
        for name, status, reason, opset in pool.imap(
                run_test,
                [(a.llmc, t, workdir, a.llmc_arg, a.compare) for t in tests]):
            deviation = known_deviation(name)
            if status == "fail" and deviation:
                status, reason = "skip", "known deviation: %s (%s)" % (
                    deviation, reason)
            counts[status] += 1
            relevant, stated = is_llm_relevant(name, opset)
            note = ""
            if status != "pass" and relevant:
                relevant_bad.append(name)
                note = " [LLM-relevant]"
            elif status == "skip" and stated:
                note = " [%s: %s]" % stated
                skip_kinds[stated[0]] += 1
            elif status == "skip":
                unexplained.append(name)
                note = " [no stated reason]"
            if status == "fail":
                print("FAIL %s: %s%s" % (name, reason, note))
            elif status == "skip":
                print("SKIP %s: %s%s" % (name, reason, note))
            elif a.verbose:
                print("PASS %s" % name)
            sys.stdout.flush()
    if a.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    if relevant_bad:
        print("LLM-relevant tests not passing (%d): %s" % (
            len(relevant_bad), " ".join(relevant_bad)))
    print("skipped: %d out of scope, %d not yet supported, %d without a "
          "stated reason%s" % (
              skip_kinds["out of scope"], skip_kinds["not yet supported"],
              len(unexplained),
              (": " + " ".join(unexplained)) if unexplained else ""))
    summary = "%d passed, %d failed, %d skipped" % (
        counts["pass"], counts["fail"], counts["skip"])
    print("time: %.1f s for %d tests (%d jobs)" % (
        time.time() - start, len(tests), a.jobs))
    print(summary)
    if a.summary_file:
        with open(a.summary_file, "w") as f:
            f.write("ONNX node conformance: " + summary + "\n")
    return 1 if counts["fail"] or relevant_bad else 0


if __name__ == "__main__":
    sys.exit(main())
