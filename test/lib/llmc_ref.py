#===- llmc_ref.py - numpy reference semantics of the llm dialect ---------===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===----------------------------------------------------------------------===#
"""Independent numpy reference of every `llm` dialect op and of the example blocks.

Written from the op descriptions in `include/llm/Dialect/LLM/IR/LLMOps.td`
(the dialect's specification), NOT from the lowering, so that the integration
tests compare two independent implementations.

Conventions
-----------
* Floating-point ops compute in float64 and round the result to the op's
  element type with `round_to(x, dtype)` (f32, f16, or bf16). An
  implementation that computes in f32 (the spec for f16/bf16) therefore
  differs from the reference by rounding error only.
* numpy has no bfloat16: bf16 values are carried as float32 arrays whose
  values are exactly representable in bf16 (`to_bf16` rounds f32 -> bf16 with
  round-to-nearest-even through uint16 bit manipulation; `bf16_bits` /
  `from_bf16_bits` convert to and from the raw 16-bit patterns).
* Every function takes and returns numpy arrays; `dtype` arguments are one of
  "f32", "f16", "bf16" (or a numpy float dtype).
"""

import builtins
import math

import numpy as np

#===----------------------------------------------------------------------===#
# Element types
#===----------------------------------------------------------------------===#


def bf16_bits(x):
  """Rounds float values to bfloat16 (round-to-nearest-even) and returns the
  16-bit patterns as uint16. NaN stays a (quiet) NaN."""
  f = np.ascontiguousarray(np.asarray(x, dtype=np.float32))
  u = f.view(np.uint32).astype(np.uint64)
  # RNE: add 0x7FFF plus the lowest kept bit, then drop the low 16 bits.
  lsb = (u >> 16) & 1
  r = ((u + 0x7FFF + lsb) >> 16).astype(np.uint16)
  nan = np.isnan(f)
  if nan.any():
    r = np.where(nan, ((u >> 16) | 0x40).astype(np.uint16), r)
  return r


def from_bf16_bits(b):
  """uint16 bfloat16 bit patterns -> float32 values (exact)."""
  b = np.asarray(b, dtype=np.uint16)
  return (b.astype(np.uint32) << 16).view(np.float32)


def to_bf16(x):
  """Rounds to the nearest bfloat16 value (ties to even), returned as float32."""
  return from_bf16_bits(bf16_bits(x))


def norm_dtype(dtype):
  """Normalizes a dtype spelling to "f32", "f16", "bf16" or a numpy dtype."""
  if isinstance(dtype, str):
    return {"float32": "f32", "float16": "f16", "bfloat16": "bf16"}.get(dtype, dtype)
  d = np.dtype(dtype)
  if d == np.float32:
    return "f32"
  if d == np.float16:
    return "f16"
  return d


def round_to(x, dtype="f32"):
  """Rounds float64 values to `dtype`: float32 / float16 arrays for f32/f16,
  bf16-representable float32 arrays for bf16."""
  dtype = norm_dtype(dtype)
  x = np.asarray(x, dtype=np.float64)
  if dtype == "f64" or (not isinstance(dtype, str) and dtype == np.float64):
    return x
  if dtype == "f32":
    return x.astype(np.float32)
  if dtype == "f16":
    return x.astype(np.float16)
  if dtype == "bf16":
    # Round f64 -> f32 -> bf16: a double rounding, harmless at the tolerances
    # used (it can differ from direct f64 -> bf16 rounding only on exact ties
    # created by the first rounding).
    return to_bf16(x.astype(np.float32))
  raise ValueError(f"unsupported float dtype {dtype}")


def dtype_of(x):
  """The llm element type name of a float array ("f16", "f32" or "f64"; bf16
  arrays are float32 and must be named explicitly)."""
  d = np.asarray(x).dtype
  return "f16" if d == np.float16 else "f64" if d == np.float64 else "f32"


def _f64(x):
  return np.asarray(x, dtype=np.float64)


#===----------------------------------------------------------------------===#
# Constants, elementwise binary and unary ops
#===----------------------------------------------------------------------===#


def constant(value, dtype="f32"):
  """llm.constant: the attribute's value."""
  return round_to(value, dtype)


def _is_int(x):
  return np.asarray(x).dtype.kind in "iu"


