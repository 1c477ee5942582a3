# The compile cache from Python: llmc.compile of a .mlir path, of the same
# text and of an ONNX model, a second time, loads the compiled model
# (cache_status "hit") and computes the same bits; other options miss;
# cache=False bypasses; an unwritable cache_dir only warns.
# RUN: %python %s %llmc_src_root 2>&1 | FileCheck %s

import os
import subprocess
import sys
import tempfile

import numpy as np

import llmc

MODEL = """
func.func @main(%x: tensor<4x8xf32> {llm.name = "x"}, %w: tensor<8x16xf32>)
    -> (tensor<4x16xf32> {llm.name = "y"}) {
  %h = llm.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %g = llm.gelu %h : tensor<4x16xf32>
  return %g : tensor<4x16xf32>
}
"""

# The warning goes to stderr (fd 2) from C++: keep stdout in order with it.
sys.stdout.reconfigure(line_buffering=True)
# lit turns the cache off (LLMC_CACHE=off); it is read at every compile.
os.environ["LLMC_CACHE"] = "on"
rng = np.random.default_rng(0)
x = rng.standard_normal((4, 8)).astype(np.float32)
w = rng.standard_normal((8, 16)).astype(np.float32)

with tempfile.TemporaryDirectory() as tmp:
    cache = os.path.join(tmp, "cache")
    path = os.path.join(tmp, "model.mlir")
    with open(path, "w") as f:
        f.write(MODEL)

    first = llmc.compile(path, cache_dir=cache)
    second = llmc.compile(path, cache_dir=cache)
    print("path:", first.cache_status, second.cache_status)
    # CHECK: path: miss hit
    print("entries:", len([n for n in os.listdir(cache)
                           if n.endswith(".llmcc")]))
    # CHECK-NEXT: entries: 1
    # The names and shapes come with the cached entry.
    print(second)
    # CHECK-NEXT: <llmc.CompiledModel @main (x: f32[4x8], arg1: f32[8x16]) -> (y: f32[4x16])>
    a, b = first(x, w), second(x=x, arg1=w)
    print("same bits:", a.tobytes() == b.tobytes())
    # CHECK-NEXT: same bits: True

    # The same text, given as a string, is the same content.
    print("text:", llmc.compile(MODEL, cache_dir=cache).cache_status)
    # CHECK-NEXT: text: hit
    print("no_opt:", llmc.compile(path, cache_dir=cache, no_opt=True)
          .cache_status)
    # CHECK-NEXT: no_opt: miss
    print("cache=False:", llmc.compile(path, cache_dir=cache, cache=False)
          .cache_status)
    # CHECK-NEXT: cache=False: off
    os.environ["LLMC_CACHE"] = "off"
    print("LLMC_CACHE=off:", llmc.compile(path, cache_dir=cache).cache_status)
    # CHECK-NEXT: LLMC_CACHE=off: off
    os.environ["LLMC_CACHE"] = "on"

    # LLMC_CACHE_DIR is the default directory.
    os.environ["LLMC_CACHE_DIR"] = os.path.join(tmp, "env-cache")
    print("env:", llmc.compile(path).cache_status,
          llmc.compile(path).cache_status,
          sorted(os.listdir(tmp)))
    # CHECK-NEXT: env: miss hit ['cache', 'env-cache', 'model.mlir']

    # A directory that cannot be written: a warning (on stderr), no error.
    blocker = os.path.join(tmp, "file")
    open(blocker, "w").close()
    model = llmc.compile(path, cache_dir=blocker)
    print("unwritable:", model.cache_status,
          model(x, w).tobytes() == a.tobytes())
    # CHECK: llmc: warning: compile cache: cannot store compiled models in '{{.*}}file': {{.*}}(caching of new models is off)
    # CHECK: unwritable: miss True

    # An ONNX model (with its names) hits as well.
    if llmc.has_onnx_importer():
        try:
            import onnx  # noqa: F401
            have_onnx = True
        except ImportError:
            have_onnx = False
    else:
        have_onnx = False
    if have_onnx:
        onnx_path = os.path.join(tmp, "ext.onnx")
        subprocess.run([sys.executable, os.path.join(
            sys.argv[1], "test", "lib", "onnx_models", "make_model.py"),
            "external", onnx_path], check=True)
        m1 = llmc.compile(onnx_path, cache_dir=cache)
        m2 = llmc.compile(onnx_path, cache_dir=cache)
        xin = rng.standard_normal((4, 8)).astype(np.float32)
        print("onnx:", m1.cache_status, m2.cache_status,
              [i.name for i in m2.inputs], [o.name for o in m2.outputs],
              m1(x=xin).tobytes() == m2(x=xin).tobytes())
    else:
        print("onnx: skipped (no ONNX importer or onnx package)")
    # CHECK: onnx: {{miss hit \['x'\] \['y'\] True|skipped}}
