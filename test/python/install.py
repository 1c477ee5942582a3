# `cmake --install BUILD --component llmc-python --prefix P` installs a
# self-contained package (the extension, __init__.py and libLLMCAPI.so):
# a fresh /usr/bin/python3 with only P's dist-packages on its path imports it
# from there and runs a model.
# RUN: rm -rf %t && mkdir -p %t
# RUN: cmake --install %llmc_obj_root --component llmc-python --prefix %t/prefix > %t/install.log
# RUN: %python %s %t/prefix | FileCheck %s

import glob
import os
import subprocess
import sys

prefix = sys.argv[1]
site = glob.glob(os.path.join(prefix, "lib", "python3*", "dist-packages"))
assert len(site) == 1, site
print(sorted(os.path.basename(p) for p in
             glob.glob(os.path.join(site[0], "llmc", "*"))), flush=True)
# CHECK: ['__init__.py', '_llmc.cpython-{{.*}}.so', 'libLLMCAPI.so{{.*}}']

script = r"""
import numpy as np
import llmc
print(os.path.relpath(llmc.__file__, site))
m = llmc.compile('''
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = llm.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}''')
print(m(np.array([1, 2, 3], np.float32)).tolist())
"""
env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
env["PYTHONPATH"] = site[0]
subprocess.run([sys.executable, "-c",
                "import os; site = %r\n" % site[0] + script],
               env=env, check=True)
# CHECK-NEXT: llmc/__init__.py
# CHECK-NEXT: [1.0, 4.0, 9.0]