def _int_elementwise(fn, a, b):
  """`fn` on Python ints (exact), wrapped to the operands' integer type."""
  a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
  bits = a.dtype.itemsize * 8
  half = 1 << (bits - 1)
  out = [((fn(int(x), int(y)) + half) % (2 * half)) - half
         for x, y in zip(a.ravel(), b.ravel())]
  return np.array(out, dtype=a.dtype).reshape(a.shape)


def _trunc_div(x, y):
  """Integer llm.div: truncated toward zero; x / 0 = 0 (as numpy)."""
  if y == 0:
    return 0
  # (builtins.abs: this module's `abs` is llm.abs.)
  q = builtins.abs(x) // builtins.abs(y)
  return -q if (x < 0) != (y < 0) else q


def _int_div(a, b):
  return _int_elementwise(_trunc_div, a, b)


def _int_rem(a, b):
  """Integer llm.rem: x - y * trunc(x / y), the sign of x; x rem 0 = 0."""
  return _int_elementwise(
      lambda x, y: 0 if y == 0 else x - y * _trunc_div(x, y), a, b)


_INT_BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply,
    "_div": _int_div, "_rem": _int_rem, "maximum": np.maximum,
    "minimum": np.minimum,
}


def _binary(fn):
  def op(lhs, rhs, dtype=None):
    if _is_int(lhs):
      # Integers: in their own type, wrapping (numpy's integer arithmetic).
      with np.errstate(all="ignore"):
        return _INT_BINARY[fn.__name__](np.asarray(lhs), np.asarray(rhs))
    dtype = dtype or dtype_of(lhs)
    return round_to(fn(_f64(lhs), _f64(rhs)), dtype)
  op.__doc__ = f"llm binary op with numpy broadcasting ({fn.__name__})."
  return op


def _pow(a, b):
  with np.errstate(all="ignore"):
    return np.power(a, b)


def _div(a, b):
  with np.errstate(all="ignore"):
    return a / b


def _rem(a, b):
  with np.errstate(all="ignore"):
    return np.fmod(a, b)


add = _binary(np.add)
sub = _binary(np.subtract)
mul = _binary(np.multiply)
div = _binary(_div)
rem = _binary(_rem)
pow = _binary(_pow)  # noqa: A001 (mirrors the op name llm.pow)
# np.maximum/np.minimum propagate NaN like arith.maximumf/minimumf.
max = _binary(np.maximum)  # noqa: A001
min = _binary(np.minimum)  # noqa: A001

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _unary(fn, name):
  def op(x, dtype=None):
    if _is_int(x) and name in ("neg", "abs"):
      # Two's complement: neg/abs of INT_MIN is INT_MIN.
      with np.errstate(all="ignore"):
        return fn(np.asarray(x))
    dtype = dtype or dtype_of(x)
    with np.errstate(all="ignore"):
      return round_to(fn(_f64(x)), dtype)
  op.__name__ = name
  op.__doc__ = f"llm.{name}, elementwise."
  return op


def _sigmoid(x):
  return 1.0 / (1.0 + np.exp(-x))


neg = _unary(np.negative, "neg")
exp = _unary(np.exp, "exp")
log = _unary(np.log, "log")
tanh = _unary(np.tanh, "tanh")
erf = _unary(_erf, "erf")
sqrt = _unary(np.sqrt, "sqrt")
rsqrt = _unary(lambda x: 1.0 / np.sqrt(x), "rsqrt")
reciprocal = _unary(lambda x: 1.0 / x, "reciprocal")
sigmoid = _unary(_sigmoid, "sigmoid")
relu = _unary(lambda x: np.maximum(x, 0.0), "relu")
silu = _unary(lambda x: x * _sigmoid(x), "silu")
abs = _unary(np.abs, "abs")
floor = _unary(np.floor, "floor")
ceil = _unary(np.ceil, "ceil")
round = _unary(np.round, "round")  # halves to even
sin = _unary(np.sin, "sin")
cos = _unary(np.cos, "cos")
acos = _unary(np.arccos, "acos")
asin = _unary(np.arcsin, "asin")
atan = _unary(np.arctan, "atan")


def gelu(x, approximate="none", dtype=None):
  """llm.gelu: erf form (default) or the tanh approximation (GPT-2)."""
  dtype = dtype or dtype_of(x)
  x = _f64(x)
  if approximate == "tanh":
    y = 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
  elif approximate == "none":
    y = 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))
  else:
    raise ValueError(approximate)
  return round_to(y, dtype)


