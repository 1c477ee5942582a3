# ===- llmc/__init__.py - The llmc Python package ------------------------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""llmc from Python: compile llm-dialect MLIR or ONNX models and run them on
numpy arrays.

    import llmc, numpy as np
    model = llmc.compile("model.onnx", threads=2)
    logits = model(input_ids=np.zeros((1, 8), np.int64))

Everything goes through the llmc C API (libLLMCAPI.so) via the `_llmc`
pybind11 extension. Errors:

* ValueError: a model that does not parse, import, verify or lower (the
  message holds the diagnostics, `file:line:col: error: ...`), bad options,
  or arguments of the wrong count, name, dtype or shape;
* FileNotFoundError: a model path that does not exist;
* IsADirectoryError: a model path that is a directory;
* RuntimeError: a failure inside the runtime while executing.
"""

import collections
import operator
import os
import re
import stat

import numpy as np

from . import _llmc

__all__ = ["calibrate", "Calibrated", "compile", "import_onnx", "run_pipeline",
           "CompiledModel", "Generator", "TensorInfo", "has_onnx_importer"]

TensorInfo = collections.namedtuple("TensorInfo",
                                    ["name", "shape", "element_type", "dtype"])
TensorInfo.__doc__ = """An input or output of a compiled model.

name: the ONNX name (the `llm.name` attribute) or argK / outK;
shape: a tuple of ints, None for the dynamic sequence dimension of a model
  compiled with a bound (`llm.dim_bounds`; any length up to the bound);
element_type: the MLIR element type, 'f32', 'f64', 'f16', 'bf16', 'i1',
  'i8', 'i32' or 'i64';
dtype: the numpy dtype of the arrays passed or returned (bf16 travels as
  float32: inputs are rounded to nearest-even, outputs widened exactly).
"""

# MLIR element type -> (LlmcElementType value, numpy dtype).
_ELEMENT_TYPES = {
    "f32": (0, np.dtype(np.float32)),
    "f64": (1, np.dtype(np.float64)),
    "f16": (2, np.dtype(np.float16)),
    "bf16": (3, np.dtype(np.float32)),
    "i1": (4, np.dtype(np.bool_)),
    "i8": (5, np.dtype(np.int8)),
    "i32": (6, np.dtype(np.int32)),
    "i64": (7, np.dtype(np.int64)),
}


def has_onnx_importer():
    """True when llmc was built with the ONNX importer (libonnx-dev)."""
    return _llmc.has_onnx_importer()


def _to_bf16_bits(array):
    """float32 -> bfloat16 bit patterns (uint16), rounding to nearest-even
    (NaNs stay quiet NaNs)."""
    # np.asarray(order="C") keeps a 0-d array 0-d (ascontiguousarray does not).
    bits = np.asarray(array, dtype=np.float32, order="C").view(np.uint32)
    rounded = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    # np.asarray: arithmetic on a 0-d array gives a numpy scalar.
    out = np.asarray((rounded >> np.uint32(16)).astype(np.uint16))
    nan = np.isnan(array)
    if nan.any():
        out[nan] = (bits[nan] >> np.uint32(16)).astype(np.uint16) | np.uint16(0x40)
    return out


def _from_bf16_bits(bits):
    """bfloat16 bit patterns (uint16) -> float32 (exact)."""
    return np.asarray(bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def _format_options(options):
    """The option text of keyword options; an option given as None takes
    its default (it is left out)."""
    return " ".join(_format_option(k, v) for k, v in options.items()
                    if v is not None)


def _format_option(key, value):
    key = key.replace("_", "-")
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (list, tuple)):
        text = ",".join(str(v) for v in value)
    else:
        text = str(value)
    if not text or any(c.isspace() for c in text):
        raise ValueError("option %s=%r: the value must be non-empty and "
                         "contain no whitespace" % (key, value))
    return "%s=%s" % (key, text)


def _format_dims(dims):
    if dims is None:
        return ""
    if isinstance(dims, str):
        return dims
    if isinstance(dims, dict):
        parts = []
        for k, v in dims.items():
            # "<=N": a bound, the dimension stays dynamic.
            if isinstance(v, str) and re.fullmatch(r"<=[0-9]+", v):
                parts.append("%s%s" % (k, v))
            elif isinstance(v, int) and not isinstance(v, bool):
                parts.append("%s=%d" % (k, v))
            else:
                raise ValueError("dims[%r] must be an int or '<=N', got %r"
                                 % (k, v))
        return ",".join(parts)
    raise ValueError("dims must be a dict {name: value or '<=bound'} or a "
                     "'NAME=VALUE,NAME<=BOUND,...' string, got %r" % (dims,))


def _is_path(model):
    """A path: an os.PathLike, or a one-line str that names something that
    exists (a file, a directory, ...) or ends in .mlir/.onnx."""
    if isinstance(model, os.PathLike):
        return True
    if not isinstance(model, str):
        raise TypeError("model must be a path (str or os.PathLike) or MLIR "
                        "text, got %s" % type(model).__name__)
    if "\n" in model or "\0" in model:
        return False
    return (os.path.splitext(model)[1] in (".mlir", ".onnx")
            or os.path.lexists(model))


def _check_model_file(path, what="model"):
    """Raises unless `path` is a regular file (or a link to one): a
    FileNotFoundError when nothing is there, an IsADirectoryError for a
    directory, a ValueError for a device, FIFO or socket."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise FileNotFoundError("cannot open %s %r: no such file"
                                % (what, path)) from None
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError("cannot open %s %r: is a directory, not a "
                                "file" % (what, path))
    if not stat.S_ISREG(st.st_mode):
        raise ValueError("cannot open %s %r: not a regular file (a device, "
                         "FIFO or socket)" % (what, path))


