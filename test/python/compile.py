# llmc.compile on MLIR text and .mlir files, called with numpy arrays and
# checked against numpy (float64 reference, f32 tolerance rtol 1e-5 /
# atol 1e-6 as in test/lib/llmc_check.py), with the default, the reference
# (no_opt) and a serial unvectorized lowering; inputs by position and name;
# every element type; run_pipeline.
# RUN: %python %s | FileCheck %s

import os
import tempfile

import numpy as np

import llmc
import llmc_ref

MLP = """
func.func @main(%x: tensor<4x8xf32> {llm.name = "x"}, %w: tensor<8x16xf32> {llm.name = "w"},
                %b: tensor<16xf32> {llm.name = "b"}) -> (tensor<4x16xf32> {llm.name = "probs"}) {
  %h = llm.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %hb = llm.add %h, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %g = llm.gelu %hb : tensor<4x16xf32>
  %s = llm.softmax %g {axis = -1 : i64} : tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}
"""

rng = np.random.default_rng(0)
x = rng.standard_normal((4, 8)).astype(np.float32)
w = rng.standard_normal((8, 16)).astype(np.float32)
b = rng.standard_normal(16).astype(np.float32)
expected = llmc_ref.softmax(llmc_ref.gelu(llmc_ref.add(llmc_ref.matmul(x, w), b)))


def check(label, actual, expected, rtol=1e-5, atol=1e-6):
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    err = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
    ok = bool(np.all(err <= atol + rtol * np.abs(expected.astype(np.float64))))
    print("%s: %s max_abs_err=%.2e %s" % (label, actual.dtype, err.max(),
                                         "PASS" if ok else "FAIL"))


model = llmc.compile(MLP)
print(model)
# CHECK: <llmc.CompiledModel @main (x: f32[4x8], w: f32[8x16], b: f32[16]) -> (probs: f32[4x16])>
print(model.inputs[0])
# CHECK: TensorInfo(name='x', shape=(4, 8), element_type='f32', dtype=dtype('float32'))
y = model(x, w, b)
check("positional", y, expected)
# CHECK: positional: float32 {{.*}} PASS
check("named", model(b=b, x=x, w=w), expected)
# CHECK: named: float32 {{.*}} PASS
check("mixed", model(x, b=b, w=w), expected)
# CHECK: mixed: float32 {{.*}} PASS
# Lists are converted; a non-contiguous array is copied.
check("list+strided", model(x.tolist(), np.asfortranarray(w), b), expected)
# CHECK: list+strided: float32 {{.*}} PASS
# The inputs are not modified and each call returns a new array.
y2 = model(x, w, b)
assert y2 is not y and np.array_equal(y, y2)

for label, options in [("no_opt", dict(no_opt=True)),
                       ("serial", dict(parallel=False, vectorize=False,
                                       opt_level=1)),
                       ("threads", dict(threads=2)),
                       # None: the option's default.
                       ("defaults", dict(threads=None, opt_level=None))]:
    check(label, llmc.compile(MLP, **options)(x, w, b), expected)
# CHECK: no_opt: float32 {{.*}} PASS
# CHECK: serial: float32 {{.*}} PASS
# CHECK: threads: float32 {{.*}} PASS
# CHECK: defaults: float32 {{.*}} PASS

# A CPU target name instead of "cpu": compiled for that family (generic:
# 128-bit vectors, which every x86-64 CPU runs).
check("target=generic", llmc.compile(MLP, target="generic")(x, w, b), expected)
# CHECK: target=generic: float32 {{.*}} PASS

