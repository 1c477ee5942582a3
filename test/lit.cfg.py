# -*- Python -*-
# lit configuration for llmc's regression and integration tests.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "LLMC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".py", ".c", ".test"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py",
                   "Inputs", "lit.local.cfg"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.llmc_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%llmc_src_root", config.llmc_src_root))
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))
config.substitutions.append(("%mlir_runner_utils", config.runner_utils))
config.substitutions.append(("%mlir_c_runner_utils", config.c_runner_utils))

llvm_config.use_default_substitutions()
# RUN lines use `not`, `FileCheck`, `count` from LLVM's tools directory.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
config.substitutions.append(("%omp_lib", config.omp_lib))
# The mlir-opt plugin (tools/llm-plugin).
config.substitutions.append(("%llm_plugin", os.path.join(
    config.llmc_obj_root, "lib", "LLMPlugin.so")))
llvm_config.with_system_environment(["HOME", "TMPDIR", "OMP_NUM_THREADS",
                                    "ASAN_OPTIONS", "UBSAN_OPTIONS",
                                    "LLMC_CUDA_DEVICE",
                                    "CUDA_VISIBLE_DEVICES"])
# Debian's numpy/onnx/torch live in /usr/lib/python3/dist-packages.
llvm_config.with_environment("PYTHONPATH", [
    os.path.join(config.llmc_src_root, "test", "lib"),
    os.path.join(config.llmc_obj_root, "python_packages"),
    "/usr/lib/python3/dist-packages",
], append_path=True)
llvm_config.with_environment("LLMC_TOOLS_DIR", config.llmc_tools_dir)
# The compile cache (llm/Runtime/CompileCache.h) is off: tests neither
# write to the user's ~/.cache nor see each other's entries. The cache tests
# turn it on with their own directory (`env LLMC_CACHE=on LLMC_CACHE_DIR=...`).
llvm_config.with_environment("LLMC_CACHE", "off")

tool_dirs = [config.llmc_tools_dir, config.llvm_tools_dir]
tools = ["llm-opt", "llmc", "llmc-capi-test", "llmc-capi-generation-test", "llmc-capi-calibration-test", "llmc-capi-cuda-test", "llmc-cuda-probe", "mlir-opt",
         "mlir-runner",
         ToolSubst("%llmc_python", config.python_executable, unresolved="ignore")]
llvm_config.add_tool_substitutions(tools, tool_dirs)

if config.enable_sanitizers:
    config.available_features.add("asan")

# Tensor parallelism: `mpi` when llmc links MPI and mpirun runs here.
# %mpirun starts N local processes (as root too, as CI runs).
if config.have_mpi and shutil.which("mpirun"):
    config.available_features.add("mpi")
    config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    config.substitutions.append(
        ("%mpirun", "mpirun --oversubscribe --bind-to none"))

# Intel AMX: `amx` when this CPU has AMX tiles with bf16 products (the
# AMX kernels then run natively; elsewhere they run through llm-emulate-amx).
try:
    with open("/proc/cpuinfo") as cpuinfo:
        cpu_flags = next((line.split(":", 1)[1].split()
                          for line in cpuinfo if line.startswith("flags")), [])
except OSError:
    cpu_flags = []
if "amx_tile" in cpu_flags and "amx_bf16" in cpu_flags:
    config.available_features.add("amx")

# x86 vector extensions of this CPU (build machines differ: AMD Zen 3 has
# AVX2 only, Zen 4/5 and Intel Xeons AVX-512): code compiled for a named
# target (target=avx512, avx512-vnni, avx512-bf16, znver5) runs only where
# `avx512` (and `avx512-vnni`, `avx512-bf16`) is available; tests guard such
# runs with `%if avx512 %{ ... %}` or pin the target where they only compile.
if all(f in cpu_flags for f in ("avx512f", "avx512bw", "avx512vl", "avx512dq")):
    config.available_features.add("avx512")
    if "avx512_vnni" in cpu_flags:
        config.available_features.add("avx512-vnni")
    if "avx512_bf16" in cpu_flags:
        config.available_features.add("avx512-bf16")

# Tokenizers: `sentencepiece` when llmc was built with libsentencepiece.
if config.have_sentencepiece:
    config.available_features.add("sentencepiece")

# CUDA (lib/Runtime/CUDA, test/Runtime/CUDA). `cuda-toolkit`: CMake found the
# toolkit, so llmc's CUDA runtime is built; %cuda_toolkit is the toolkit's
# root (for gpu-module-to-binary{toolkit=}), %llmc_cuda_runtime and
# %llmc_cuda_runtime_static the runtime's shared and static libraries.
# `cuda-driver`: llmc-cuda-probe found a driver and a device (a GPU machine).
# %cc is the C compiler, %llmc_lib_dir build/lib, %fake_cuda_driver_dir the
# directory of the fake libcuda.so.1 (test/Runtime/CUDA/Inputs/FakeCUDADriver.c).
config.substitutions.append(("%cc", config.c_compiler))
config.substitutions.append(("%llmc_lib_dir", config.llmc_lib_dir))
# (and %fake_cuda11_driver_dir one without the CUDA 12 functions).
config.substitutions.append(("%fake_cuda_driver_dir", os.path.join(
    config.llmc_obj_root, "test", "Runtime", "CUDA", "fake-driver")))
config.substitutions.append(("%fake_cuda11_driver_dir", os.path.join(
    config.llmc_obj_root, "test", "Runtime", "CUDA", "fake-driver-cuda11")))
# %fake_nccl: the fake libnccl.so.2 (test/Runtime/CUDA/Inputs/FakeNCCL.c).
config.substitutions.append(("%fake_nccl", os.path.join(
    config.llmc_obj_root, "test", "Runtime", "CUDA", "fake-nccl",
    "libnccl.so.2")))
if config.cuda_toolkit_dir:
    config.available_features.add("cuda-toolkit")
    config.substitutions.append(("%cuda_toolkit", config.cuda_toolkit_dir))
    # The longer name first: lit substitutes in order.
    config.substitutions.append(("%llmc_cuda_runtime_static", os.path.join(
        config.llmc_lib_dir, "libllmc_cuda_runtime_static.a")))
    config.substitutions.append(("%llmc_cuda_runtime", os.path.join(
        config.llmc_lib_dir, "libllmc_cuda_runtime.so")))
_probe = os.path.join(config.llmc_tools_dir, "llmc-cuda-probe")
if os.path.exists(_probe):
    import subprocess
    if subprocess.run([_probe, "--quiet"], env={
            k: v for k, v in os.environ.items()
            if k != "LLMC_CUDA_DRIVER_LIBRARY"}).returncode == 0:
        config.available_features.add("cuda-driver")

# %python_ext: python3 for a script that imports the llmc extension. Under
# ASan (scripts/test-sanitizers.sh) the extension is instrumented but python3
# is not: the interpreter gets the shared ASan+UBSan runtime preloaded, which
# must come first in the library list (an instrumented executable it started
# would then see two runtimes, so only scripts that run llmc in-process use
# it). Listed first: %python is a prefix of it.
config.asan_runtime = None
python_ext = config.python_executable
if config.enable_sanitizers:
    import subprocess
    runtime = subprocess.run(
        [config.cxx_compiler, "-print-file-name=libclang_rt.asan-x86_64.so"],
        capture_output=True, text=True).stdout.strip()
    if os.path.isfile(runtime):
        config.asan_runtime = runtime
        python_ext = "env LD_PRELOAD=%s %s" % (runtime, config.python_executable)
    else:
        config.available_features.add("no-asan-runtime")
config.substitutions.insert(0, ("%python_ext", python_ext))