class CompiledModel:
    """A model compiled by `llmc.compile`; call it with numpy arrays.

    model(*arrays, **named) takes the inputs positionally (in the order of
    `inputs`) and/or by name, checks their count, dtype and shape (lists
    and scalars are converted to the expected dtype; an ndarray must have
    exactly the expected dtype), and returns the outputs as new numpy arrays:
    a single array for one output, else a tuple in the order of `outputs`.
    """

    def __init__(self, native):
        self._native = native
        self.entry = native.entry
        # "hit" (loaded from the compile cache), "miss" (compiled and
        # stored) or "off" (compiled without the cache).
        self.cache_status = native.cache_status
        self.inputs = tuple(self._info(i) for i in native.inputs)
        self.outputs = tuple(self._info(o) for o in native.outputs)

    @staticmethod
    def _info(raw):
        name, shape, element_type = raw
        # A dynamic (sequence) dimension comes as a negative size
        # (ShapedType::kDynamic) and is shown as None.
        return TensorInfo(name, tuple(None if d < 0 else d for d in shape),
                          element_type,
                          _ELEMENT_TYPES[element_type][1])

    def __repr__(self):
        def fmt(infos):
            return ", ".join("%s: %s[%s]" % (
                i.name, i.element_type,
                "x".join("?" if d is None else str(d) for d in i.shape))
                             for i in infos)
        return "<llmc.CompiledModel @%s (%s) -> (%s)>" % (
            self.entry, fmt(self.inputs), fmt(self.outputs))

    def _gather(self, args, named):
        n = len(self.inputs)
        if len(args) > n:
            raise ValueError("@%s takes %d input%s, got %d positional" % (
                self.entry, n, "" if n == 1 else "s", len(args)))
        values = list(args) + [None] * (n - len(args))
        given = [True] * len(args) + [False] * (n - len(args))
        names = [i.name for i in self.inputs]
        for key, value in named.items():
            if key not in names:
                raise ValueError("@%s has no input named %r (inputs: %s)" % (
                    self.entry, key, ", ".join(names) or "none"))
            k = names.index(key)
            if given[k]:
                raise ValueError("input %r (#%d) given twice" % (key, k))
            values[k], given[k] = value, True
        missing = [names[k] for k in range(n) if not given[k]]
        if missing:
            raise ValueError("@%s: missing input%s %s" % (
                self.entry, "" if len(missing) == 1 else "s",
                ", ".join(repr(m) for m in missing)))
        return values

    def _convert(self, k, info, value):
        what = "input %r (#%d)" % (info.name, k)
        if isinstance(value, np.ndarray):
            if value.dtype != info.dtype:
                raise ValueError("%s: expected dtype %s (%s), got %s" % (
                    what, info.dtype, info.element_type, value.dtype))
            array = value
        else:
            try:
                array = np.asarray(value, dtype=info.dtype)
            except (TypeError, ValueError) as e:
                raise ValueError("%s: cannot convert to %s: %s" % (
                    what, info.dtype, e)) from None
        # None (the sequence length) matches any size here; the native
        # side checks it against the declared bound.
        if len(array.shape) != len(info.shape) or any(
                want is not None and have != want
                for have, want in zip(array.shape, info.shape)):
            raise ValueError("%s: expected shape %s, got %s" % (
                what, info.shape, array.shape))
        if info.element_type == "bf16":
            return _to_bf16_bits(array)
        # A 0-d input stays 0-d (np.ascontiguousarray returns at least 1-d).
        return np.asarray(array, order="C")

    def __call__(self, *args, **named):
        values = self._gather(args, named)
        arrays = [self._convert(k, info, v)
                  for k, (info, v) in enumerate(zip(self.inputs, values))]
        # Every dynamic dimension is the one sequence length: the inputs'.
        seq = next((a.shape[d] for a, i in zip(arrays, self.inputs)
                    for d, want in enumerate(i.shape) if want is None), 0)
        outputs = [np.empty(tuple(seq if d is None else d for d in o.shape),
                            np.uint16 if o.element_type == "bf16"
                            else o.dtype) for o in self.outputs]
        self._native.execute(
            arrays, [_ELEMENT_TYPES[i.element_type][0] for i in self.inputs],
            outputs, [_ELEMENT_TYPES[o.element_type][0] for o in self.outputs])
        outputs = [_from_bf16_bits(a) if o.element_type == "bf16" else a
                   for o, a in zip(self.outputs, outputs)]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)


