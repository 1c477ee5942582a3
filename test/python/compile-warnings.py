# Compile warnings reach Python as UserWarnings (the C API passes a call's
# diagnostics to its callback also when the call succeeds): a recorded
# sparse format that no kernel takes warns at each llmc.compile, also when
# the compile cache loads the model (the entry keeps the warning); a model
# without warnings gives none; run_pipeline's warnings too; remarks are not
# warnings; a filter that makes warnings errors raises.
# RUN: %python %s | FileCheck %s

import os
import tempfile
import warnings

import numpy as np

import llmc

MODEL = """
func.func @main(%x: tensor<1x32xf32>) -> tensor<1x5xf32> {
  %c = llm.constant dense<1.0> : tensor<5x32xf32>
  %y = llm.matmul %x, %c {transpose_b, llm.sparse_format = {format = "bsr5x32"}}
      : (tensor<1x32xf32>, tensor<5x32xf32>) -> tensor<1x5xf32>
  return %y : tensor<1x5xf32>
}
"""
QUIET = MODEL.replace(', llm.sparse_format = {format = "bsr5x32"}', "")


def compile_and_catch(text, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = llmc.compile(text, **kwargs)
    return model, [(w.category.__name__, str(w.message)) for w in caught]


# lit turns the cache off (LLMC_CACHE=off); it is read at every compile.
os.environ["LLMC_CACHE"] = "on"
x = np.arange(32, dtype=np.float32).reshape(1, 32)
with tempfile.TemporaryDirectory() as tmp:
    cache = os.path.join(tmp, "cache")
    for run in ("first", "second"):
        model, caught = compile_and_catch(MODEL, cache_dir=cache)
        print(run, model.cache_status, len(caught))
        for category, message in caught:
            print(category, message.splitlines()[0])
        # The dense kernel runs: each output is the sum of x.
        print("result", bool(np.all(model(x) == x.sum())))
    # CHECK: first miss 1
    # CHECK-NEXT: UserWarning {{.*}}: warning: llm.sparse_format 'bsr5x32' is not honoured: blocks of 5 x 32
    # CHECK-NEXT: result True
    # CHECK-NEXT: second hit 1
    # CHECK-NEXT: UserWarning {{.*}}: warning: llm.sparse_format 'bsr5x32' is not honoured: blocks of 5 x 32
    # CHECK-NEXT: result True

    for run in ("first", "second"):
        model, caught = compile_and_catch(QUIET, cache_dir=cache)
        print("quiet", run, model.cache_status, len(caught))
    # CHECK-NEXT: quiet first miss 0
    # CHECK-NEXT: quiet second hit 0

    # A parser warning (an unknown external resource) is kept with the
    # entry too.
    resources = MODEL + '{-# external_resources: { bogus: { k: "v" } } #-}\n'
    for run in ("first", "second"):
        model, caught = compile_and_catch(resources, cache_dir=cache)
        print("parser", run, model.cache_status, " | ".join(
            m.split(": warning: ")[1][:40] for _, m in caught))
    # CHECK-NEXT: parser first miss ignoring unknown external resources for {{ *}}| llm.sparse_format 'bsr5x32' is not honou
    # CHECK-NEXT: parser second hit ignoring unknown external resources for {{ *}}| llm.sparse_format 'bsr5x32' is not honou

# A location whose file name is not UTF-8 (the byte 0xC3 alone): the
# warning escapes it instead of failing the call.
latin = MODEL.replace("-> tensor<1x5xf32>\n  return",
                      "-> tensor<1x5xf32> loc(\"x\\C3.mlir\":7:9)\n  return")
_, caught = compile_and_catch(latin, cache=False)
print("latin", [m.split(": warning: ")[0] for _, m in caught])
# CHECK-NEXT: latin ['x\\xc3.mlir:7:9']

# import_onnx of a file and of the model's bytes, both with a warning.
import onnx
from onnx import TensorProto, helper
node = helper.make_node("Relu", ["x"], ["y"], name="r", bogus=3)
graph = helper.make_graph(
    [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "badattr.onnx")
    onnx.save(proto, path)
    for source in (path, proto.SerializeToString()):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            llmc.import_onnx(source)
        print("onnx", [str(w.message).split(": warning: ")[1] for w in caught])
# CHECK-NEXT: onnx ["ONNX node 'r' (Relu, opset 17): unknown attribute 'bogus' ignored
# CHECK-NEXT: onnx ["ONNX node 'r' (Relu, opset 17): unknown attribute 'bogus' ignored

# Without the cache, and as an error under the "error" filter.
_, caught = compile_and_catch(MODEL, cache=False)
print("uncached", len(caught))
# CHECK-NEXT: uncached 1
with warnings.catch_warnings():
    warnings.simplefilter("error")
    try:
        llmc.compile(MODEL, cache=False)
        print("no error")
    except UserWarning as e:
        print("error:", str(e).splitlines()[0].split(": warning: ")[1])
# CHECK-NEXT: error: llm.sparse_format 'bsr5x32' is not honoured

# llm-sparsify-weights' remarks are not warnings.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    llmc.run_pipeline(QUIET, "llm-sparsify-weights")
print("remarks", len(caught))
# CHECK-NEXT: remarks 0