# A .mlir path (str and os.PathLike); several results come back as a tuple; an
# entry other than main.
TWO = """
func.func @pair(%a: tensor<3xi32>, %m: tensor<3xi1>, %n: tensor<3xi8>)
    -> (tensor<3xf32>, tensor<3xi64>, tensor<3xi32>) {
  %s = llm.cast %a : (tensor<3xi32>) -> tensor<3xf32>
  %c = llm.cast %m : (tensor<3xi1>) -> tensor<3xi64>
  %e = llm.cast %n : (tensor<3xi8>) -> tensor<3xi32>
  return %s, %c, %e : tensor<3xf32>, tensor<3xi64>, tensor<3xi32>
}
"""
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "pair.mlir")
    with open(path, "w") as f:
        f.write(TWO)
    import pathlib
    for p in (path, pathlib.Path(path)):
        pair = llmc.compile(p, entry="pair")
        s, c, e = pair(np.array([1, -2, 3], np.int32), [True, False, True],
                       np.array([-128, 0, 127], np.int8))
        print("pair:", s.dtype, s.tolist(), c.dtype, c.tolist(), e.dtype,
              e.tolist())
# CHECK: pair: float32 [1.0, -2.0, 3.0] int64 [1, 0, 1] int32 [-128, 0, 127]
# CHECK: pair: float32 [1.0, -2.0, 3.0] int64 [1, 0, 1] int32 [-128, 0, 127]

# f16, bf16 (float32 arrays rounded to bfloat16 on the way in), f64 (the llm
# ops take no f64: passed through).
FLOATS = """
func.func @main(%h: tensor<4xf16>, %g: tensor<4xbf16>, %d: tensor<4xf64>)
    -> (tensor<4xf16>, tensor<4xbf16>, tensor<4xf64>) {
  %0 = llm.mul %h, %h : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %1 = llm.add %g, %g : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  return %0, %1, %d : tensor<4xf16>, tensor<4xbf16>, tensor<4xf64>
}
"""
floats = llmc.compile(FLOATS)
print([(i.element_type, str(i.dtype)) for i in floats.inputs])
# CHECK: [('f16', 'float16'), ('bf16', 'float32'), ('f64', 'float64')]
h = np.array([0.5, -1.5, 2.0, 3.0], np.float16)
g = np.array([1.0, 1.00390625, -3.0, 0.1], np.float32)
d = np.array([0.0, 1.0, -1.0, 2.0], np.float64)
o16, obf, o64 = floats(h, g, d)
check("f16", o16, h * h, rtol=2e-3, atol=1e-3)
# CHECK: f16: float16 {{.*}} PASS
gb = llmc_ref.to_bf16(g)
check("bf16", obf, llmc_ref.to_bf16(gb + gb), rtol=0, atol=0)
# CHECK: bf16: float32 {{.*}} PASS
check("f64", o64, d, rtol=0, atol=0)
# CHECK: f64: float64 {{.*}} PASS

# 0-d inputs (a scalar such as attention's kv_length) stay 0-d, also bf16
# and plain Python scalars.
scalars = llmc.compile("""
func.func @main(%n: tensor<i64>, %x: tensor<f32>, %y: tensor<bf16>) -> (tensor<i64>, tensor<f32>, tensor<bf16>) {
  %n2 = llm.add %n, %n : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %x2 = llm.mul %x, %x : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %y2 = llm.add %y, %y : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
  return %n2, %x2, %y2 : tensor<i64>, tensor<f32>, tensor<bf16>
}""")
n2, x2, y2 = scalars(np.array(21, dtype=np.int64), np.float32(1.5), np.array(0.75, dtype=np.float32))
print("scalars:", n2.shape, int(n2), x2.shape, float(x2), y2.shape, float(y2))
# CHECK: scalars: () 42 () 2.25 () 1.5

# run_pipeline: text in, text out.
folded = llmc.run_pipeline("""
func.func @f() -> tensor<2xf32> {
  %a = llm.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = llm.mul %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}""", "llm-fold-constants,canonicalize")
print(folded)
# CHECK-LABEL: func.func @f()
# CHECK-NEXT: llm.constant dense<[1.000000e+00, 4.000000e+00]> : tensor<2xf32>
# CHECK-NOT: llm.mul
print("done")
# CHECK: done