def compile(model, target="cpu", **options):
    """Compiles `model` for `target` and returns a CompiledModel.

    model: a path (str or os.PathLike) to a .mlir file (llm-dialect MLIR) or
      an .onnx file (imported first), or MLIR text: a str is a path when it
      is one line that names something that exists, or that ends in
      .mlir/.onnx; any other str is MLIR text.
    target: "cpu" (the host CPU, JIT-compiled), or a CPU target name: a
      family ("generic", "avx2", "avx512", "avx512-vnni", "avx512-bf16") or
      an x86-64 CPU LLVM knows ("znver4", "icelake-server", ...; `llmc
      --print-target=NAME` shows what it gives), compiled for it and run
      here, refused when this CPU lacks one of its ISA extensions; or
      "cuda": an NVIDIA GPU (llm-lower-to-nvvm for the device llmc's CUDA
      runtime uses; ValueError naming the reason when no driver or device
      is found; needs an llmc built with the CUDA toolkit), or
      "cuda-emulator": the same kernels run on the CPU, to check them
      (options are then llm-lower-to-nvvm's; docs/GPU.md).
    options (keyword arguments; '_' in a name stands for '-'; an option
    given as None takes its default):
      entry="main"      the entry function;
      opt_level=3       LLVM optimization level 0-3;
      no_opt=False      reference lowering (no graph optimizations, fusion,
                        vectorization or OpenMP);
      threads=N         OpenMP threads of the parallel loops (0: default;
                        CPU targets only);
      dims={...}        ONNX only: values of symbolic dimensions, by
                        dim_param name or "INPUT:INDEX"; "<=N" keeps one
                        dynamic with bound N (a symbol left out stays
                        dynamic, bounded by the model's position table);
      cache=True        use the compile cache (a model compiled before with
                        the same options is loaded, not compiled again;
                        `CompiledModel.cache_status` says which);
      cache_dir=PATH    the cache directory (default $LLMC_CACHE_DIR, else
                        $XDG_CACHE_HOME/llmc, else ~/.cache/llmc);
      any llm-lower-to-cpu option, e.g. vectorize=False, parallel=False,
      register_tile=(4, 16, 1), sparsify="auto" (pruned constant weights
      stored sparse and run by the sparse kernels; or a format such as
      "bsr16x16", docs/Sparsity.md).
    Raises ValueError with the diagnostics when the model does not parse,
    import or compile, or an option is invalid (or the path is a device or
    FIFO); FileNotFoundError for a missing path; IsADirectoryError for a
    directory.
    """
    dims = _format_dims(options.pop("dims", None))
    text = _format_options(options)
    if _is_path(model):
        path = os.fspath(model)
        _check_model_file(path)
        if dims and not path.endswith(".onnx"):
            raise ValueError("dims applies only to ONNX models")
        # Through the compile cache, keyed by the file's bytes.
        native = _llmc.CompiledModel.from_file(path, dims, target, text)
    else:
        if dims:
            raise ValueError("dims applies only to ONNX models")
        native = _llmc.CompiledModel.from_source(model, "<string>", target,
                                                 text)
    return CompiledModel(native)