#===----------------------------------------------------------------------===#
# Matmul, softmax, normalizations
#===----------------------------------------------------------------------===#


def matmul(lhs, rhs, transpose_a=False, transpose_b=False, dtype=None):
  """llm.matmul: numpy.matmul of rank >= 2 operands, batch dims broadcast,
  optional swap of the last two dims of either operand."""
  dtype = dtype or dtype_of(lhs)
  a, b = _f64(lhs), _f64(rhs)
  assert a.ndim >= 2 and b.ndim >= 2, "llm.matmul needs rank >= 2"
  if transpose_a:
    a = np.swapaxes(a, -1, -2)
  if transpose_b:
    b = np.swapaxes(b, -1, -2)
  return round_to(np.matmul(a, b), dtype)


def _softmax64(x, axis):
  m = np.max(x, axis=axis, keepdims=True)
  e = np.exp(x - m)
  return e / np.sum(e, axis=axis, keepdims=True)


def softmax(x, axis=-1, dtype=None):
  """llm.softmax along `axis` (ONNX opset 13)."""
  dtype = dtype or dtype_of(x)
  return round_to(_softmax64(_f64(x), axis), dtype)


def layer_norm(x, scale=None, bias=None, axis=-1, epsilon=1e-5, dtype=None):
  """llm.layer_norm over dims [axis, rank): biased variance, epsilon added to
  the variance, then `* scale + bias` (both optional, broadcast to
  x.shape[axis:])."""
  dtype = dtype or dtype_of(x)
  x = _f64(x)
  axis = axis % x.ndim
  axes = tuple(range(axis, x.ndim))
  mean = x.mean(axis=axes, keepdims=True)
  var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
  # epsilon is an f32 attribute.
  y = (x - mean) / np.sqrt(var + float(np.float32(epsilon)))
  if scale is not None:
    y = y * _f64(scale)
  if bias is not None:
    y = y + _f64(bias)
  return round_to(y, dtype)


def rms_norm(x, weight=None, epsilon=1e-6, dtype=None):
  """llm.rms_norm over the last dim: x / sqrt(mean(x^2) + eps) * weight."""
  dtype = dtype or dtype_of(x)
  x = _f64(x)
  y = x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + float(np.float32(epsilon)))
  if weight is not None:
    y = y * _f64(weight)
  return round_to(y, dtype)


#===----------------------------------------------------------------------===#
# RoPE and attention
#===----------------------------------------------------------------------===#


