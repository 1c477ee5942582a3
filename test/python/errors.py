# Bad input to the llmc Python package raises a clear Python exception with
# the diagnostic (ValueError / FileNotFoundError / TypeError), never crashes;
# a failed call leaves the model usable.
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t | FileCheck %s

import os
import sys

import numpy as np

import llmc

tmp = sys.argv[1]


def expect(exc_type, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc_type as e:
        print("%s: %s" % (type(e).__name__, str(e).splitlines()[0]))
        return
    print("NO EXCEPTION")


MODEL = """
func.func @main(%x: tensor<2x3xf32> {llm.name = "x"}, %ids: tensor<2xi64>) -> tensor<2x3xf32> {
  %y = llm.mul %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
"""
model = llmc.compile(MODEL)
x = np.ones((2, 3), np.float32)
ids = np.zeros(2, np.int64)

# Arguments: count, names, dtype, shape.
expect(ValueError, model, x)
# CHECK: ValueError: @main: missing input 'arg1'
expect(ValueError, model, x, ids, ids)
# CHECK-NEXT: ValueError: @main takes 2 inputs, got 3 positional
expect(ValueError, model, x, ids, y=ids)
# CHECK-NEXT: ValueError: @main has no input named 'y' (inputs: x, arg1)
expect(ValueError, model, x, ids, x=x)
# CHECK-NEXT: ValueError: input 'x' (#0) given twice
expect(ValueError, model, x.astype(np.float64), ids)
# CHECK-NEXT: ValueError: input 'x' (#0): expected dtype float32 (f32), got float64
expect(ValueError, model, x, ids.astype(np.int32))
# CHECK-NEXT: ValueError: input 'arg1' (#1): expected dtype int64 (i64), got int32
expect(ValueError, model, x.T, ids)
# CHECK-NEXT: ValueError: input 'x' (#0): expected shape (2, 3), got (3, 2)
expect(ValueError, model, [[1, 2], [3, 4]], ids)
# CHECK-NEXT: ValueError: input 'x' (#0): expected shape (2, 3), got (2, 2)
expect(ValueError, model, "abc", ids)
# CHECK-NEXT: ValueError: input 'x' (#0): cannot convert to float32
# Still usable after the failures.
print("after errors:", model(x * 2, ids).tolist())
# CHECK-NEXT: after errors: {{\[}}[4.0, 4.0, 4.0], [4.0, 4.0, 4.0]]

# Models: syntax and verifier errors carry the location.
expect(ValueError, llmc.compile, "func.func @main(%x: tensor<2xf32>")
# CHECK-NEXT: ValueError: <string>:1:33: error: expected ')'
bad_path = os.path.join(tmp, "bad.mlir")
with open(bad_path, "w") as f:
    f.write("func.func @main(%x: tensor<2xf32>, %y: tensor<3xf32>) -> tensor<2xf32> {\n"
            "  %z = llm.add %x, %y : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>\n"
            "  return %z : tensor<2xf32>\n}\n")
expect(ValueError, llmc.compile, bad_path)
# CHECK-NEXT: ValueError: {{.*}}bad.mlir:2:8: error: 'llm.add' operand shapes 2 and 3 do not broadcast
# Text nested deeper than MLIR's parser recurses safely (it overflowed the
# stack): refused before parsing, as text and as a file.
deep = ("func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> attributes {a = " +
        "[" * 200000 + "]" * 200000 + "} {\n  return %x : tensor<2xf32>\n}\n")
expect(ValueError, llmc.compile, deep)
# CHECK-NEXT: ValueError: cannot parse '<string>': it nests more than 1000 levels deep (line 1, column 1068)
deep_path = os.path.join(tmp, "deep.mlir")
with open(deep_path, "w") as f:
    f.write(deep)
expect(ValueError, llmc.compile, deep_path)
# CHECK-NEXT: ValueError: cannot parse '{{.*}}deep.mlir': it nests more than 1000 levels deep (line 1, column 1068)
# Depth built by aliases, each line shallow, parses but overflowed the
# printers' and walkers' stack: refused after parsing, naming the op.
aliased = "#a0 = [1]\n" + "".join(
    "#a%d = [#a%d]\n" % (i, i - 1) for i in range(1, 20000)) + (
    "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> attributes "
    "{a = #a19999} {\n  return %x : tensor<2xf32>\n}\n")
expect(ValueError, llmc.compile, aliased)
# CHECK-NEXT: ValueError: cannot parse '<string>': it nests more than 1000 levels deep (op 'func.func' at line 20001, column 1)
expect(FileNotFoundError, llmc.compile, os.path.join(tmp, "missing.mlir"))
# CHECK-NEXT: FileNotFoundError: cannot open model '{{.*}}missing.mlir': no such file
expect(TypeError, llmc.compile, 42)
# CHECK-NEXT: TypeError: model must be a path (str or os.PathLike) or MLIR text, got int
# A dynamically shaped entry is rejected by the compiler, not at run time.
expect(ValueError, llmc.compile,
       "func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {\n"
       "  return %x : tensor<?xf32>\n}\n")
# CHECK-NEXT: ValueError: <string>:1:17: error: argument #0 of @main: dimension 0 of 'tensor<?xf32>' is dynamic but has no declared upper bound

# Options and targets.
expect(ValueError, llmc.compile, MODEL, target="gpu")
# CHECK-NEXT: ValueError: unknown target 'gpu'; supported: cpu, cuda, cuda-emulator or a CPU target (host, generic, avx2, avx512, avx512-vnni, avx512-bf16 or an x86-64 CPU name such as znver4 or sapphirerapids)
expect(ValueError, llmc.compile, MODEL, opt_level=9)
# CHECK-NEXT: ValueError: invalid option 'opt-level=9': opt-level must be 0, 1, 2 or 3
expect(ValueError, llmc.compile, MODEL, no_such_option=True)
# CHECK-NEXT: ValueError: <string>:1:1: error: invalid pipeline options 'no-such-option=true': {{.*}}no such option no-such-option
expect(ValueError, llmc.compile, MODEL, threads=5000)
# CHECK-NEXT: ValueError: <string>:1:1: error: invalid pipeline options 'num-threads=5000': num-threads must be in [0, 1024]
expect(ValueError, llmc.compile, MODEL, entry="nope")
# CHECK-NEXT: ValueError: <string>:1:1: error: entry function @nope not found (public functions: @main)
expect(ValueError, llmc.compile, MODEL, target_cpu="a b")
# CHECK-NEXT: ValueError: option target-cpu='a b': the value must be non-empty and contain no whitespace
expect(ValueError, llmc.compile, MODEL, dims={"batch": 1})
# CHECK-NEXT: ValueError: dims applies only to ONNX models

# Pipelines.
expect(ValueError, llmc.run_pipeline, MODEL, "no-such-pass")
# CHECK-NEXT: ValueError: invalid pass pipeline 'no-such-pass': {{.*}}'no-such-pass' does not refer to a registered pass or pass pipeline
expect(ValueError, llmc.run_pipeline, MODEL, "convert-llm-to-linalg{bogus=1}")
# CHECK-NEXT: ValueError: invalid pass pipeline 'convert-llm-to-linalg{bogus=1}'

# ONNX: a missing file, a corrupt file.
expect(FileNotFoundError, llmc.import_onnx, os.path.join(tmp, "missing.onnx"))
# CHECK-NEXT: FileNotFoundError: cannot open ONNX model '{{.*}}missing.onnx': no such file
corrupt = os.path.join(tmp, "corrupt.onnx")
with open(corrupt, "wb") as f:
    f.write(b"\x08\x07\x12\xff\xff not an onnx model")
expect(ValueError, llmc.import_onnx, corrupt)
# CHECK-NEXT: ValueError: {{.*}}corrupt.onnx:0:0: error: cannot parse '{{.*}}corrupt.onnx' as an ONNX model
expect(ValueError, llmc.compile, corrupt)
# CHECK-NEXT: ValueError: {{.*}}corrupt.onnx:0:0: error: cannot parse '{{.*}}corrupt.onnx' as an ONNX model
# Out of memory inside the compiled code (a 64 TiB intermediate): a
# RuntimeError without the "error: " severity prefix.
HUGE = """
func.func @main(%a: tensor<4194304x1xf32>, %b: tensor<1x4194304xf32>) -> tensor<4194304xf32> {
  %0 = llm.matmul %a, %b : (tensor<4194304x1xf32>, tensor<1x4194304xf32>) -> tensor<4194304x4194304xf32>
  %1 = llm.softmax %0 {axis = 1 : i64} : tensor<4194304x4194304xf32>
  %2 = llm.reduce_sum %1 {axes = array<i64: 1>, keepdims = false} : (tensor<4194304x4194304xf32>) -> tensor<4194304xf32>
  return %2 : tensor<4194304xf32>
}
"""
huge = llmc.compile(HUGE)
expect(RuntimeError, huge, np.ones((4194304, 1), np.float32),
       np.ones((1, 4194304), np.float32))
# CHECK-NEXT: RuntimeError: out of memory: the compiled model could not allocate {{[0-9]+}} bytes (the outputs of this call are not valid)
print("done")
# CHECK-NEXT: done