class Generator:
    """Token generation with a key/value cache (docs/Generation.md).

    Generator(model, **options) compiles `model`, a path to an llm-dialect
    .mlir file whose entry follows the generation entry interface (token ids,
    positions, lengths, key/value caches marked `llm.kv_cache`) or to an ONNX
    decoder exported with its past (`past_key_values.*` inputs, `present.*`
    outputs; the past becomes the caches), and allocates its caches; `options` are those of `llmc.compile` (entry,
    threads, no_opt, cache, pipeline options). Raises ValueError when the
    model does not compile or has no decode form.

    generate(ids, max_new_tokens=32, greedy=None, temperature=1.0, top_k=0,
    top_p=1.0, seed=0, stop_id=None) runs the prompt `ids` (a sequence of
    ints) and yields the new token ids one by one as they are produced:
    greedy argmax by default, or seeded sampling when temperature, top_k or
    top_p is given. It stops after max_new_tokens, after stop_id, or when
    the sequence (prompt and new tokens) reaches `max_sequence` tokens.
    A Generator holds one sequence: calling generate() again restarts it,
    and a generator from an earlier call then raises RuntimeError.
    Non-integer ids, seeds or stop ids raise ValueError. Bad ids, an over-long prompt or
    sampling options out of range raise ValueError before anything runs.
    `logits()` returns the logits of the last position as a numpy array;
    `vocab_size`, `max_sequence` (the declared bound) and `position` (tokens
    in the cache) describe the session.
    """

    def __init__(self, model, **options):
        if not _is_path(model):
            raise ValueError("Generator takes the path of an llm-dialect .mlir model "
                             "or of an ONNX decoder exported with its past")
        path = os.fspath(model)
        _check_model_file(path)
        text = _format_options(options)
        self._native = _llmc.GenerationSession(path, text)
        self.vocab_size = self._native.vocab_size
        self.max_sequence = self._native.max_sequence
        self._epoch = 0

    @property
    def position(self):
        """Tokens in the cache."""
        return self._native.position

    def logits(self):
        return self._native.logits()

    def generate(self, ids, max_new_tokens=32, greedy=None, temperature=None,
                 top_k=None, top_p=None, seed=0, stop_id=None):
        sampled = temperature is not None or top_k is not None or top_p is not None
        if greedy and sampled:
            raise ValueError("greedy=True cannot be combined with temperature, top_k or top_p")
        max_new_tokens = _as_int(max_new_tokens, "max_new_tokens")
        if max_new_tokens < 0:
            raise ValueError(f"max_new_tokens must be >= 0, got {max_new_tokens}")
        seed = _as_int(seed, "seed")
        if not 0 <= seed < 2**64:
            raise ValueError(f"seed must be in [0, 2**64), got {seed}")
        if stop_id is not None:
            stop_id = _as_int(stop_id, "stop_id")
            if not 0 <= stop_id < self.vocab_size:
                raise ValueError(f"stop_id {stop_id} is outside the vocabulary "
                                 f"[0, {self.vocab_size})")
        prompt = [_as_int(i, "token id") for i in ids]
        for i, token in enumerate(prompt):
            if not 0 <= token < self.vocab_size:
                raise ValueError(f"token id {token} (#{i}) is outside the vocabulary "
                                 f"[0, {self.vocab_size})")
        self._native.set_sampling(not sampled, 1.0 if temperature is None else float(temperature),
                                  0 if top_k is None else _as_int(top_k, "top_k"),
                                  1.0 if top_p is None else float(top_p), seed)
        if max_new_tokens > 0 and len(prompt) == self.max_sequence:
            raise ValueError(f"the prompt has {len(prompt)} tokens, as many as the "
                             f"{self.max_sequence} positions available: no room "
                             f"for a new token")
        self._native.prefill(prompt)
        # The sequence (prompt and new tokens) holds at most max_sequence.
        count = min(max_new_tokens, self.max_sequence - len(prompt))
        # The session holds one sequence: a later generate() call restarts
        # it, and this generator then stops with an error.
        self._epoch += 1
        return self._tokens(count, stop_id, self._epoch)

    def _tokens(self, count, stop_id, epoch):
        for produced in range(count):
            if epoch != self._epoch:
                raise RuntimeError("this generation was superseded: a later generate() call "
                                   "on the same Generator restarted its session (one "
                                   "sequence at a time per Generator)")
            token = self._native.sample_next()
            if token < 0:
                raise RuntimeError("the model's logits are not finite (NaN or +inf, or all "
                                   "-inf): nothing to sample (an overflow in the model, "
                                   "e.g. in f16?)")
            yield token
            if token == stop_id or produced + 1 == count:
                return
            if epoch != self._epoch:
                raise RuntimeError("this generation was superseded: a later generate() call "
                                   "on the same Generator restarted its session (one "
                                   "sequence at a time per Generator)")
            self._native.decode(token)