def rope_angles(positions, d, theta=10000.0):
  """The f32 rotation angles `p * theta^(-2i/D)` of llm.rope, shape
  positions.shape + [D/2]. The spec computes angles in f32, so this rounds
  inv_freq and the product to f32 as an f32 implementation would."""
  i = np.arange(d // 2, dtype=np.float64)
  inv_freq = np.power(float(np.float32(theta)), -2.0 * i / d).astype(np.float32)
  p = np.asarray(positions).astype(np.float32)
  return (p[..., None] * inv_freq).astype(np.float32)


def rope(x, positions, mode="rotate_half", theta=10000.0, dtype=None,
         rotary_dims=None):
  """llm.rope: rotates feature pairs (x[i], x[i+D/2]) (rotate_half) or
  (x[2i], x[2i+1]) (interleaved) by angle p * theta^(-2i/D);
  (u, v) -> (u cos a - v sin a, v cos a + u sin a). With `rotary_dims` R,
  the same on x[..., :R] (D = R) and x[..., R:] passed through."""
  dtype = dtype or dtype_of(x)
  if rotary_dims is not None:
    x = _f64(x)
    rotated = rope(x[..., :rotary_dims], positions, mode, theta,
                   dtype=np.float64)
    return round_to(np.concatenate([rotated, x[..., rotary_dims:]], axis=-1),
                    dtype)
  x = _f64(x)
  d = x.shape[-1]
  assert d % 2 == 0, "llm.rope needs an even last dim"
  pos = np.broadcast_to(np.asarray(positions), x.shape[:-1])
  a = _f64(rope_angles(pos, d, theta))
  c, s = np.cos(a), np.sin(a)
  if mode == "rotate_half":
    u, v = x[..., : d // 2], x[..., d // 2:]
  elif mode == "interleaved":
    u, v = x[..., 0::2], x[..., 1::2]
  else:
    raise ValueError(mode)
  ru, rv = u * c - v * s, v * c + u * s
  y = np.empty_like(x)
  if mode == "rotate_half":
    y[..., : d // 2], y[..., d // 2:] = ru, rv
  else:
    y[..., 0::2], y[..., 1::2] = ru, rv
  return round_to(y, dtype)


def attention(query, key, value, mask=None, causal=False, scale=None, dtype=None,
              kv_length=None, layout="bhsd", excluded_score=None, softcap=None):
  """llm.attention: softmax(scale * Q K^T + mask) V with grouped-query heads
  (query head h reads kv head h // (Hq / Hkv)), an optional float (added) or
  bool (keep where true) mask broadcast to [B, Hq, Sq, Skv], and an optional
  causal rule j <= i + (L - Sq). `kv_length` L (a scalar or 0-d array,
  clamped to [0, Skv]; default Skv) keeps only the positions j < L. Excluded
  positions get weight 0; a row whose positions are all excluded yields 0.
  `excluded_score` e (with a bool mask): the positions the mask excludes
  score e (an f32 value) instead of being excluded. `softcap` c caps the
  scaled scores before the mask: c * tanh(s / c) (Gemma 2's logit
  soft-capping).
  layout="bshd": query, key, value and the result are [B, S, H, D]."""
  if layout == "bshd":
    out = attention(np.swapaxes(np.asarray(query), 1, 2), np.swapaxes(np.asarray(key), 1, 2),
                    np.swapaxes(np.asarray(value), 1, 2), mask, causal, scale, dtype,
                    kv_length, excluded_score=excluded_score,
                    softcap=softcap)
    return np.ascontiguousarray(np.swapaxes(out, 1, 2))
  assert layout == "bhsd"
  dtype = dtype or dtype_of(query)
  q, k, v = _f64(query), _f64(key), _f64(value)
  assert q.ndim == k.ndim == v.ndim == 4
  b, hq, sq, d = q.shape
  hkv, skv = k.shape[1], k.shape[2]
  assert hq % hkv == 0
  group = hq // hkv
  k = np.repeat(k, group, axis=1)
  v = np.repeat(v, group, axis=1)
  if scale is None:
    scale = 1.0 / math.sqrt(d)
  else:
    scale = float(np.float32(scale))  # an f32 attribute
  s = scale * np.matmul(q, np.swapaxes(k, -1, -2))
  if softcap is not None:
    c = float(np.float32(softcap))  # an f32 attribute
    s = c * np.tanh(s / c)
  keep = np.ones(s.shape, dtype=bool)
  if mask is not None:
    mask = np.asarray(mask)
    if mask.dtype == np.bool_ and excluded_score is not None:
      s = np.where(np.broadcast_to(mask, s.shape), s,
                   float(np.float32(excluded_score)))
    elif mask.dtype == np.bool_:
      keep &= np.broadcast_to(mask, s.shape)
    else:
      s = s + np.broadcast_to(_f64(mask), s.shape)
  length = skv
  if kv_length is not None:
    length = min(max(int(np.asarray(kv_length)), 0), skv)
    keep &= np.broadcast_to(np.arange(skv)[None, :] < length, s.shape)
  if causal:
    i = np.arange(sq)[:, None]
    j = np.arange(skv)[None, :]
    keep &= np.broadcast_to(j <= i + (length - sq), s.shape)
  s = np.where(keep, s, -np.inf)
  m = np.max(s, axis=-1, keepdims=True)
  any_kept = np.isfinite(m)
  e = np.where(keep, np.exp(s - np.where(any_kept, m, 0.0)), 0.0)
  den = e.sum(axis=-1, keepdims=True)
  p = np.where(any_kept, e / np.where(den == 0, 1.0, den), 0.0)
  return round_to(np.matmul(p, v), dtype)


#===----------------------------------------------------------------------===#
# Embedding and data movement
#===----------------------------------------------------------------------===#


def embedding(table, ids):
  """llm.embedding: table[ids] with negative ids counted from the end; an
  id outside [-V, V) is a run-time error (ValueError here)."""
  table = np.asarray(table)
  assert table.ndim == 2
  vocab = table.shape[0]
  ids = np.asarray(ids).astype(np.int64)
  if ((ids < -vocab) | (ids >= vocab)).any():
    raise ValueError("embedding: id out of range [-%d, %d)" % (vocab, vocab))
  ids = np.where(ids < 0, ids + vocab, ids)
  return table[ids]


def transpose(x, permutation):
  """llm.transpose: numpy.transpose."""
  return np.ascontiguousarray(np.transpose(np.asarray(x), permutation))


def reshape(x, shape):
  """llm.reshape: row-major reshape."""
  return np.reshape(np.asarray(x), shape)


def concat(inputs, axis):
  """llm.concat along `axis` (negative counts from the end)."""
  return np.concatenate([np.asarray(i) for i in inputs], axis=axis)


def slice(x, starts, limits, strides):  # noqa: A001 (mirrors llm.slice)
  """llm.slice: input[starts:limits:strides] per dimension."""
  idx = tuple(builtins.slice(s, l, t) for s, l, t in zip(starts, limits, strides))
  return np.ascontiguousarray(np.asarray(x)[idx])


def broadcast_to(x, shape):
  """llm.broadcast_to: numpy.broadcast_to (materialized)."""
  return np.ascontiguousarray(np.broadcast_to(np.asarray(x), shape))


def _reduce(fn, name):
  def op(x, axes, keepdims=False, dtype=None):
    axes = tuple(a % np.ndim(x) for a in axes)
    if _is_int(x):
      # Integers in their own type: sums and products wrap modulo 2^bits.
      x = np.asarray(x)
      if not axes:
        return x
      wrap = {"dtype": x.dtype} if fn in (np.sum, np.prod) else {}
      return np.asarray(fn(x, axis=axes, keepdims=keepdims, **wrap))
    dtype = dtype or dtype_of(x)
    x = _f64(x)
    if not axes:
      return round_to(x, dtype)
    return round_to(fn(x, axis=axes, keepdims=keepdims), dtype)
  op.__name__ = name
  op.__doc__ = (f"llm.{name} over `axes`, optionally keeping them as size 1 "
                "(integers in their own type, wrapping).")
  return op


reduce_sum = _reduce(np.sum, "reduce_sum")
reduce_mean = _reduce(np.mean, "reduce_mean")
reduce_max = _reduce(np.max, "reduce_max")
reduce_min = _reduce(np.min, "reduce_min")
reduce_prod = _reduce(np.prod, "reduce_prod")

#===----------------------------------------------------------------------===#
# Runtime data: comparisons, logical ops, select, gather, reverse,
# log-softmax, arg-reductions
#===----------------------------------------------------------------------===#

_PREDICATES = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
}


def compare(predicate, lhs, rhs):
  """llm.compare: numpy comparison with broadcasting (bool result; NaN
  compares unequal, so only `ne` is true for it)."""
  return _PREDICATES[predicate](np.asarray(lhs), np.asarray(rhs))


def logical_and(lhs, rhs):
  """llm.logical_and on bool arrays (broadcasting)."""
  return np.logical_and(lhs, rhs)


def logical_or(lhs, rhs):
  """llm.logical_or on bool arrays (broadcasting)."""
  return np.logical_or(lhs, rhs)


def logical_xor(lhs, rhs):
  """llm.logical_xor on bool arrays (broadcasting)."""
  return np.logical_xor(lhs, rhs)


def logical_not(x):
  """llm.logical_not on a bool array."""
  return np.logical_not(x)


def select(condition, true_value, false_value):
  """llm.select: numpy.where with broadcasting of all three operands."""
  return np.where(np.asarray(condition, dtype=bool), true_value, false_value)


def _wrap_indices(indices, n, op):
  """Indices of a dimension of size n, negative ones counted from the end;
  one outside [-n, n) is a run-time error (ValueError naming `op`)."""
  idx = np.asarray(indices).astype(np.int64)
  if ((idx < -n) | (idx >= n)).any():
    raise ValueError("%s: index out of range [-%d, %d)" % (op, n, n))
  return np.where(idx < 0, idx + n, idx)


def gather(x, indices, axis=0):
  """llm.gather: numpy.take along `axis`; negative indices count from the
  end; an index outside [-n, n) is a run-time error (ValueError here)."""
  x = np.asarray(x)
  axis = axis % x.ndim
  idx = _wrap_indices(indices, x.shape[axis], "gather")
  return np.take(x, idx, axis=axis)


def gather_elements(x, indices, axis=0):
  """llm.gather_elements: numpy.take_along_axis; negative indices count from
  the end; an index outside [-n, n) is a run-time error (ValueError)."""
  x = np.asarray(x)
  axis = axis % x.ndim
  idx = _wrap_indices(indices, x.shape[axis], "gather_elements")
  # Other dimensions of the indices may be shorter than the input's.
  for d, s in enumerate(idx.shape):
    if d != axis:
      x = np.take(x, np.arange(s), axis=d)
  return np.take_along_axis(x, idx, axis=axis)


def gather_nd(x, indices, batch_dims=0):
  """llm.gather_nd: ONNX GatherND (its reference loop); negative index
  components count from the end; one outside [-n, n) is a run-time error
  (ValueError)."""
  x, indices = np.asarray(x), np.asarray(indices)
  b, m = batch_dims, indices.shape[-1]
  for j in range(m):
    indices = indices.copy()
    indices[..., j] = _wrap_indices(indices[..., j], x.shape[b + j],
                                    "gather_nd")
  out_shape = indices.shape[:-1] + x.shape[b + m:]
  out = np.empty(out_shape, dtype=x.dtype)
  for u in np.ndindex(*indices.shape[:-1]):
    out[u] = x[tuple(u[:b]) + tuple(int(k) for k in indices[u])]
  return out


_SCATTER_COMBINE = {
    "none": lambda cur, u: u,
    "add": lambda cur, u: cur + u,
    "mul": lambda cur, u: cur * u,
    "max": np.maximum,
    "min": np.minimum,
}


def scatter_nd(x, indices, updates, reduction="none"):
  """llm.scatter_nd: ONNX ScatterND, updates applied in row-major order
  (repeated index tuples: the last wins with "none", accumulate otherwise);
  negative components count from the end; out of range is a ValueError."""
  out = np.array(x, copy=True)
  indices, updates = np.asarray(indices), np.asarray(updates)
  m = indices.shape[-1]
  fn = _SCATTER_COMBINE[reduction]
  for j in range(m):
    indices = indices.copy()
    indices[..., j] = _wrap_indices(indices[..., j], out.shape[j],
                                    "scatter_nd")
  with np.errstate(all="ignore"):
    for u in np.ndindex(*indices.shape[:-1]):
      at = tuple(int(k) for k in indices[u])
      out[at] = fn(out[at], updates[u])
  return out


def scatter_elements(x, indices, updates, axis=0, reduction="none"):
  """llm.scatter_elements: ONNX ScatterElements (row-major order, combine as
  in scatter_nd); negative indices count from the end."""
  out = np.array(x, copy=True)
  axis = axis % out.ndim
  idx = _wrap_indices(indices, out.shape[axis], "scatter_elements")
  updates = np.asarray(updates)
  fn = _SCATTER_COMBINE[reduction]
  with np.errstate(all="ignore"):
    for u in np.ndindex(*idx.shape):
      at = list(u)
      at[axis] = int(idx[u])
      at = tuple(at)
      out[at] = fn(out[at], updates[u])
  return out


def topk(x, k, axis=-1, largest=True):
  """llm.topk: (values, int64 indices) of the k largest (smallest) along
  `axis`, sorted, ties by the lower index, NaN larger than every number."""
  x = np.asarray(x)
  axis = axis % x.ndim
  xs = np.moveaxis(x, axis, -1)
  key = _f64(xs)
  # A stable sort keeps the lower index first among ties; NaN sorts last in
  # ascending order (numpy), i.e. it is the largest.
  if largest:
    nan = np.isnan(key)
    order = np.argsort(np.where(nan, -np.inf, -key), axis=-1, kind="stable")
    # NaNs first: a stable partition of the order by NaN-ness.
    nan_sorted = np.take_along_axis(nan, order, axis=-1)
    order = np.take_along_axis(order, np.argsort(~nan_sorted, axis=-1,
                                                 kind="stable"), axis=-1)
  else:
    order = np.argsort(key, axis=-1, kind="stable")
  idx = order[..., :k].astype(np.int64)
  vals = np.take_along_axis(xs, idx, axis=-1)
  return (np.moveaxis(vals, -1, axis).copy(), np.moveaxis(idx, -1, axis).copy())


def dynamic_quantize(x):
  """llm.dynamic_quantize: ONNX DynamicQuantizeLinear in f32 (scale, zero
  point and result; uint8 values returned as uint8 arrays)."""
  x = np.asarray(x, dtype=np.float32)
  lo = np.float32(min(0.0, np.nanmin(x) if x.size else 0.0))
  hi = np.float32(max(0.0, np.nanmax(x) if x.size else 0.0))
  scale = np.float32((hi - lo) / np.float32(255))
  with np.errstate(all="ignore"):
    zp = np.nan_to_num(np.clip(np.rint(np.float32(0) - lo / scale), 0, 255))
    q = np.nan_to_num(np.clip(np.rint(x / scale) + zp, 0, 255))
  return q.astype(np.uint8), np.float32(scale), np.uint8(zp)


def reverse(x, dimensions):
  """llm.reverse: numpy.flip over `dimensions`."""
  return np.ascontiguousarray(np.flip(np.asarray(x), axis=tuple(dimensions)))


def log_softmax(x, axis=-1, dtype=None):
  """llm.log_softmax: x - max - log(sum(exp(x - max))) along `axis`."""
  dtype = dtype or dtype_of(x)
  x = _f64(x)
  m = np.max(x, axis=axis, keepdims=True)
  s = np.sum(np.exp(x - m), axis=axis, keepdims=True)
  return round_to(x - m - np.log(s), dtype)


def _arg_reduce(fn, name):
  def op(x, axis=0, keepdims=True, select_last_index=False):
    x = np.asarray(x) if _is_int(x) else _f64(x)  # int64 exact
    axis = axis % x.ndim
    if select_last_index:
      flipped = np.flip(x, axis=axis)
      r = x.shape[axis] - 1 - fn(flipped, axis=axis)
    else:
      r = fn(x, axis=axis)
    r = np.asarray(r, dtype=np.int64)
    return np.expand_dims(r, axis) if keepdims else r
  op.__name__ = name
  op.__doc__ = (f"llm.{name}: index (int64) along `axis`, first among equal "
                "values or the last with `select_last_index`; NaNs ignored.")
  return op


argmax = _arg_reduce(np.nanargmax, "argmax")
argmin = _arg_reduce(np.nanargmin, "argmin")

_INT_RANGES = {
    "i8": (np.int8, -(2**7), 2**7 - 1),
    "i32": (np.int32, -(2**31), 2**31 - 1),
    "i64": (np.int64, -(2**63), 2**63 - 1),
}


def cast(x, to):
  """llm.cast to `to` in {"f32", "f16", "bf16", "f64", "i1", "i8", "i32",
  "i64"}:
  float->float rounds to nearest even; float->int truncates toward zero and
  saturates (llmc's choice); int->float rounds to nearest; ->i1 is x != 0."""
  x = np.asarray(x)
  if to == "i1":
    return x != 0
  if to == "f64":
    return x.astype(np.float64)
  if to in ("f32", "f16", "bf16"):
    if x.dtype == np.bool_:
      x = x.astype(np.float64)
    if x.dtype.kind in "iu":
      # Integer -> float: one rounding to nearest, via exact Python ints.
      return round_to(np.array([float(int(v)) for v in x.ravel()]).reshape(x.shape)
                      if to != "f32" else x.astype(np.float32), to)
    if to == "f32":
      return x.astype(np.float32)
    if to == "f16":
      with np.errstate(over="ignore"):  # out of f16 range -> +-inf, as intended
        return x.astype(np.float32).astype(np.float16)
    return to_bf16(x.astype(np.float32))
  npty, lo, hi = _INT_RANGES[to]
  if x.dtype.kind == "f":
    t = np.trunc(_f64(x))
    t = np.clip(t, lo, hi)
    if to == "i64":
      # float64 cannot hold 2^63 - 1; saturate explicitly.
      out = np.where(t >= 2.0**63, hi, np.where(t <= -(2.0**63), lo, 0))
      mid = (t > -(2.0**63)) & (t < 2.0**63)
      out = out.astype(np.int64)
      out[mid] = t[mid].astype(np.int64)
      return out
    return t.astype(npty)
  if x.dtype == np.bool_:
    return x.astype(npty)
  # Integer -> narrower integer: ONNX Cast wraps (two's complement).
  return x.astype(npty)


#===----------------------------------------------------------------------===#
# Example blocks (the graphs in examples/, same op order)
#===----------------------------------------------------------------------===#


def _heads(x, n):
  """[B, S, n*hd] -> [B, n, S, hd]."""
  b, s, d = x.shape
  return np.transpose(x.reshape(b, s, n, d // n), (0, 2, 1, 3))


def _merge(x):
  """[B, n, S, hd] -> [B, S, n*hd]."""
  b, n, s, hd = x.shape
  return np.transpose(x, (0, 2, 1, 3)).reshape(b, s, n * hd)


def gpt2_block(x, w, heads, prefix="", eps=1e-5):
  """A GPT-2 transformer block in float64 (pre-LN, causal self-attention,
  tanh-GELU MLP). `w` maps names (with `prefix`) to weights: ln1_g ln1_b
  w_qkv [d, 3d] b_qkv w_proj [d, d] b_proj ln2_g ln2_b w_fc [d, 4d] b_fc
  w_out [4d, d] b_out."""
  g = lambda n: _f64(w[prefix + n])
  x = _f64(x)
  d = x.shape[-1]
  h = _f64(layer_norm(x, g("ln1_g"), g("ln1_b"), epsilon=eps, dtype=np.float64))
  qkv = h @ g("w_qkv") + g("b_qkv")
  q, k, v = qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:]
  a = attention(_heads(q, heads), _heads(k, heads), _heads(v, heads), causal=True,
                dtype=np.float64)
  x = x + (_merge(_f64(a)) @ g("w_proj") + g("b_proj"))
  h = _f64(layer_norm(x, g("ln2_g"), g("ln2_b"), epsilon=eps, dtype=np.float64))
  m = _f64(gelu(h @ g("w_fc") + g("b_fc"), "tanh", dtype=np.float64))
  return x + (m @ g("w_out") + g("b_out"))


def gpt2_model(ids, w, heads, layers, eps=1e-5):
  """Small GPT-2: wte/wpe embeddings, `layers` blocks (prefix "h{i}_"),
  final LN, tied lm_head (logits = h @ wte^T). ids: [B, S] ints."""
  ids = np.asarray(ids)
  s = ids.shape[-1]
  x = _f64(embedding(w["wte"], ids)) + _f64(embedding(w["wpe"], np.arange(s)))[None]
  for i in range(layers):
    x = gpt2_block(x, w, heads, prefix=f"h{i}_", eps=eps)
  x = _f64(layer_norm(x, w["lnf_g"], w["lnf_b"], epsilon=eps, dtype=np.float64))
  return x @ _f64(w["wte"]).T


def llama_block(x, positions, w, heads, kv_heads, eps=1e-6, theta=10000.0,
                mode="rotate_half"):
  """A LLaMA transformer block in float64: RMSNorm, q/k/v projections (no
  bias) with kv_heads < heads (GQA), RoPE on q and k, causal attention,
  o-proj, residual, RMSNorm, SwiGLU MLP down(silu(gate(h)) * up(h)),
  residual. `w`: attn_norm wq [d, d] wk [d, kv*hd] wv wo [d, d] mlp_norm
  w_gate [d, f] w_up [d, f] w_down [f, d]."""
  g = lambda n: _f64(w[n])
  x = _f64(x)
  h = _f64(rms_norm(x, g("attn_norm"), epsilon=eps, dtype=np.float64))
  q = _heads(h @ g("wq"), heads)
  k = _heads(h @ g("wk"), kv_heads)
  v = _heads(h @ g("wv"), kv_heads)
  q = _f64(rope(q, positions, mode, theta, dtype=np.float64))
  k = _f64(rope(k, positions, mode, theta, dtype=np.float64))
  a = _f64(attention(q, k, v, causal=True, dtype=np.float64))
  x = x + _merge(a) @ g("wo")
  h = _f64(rms_norm(x, g("mlp_norm"), epsilon=eps, dtype=np.float64))
  gate = h @ g("w_gate")
  up = h @ g("w_up")
  return x + (gate / (1.0 + np.exp(-gate)) * up) @ g("w_down")
