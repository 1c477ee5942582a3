# A str that names something that exists is a path, never MLIR text: a
# directory (with or without a .mlir/.onnx suffix) raises IsADirectoryError
# naming it, a FIFO or device a ValueError (without opening it: a FIFO would
# block), a missing .mlir path FileNotFoundError; a regular file without the
# suffix is read as the model; one-line MLIR text stays text.
# RUN: rm -rf %t && mkdir -p %t/model.mlir %t/model.onnx %t/plain
# RUN: mkfifo %t/fifo.mlir && mknod %t/null c 1 3
# RUN: %python %s %t | FileCheck %s
# Nothing was created, replaced or removed.
# RUN: test -d %t/model.mlir && test -d %t/plain && test -p %t/fifo.mlir
# RUN: test -c %t/null

import os
import pathlib
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
    except Exception as e:  # noqa: BLE001 (the test prints what it got)
        print("WRONG EXCEPTION %s: %s" % (type(e).__name__, e))
        return
    print("NO EXCEPTION")


# Directories.
expect(IsADirectoryError, llmc.compile, os.path.join(tmp, "plain"))
# CHECK: IsADirectoryError: cannot open model '{{.*}}plain': is a directory, not a file
expect(IsADirectoryError, llmc.compile, os.path.join(tmp, "model.mlir"))
# CHECK-NEXT: IsADirectoryError: cannot open model '{{.*}}model.mlir': is a directory, not a file
expect(IsADirectoryError, llmc.compile, pathlib.Path(tmp) / "plain")
# CHECK-NEXT: IsADirectoryError: cannot open model '{{.*}}plain': is a directory, not a file
expect(IsADirectoryError, llmc.compile, tmp + "/")
# CHECK-NEXT: IsADirectoryError: cannot open model '{{.*}}/': is a directory, not a file
expect(IsADirectoryError, llmc.compile, os.path.join(tmp, "model.onnx"))
# CHECK-NEXT: IsADirectoryError: cannot open model '{{.*}}model.onnx': is a directory, not a file
expect(IsADirectoryError, llmc.import_onnx, os.path.join(tmp, "model.onnx"))
# CHECK-NEXT: IsADirectoryError: cannot open ONNX model '{{.*}}model.onnx': is a directory, not a file
# IsADirectoryError is an OSError, as FileNotFoundError is.
expect(OSError, llmc.compile, os.path.join(tmp, "plain"))
# CHECK-NEXT: IsADirectoryError: cannot open model

# A FIFO and a device are refused without being opened.
expect(ValueError, llmc.compile, os.path.join(tmp, "fifo.mlir"))
# CHECK-NEXT: ValueError: cannot open model '{{.*}}fifo.mlir': not a regular file (a device, FIFO or socket)
expect(ValueError, llmc.compile, os.path.join(tmp, "null"))
# CHECK-NEXT: ValueError: cannot open model '{{.*}}null': not a regular file (a device, FIFO or socket)

# Missing paths.
expect(FileNotFoundError, llmc.compile, os.path.join(tmp, "missing.mlir"))
# CHECK-NEXT: FileNotFoundError: cannot open model '{{.*}}missing.mlir': no such file

# An existing regular file is a path whatever its name.
MODEL = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = llm.mul %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
"""
with open(os.path.join(tmp, "model.txt"), "w") as f:
    f.write(MODEL)
model = llmc.compile(os.path.join(tmp, "model.txt"))
print(model(np.array([2, 3], np.float32)))
# CHECK-NEXT: [4. 9.]
# A link to it too.
os.symlink("model.txt", os.path.join(tmp, "link"))
print(llmc.compile(os.path.join(tmp, "link"))(np.array([1, 4], np.float32)))
# CHECK-NEXT: [ 1. 16.]

# One-line MLIR text that names nothing is still text.
print(llmc.compile(MODEL.replace("\n", " "))(np.array([5, 6], np.float32)))
# CHECK-NEXT: [25. 36.]
print("done")
# CHECK-NEXT: done