class Calibrated:
    """The result of `calibrate`: `model` (the quantized llm-dialect module,
    MLIR text: give it to `compile` or write it to a .mlir file) and
    `report` (a dict: the JSON report of docs/Calibration.md)."""

    def __init__(self, model, report):
        self.model = model
        self.report = report

    def __repr__(self):
        outs = ", ".join("%s cosine %.6f" % (o["name"], o["cosine_similarity"])
                         for o in self.report.get("outputs", []))
        return "<llmc.Calibrated: %d matmuls quantized (%s), %s>" % (
            self.report.get("quantized_matmuls", 0),
            self.report.get("method", "?"), outs)


def _write_samples(inputs, directory):
    """Writes a list of samples (each a dict NAME -> array, or a sequence of
    arrays for arg0, arg1, ...) as one .npz file per sample."""
    import numpy as np
    for i, sample in enumerate(inputs):
        if isinstance(sample, dict):
            arrays = {str(k): np.asarray(v) for k, v in sample.items()}
        elif isinstance(sample, (list, tuple)):
            arrays = {"arg%d" % j: np.asarray(v) for j, v in enumerate(sample)}
        else:
            arrays = {"arg0": np.asarray(sample)}
        np.savez(os.path.join(directory, "%08d.npz" % i), **arrays)


