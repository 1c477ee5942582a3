# Reference values for llm-fold-constants.mlir, computed with numpy in float64
# and rounded once to the element type. Reads the pass output (split-input-file
# modules) on stdin and checks, for each function listed below, that every
# expected array appears as an `llm.constant dense<...>` of that function,
# bit for bit. Exits non-zero on any mismatch.

import math
import re
import sys

import numpy as np

f32, f16 = np.float32, np.float16

A = np.array([[1, 2, 3], [4, 5, 6]], np.float64)


def gelu_tanh(x):
    c = math.sqrt(2 / math.pi)
    return 0.5 * x * (1 + np.tanh(c * (x + 0.044715 * x**3)))


def softmax(x, axis):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def layer_norm(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def rms_norm(x, w, eps):
    return x / np.sqrt((x**2).mean(-1, keepdims=True) + eps) * w


def rope(x, pos, theta, interleaved):
    # Angles in f32 as llm.rope specifies; cos/sin and products in float64.
    d = x.shape[-1]
    out = np.zeros_like(x)
    for r in range(x.shape[0]):
        for i in range(d // 2):
            inv = np.power(f32(theta), f32(-2.0) * f32(i) / f32(d))
            ang = float(f32(f32(pos[r]) * inv))
            cs, sn = math.cos(ang), math.sin(ang)
            iu, iv = (2 * i, 2 * i + 1) if interleaved else (i, i + d // 2)
            u, v = x[r, iu], x[r, iv]
            out[r, iu] = u * cs - v * sn
            out[r, iv] = v * cs + u * sn
    return out


def embedding(table, ids):
    # ids in [-V, V) (an id outside is a run-time error and is not folded).
    v = table.shape[0]
    assert ((ids >= -v) & (ids < v)).all()
    return table[np.where(ids < 0, ids + v, ids)]


X = np.array([[1, 2, 3, 4], [2, 2, 2, 2]], np.float64)
XR = np.array([[1, 2, 3, 4], [1, 2, 3, 4]], np.float64)
EPS5, EPS6 = float(f32(1e-5)), float(f32(1e-6))

with np.errstate(over="ignore"):  # 65520 overflows f16 on purpose.
    _f16_cast = np.array([0.1, 65520.0, 1e-8, 3.14159]).astype(f32).astype(f16)

EXPECTED = {
    "elementwise": [
        (A * np.array([0.5, -1, 2])).astype(f32),
        gelu_tanh(np.array([0.5, -1, 2])).astype(f32),
        np.exp(np.array([0.1, 1, 3], f16).astype(np.float64)).astype(f16),
        np.power([4.0, -8.0], [0.5, 3.0]).astype(f32),
    ],
    "matmul": [(A @ np.array([[1, 0], [0, 1], [1, 1]])).astype(f32)],
    "movement": [
        A.T.astype(f32),
        np.arange(12.0).reshape(3, 4)[0:3:2, 1:4:2].astype(f32),
        np.concatenate([A, [[7, 8, 9]]], 0).astype(f32),
        A.reshape(3, 2).astype(f32),
    ],
    "reductions": [
        A.sum(1).astype(f32),
        A.mean(0, keepdims=True).astype(f32),
        np.array(A.max()).astype(f32),
        softmax(np.array([[1.0, 2, 3], [0, 0, 0]]), 1).astype(f32),
    ],
    "norms": [
        layer_norm(X, [1, 2, 1, 2], [0.5, 0, 0, 0], EPS5).astype(f32),
        rms_norm(X, [1, 0.5, 2, 1], EPS6).astype(f32),
    ],
    "rope_embedding": [
        rope(XR, [0, 3], 10000.0, False).astype(f32),
        rope(XR, [0, 3], 10000.0, True).astype(f32),
        embedding(np.array([[1.0, 2], [3, 4], [5, 6]]),
                  np.array([[2, -1], [-3, 0]])).astype(f32),
    ],
    "casts": [
        np.clip(np.trunc([1.5, -2.7, 3e10, -3e10]), -2**31, 2**31 - 1)
        .astype(np.int32),
        _f16_cast,
        np.array([300, -129, 5, 127], np.int64).astype(np.int8),
        np.array([0.0, -0.5, 2.0]) != 0,
        np.array([2**60 + 2**36 + 1, -3, 16777217], np.int64).astype(f32),
    ],
}

DTYPES = {"f32": f32, "f16": f16, "i32": np.int32, "i8": np.int8,
          "i64": np.int64, "i1": np.bool_}


def parse_constants(body):
    """Yields (numpy array) for each `llm.constant dense<...> : tensor<...>`."""
    for lit, ty in re.findall(r"llm\.constant dense<(.*?)> : tensor<([^>]*)>",
                              body):
        dims = ty.split("x")
        dtype = DTYPES[dims[-1]]
        shape = [int(d) for d in dims[:-1]]
        toks = re.findall(r"0x[0-9A-Fa-f]+|true|false|[-+]?[0-9.]+(?:[eE][-+]?[0-9]+)?",
                          lit)
        vals = []
        for t in toks:
            if t.startswith("0x"):
                bits = int(t, 16)
                vals.append(np.array(bits, np.uint16 if dtype is f16 else np.uint32)
                            .view(dtype).item())
            elif t in ("true", "false"):
                vals.append(t == "true")
            else:
                vals.append(float(t) if dtype in (f32, f16) else int(t))
        arr = np.array(vals, dtype=np.float64 if dtype in (f32, f16) else None)
        arr = arr.astype(dtype)
        if arr.size == 1 and np.prod(shape) != 1:
            arr = np.full(shape, arr.item(), dtype)
        yield arr.reshape(shape)


def same(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype in (f32, f16):
        return a.tobytes() == b.tobytes()
    return np.array_equal(a, b)


text = sys.stdin.read()
failures = 0
for name, expected in EXPECTED.items():
    m = re.search(r"func\.func @" + name + r"\(.*?\n  }", text, re.S)
    if not m:
        print(f"{name}: function not found")
        failures += 1
        continue
    got = list(parse_constants(m.group(0)))
    for i, exp in enumerate(expected):
        exp = np.asarray(exp)
        if not any(same(exp, g) for g in got):
            print(f"{name}: expected value #{i} not found: {exp.tolist()}")
            print("  constants:", [g.tolist() for g in got])
            failures += 1
print(f"{failures} mismatches")
sys.exit(1 if failures else 0)