def calibrate(model, inputs, method="entropy", percentile=None,
              per_channel_weights=False, fp8=False, bits=8, exclude=(),
              holdout=None, smooth_alpha=None, threads=None, dims=None):
    """Static INT8 (or FP8) quantization of an f32 model from sample inputs
    (docs/Calibration.md; what `llmc calibrate` does). Returns a Calibrated
    with the quantized model's MLIR text and the report.

    model: a path to a .mlir or .onnx file, or MLIR text (as for compile).
    inputs: a path (str or os.PathLike) to a .npz file or a directory of
      samples, or a list of samples, each a dict {input name: array} (names
      of the ONNX graph inputs / `llm.name`s) or a sequence of arrays (arg0,
      arg1, ...). The last quarter (at least one) is held out for the
      evaluation unless `holdout` says how many.
    method: "minmax", "percentile" (with `percentile`, default 99.99) or
      "entropy" (TensorRT's KL method).
    per_channel_weights, fp8 (bools), bits (8), exclude (globs of matmul
      names or activation keys kept in f32), smooth_alpha (SmoothQuant
      strength in (0, 1]), threads: as the llmc calibrate flags.
    Raises ValueError with the diagnostics on failure.
    """
    import json
    import tempfile
    for name, flag in (("per_channel_weights", per_channel_weights),
                       ("fp8", fp8)):
        if not isinstance(flag, bool):
            raise ValueError(f"calibrate: {name} must be True or False, got "
                             f"{flag!r}")
    if method not in ("minmax", "percentile", "entropy"):
        raise ValueError(f"calibrate: method must be \"minmax\", "
                         f"\"percentile\" or \"entropy\", got {method!r}")
    if bits != 8:
        raise ValueError(f"calibrate: bits must be 8 (llmc's integer matmuls "
                         f"are 8-bit; fp8=True for FP8), got {bits!r}")
    if percentile is not None and method != "percentile":
        raise ValueError("calibrate: percentile applies to "
                         "method=\"percentile\" only")
    items = ["method=%s" % method]
    if percentile is not None:
        items.append("percentile=%r" % float(percentile))
    items.append("per-channel-weights=%d" % per_channel_weights)
    items.append("fp8=%d" % fp8)
    if isinstance(exclude, str):
        exclude = [exclude]
    if exclude:
        items.append("exclude=" + ",".join(exclude))
    if holdout is not None:
        holdout = _as_int(holdout, "holdout")
        if holdout < 0:
            raise ValueError(f"calibrate: holdout must be >= 0, got {holdout}")
        items.append("holdout=%d" % holdout)
    if smooth_alpha is not None:
        items.append("smooth-alpha=%r" % float(smooth_alpha))
    if threads is not None:
        threads = _as_int(threads, "threads")
        if not 1 <= threads <= 1024:
            raise ValueError(f"calibrate: threads must be in [1, 1024], got "
                             f"{threads}")
        items.append("threads=%d" % threads)
    for item in items:
        if any(c.isspace() for c in item):
            raise ValueError("calibrate: option '%s' must not contain spaces"
                             % item)
    options = " ".join(items)
    dims = _format_dims(dims)
    text, source, onnx_path = "", "<string>", ""
    if _is_path(model):
        path = os.fspath(model)
        _check_model_file(path)
        if path.endswith(".onnx"):
            onnx_path = path
        else:
            if dims:
                raise ValueError("dims applies only to ONNX models")
            with open(path) as f:
                text = f.read()
            source = path
    elif dims:
        raise ValueError("dims applies only to ONNX models")
    else:
        text = model
    with tempfile.TemporaryDirectory(prefix="llmc-calibrate-") as tmp:
        if isinstance(inputs, (str, os.PathLike)):
            data = os.fspath(inputs)
        elif isinstance(inputs, dict):
            raise ValueError("calibrate: inputs must be a path or a list of "
                             "samples (each a dict of arrays), not one dict")
        else:
            _write_samples(list(inputs), tmp)
            data = tmp
        try:
            quantized, report = _llmc.calibrate(text, source, onnx_path, dims,
                                                data, options)
        except ValueError as e:
            # Name the samples, not the temporary files they travelled in.
            message = re.sub(re.escape(tmp) + r"/0*(\d+)\.npz",
                             r"sample \1", str(e))
            raise ValueError(message) from None
    return Calibrated(quantized, json.loads(report))


def _as_int(value, what):
    """An int from an int-like value (not a float): ValueError otherwise."""
    try:
        return operator.index(value)
    except TypeError:
        raise ValueError(f"{what} must be an integer, got {value!r}") from None


def import_onnx(model, dims=None):
    """Imports an ONNX model and returns the llm-dialect module as MLIR text
    (one func.func @main; graph input/output names as `llm.name`
    attributes). `model` is a path (str or os.PathLike; external data is
    read next to it) or the serialized ModelProto (bytes, e.g.
    `onnx_model.SerializeToString()`). `dims` gives symbolic dimensions (see
    compile). Raises FileNotFoundError for a missing file, IsADirectoryError
    for a directory and ValueError with the importer's diagnostics (or for a
    device or FIFO) otherwise."""
    if isinstance(model, (bytes, bytearray, memoryview)):
        return _llmc.import_onnx_buffer(bytes(model), "<bytes>",
                                        _format_dims(dims))
    path = os.fspath(model)
    _check_model_file(path, "ONNX model")
    return _llmc.import_onnx(path, _format_dims(dims))


def run_pipeline(text, pipeline):
    """Parses MLIR `text`, runs the textual pass `pipeline` (e.g.
    "llm-fold-constants,canonicalize" or "builtin.module(...)") and returns
    the resulting MLIR text. Raises ValueError with the diagnostics."""
    return _llmc.run_pipeline(text, pipeline, "<string>")
