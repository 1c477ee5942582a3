#===- LLMCCUDA.cmake - The optional CUDA toolkit --------------------------===#
#
# Finds the CUDA toolkit (optional: nothing else needs it). Sets
#   LLMC_CUDA_TOOLKIT_FOUND  ON when the toolkit (cuda.h, ptxas) was found
#                            and LLMC_ENABLE_CUDA is on; then
#                            lib/Runtime/CUDA builds llmc's CUDA runtime
#                            (libllmc_cuda_runtime.so and
#                            libllmc_cuda_runtime_static.a in build/lib) and
#                            lit gets the `cuda-toolkit` feature;
#   LLMC_CUDA_TOOLKIT_DIR    the toolkit's root (e.g. /usr/local/cuda), for
#                            gpu-module-to-binary{toolkit=...}; "" if none.
# -DLLMC_ENABLE_CUDA=OFF ignores an installed toolkit. Pick another toolkit
# with -DCUDAToolkit_ROOT=DIR.
#
#===----------------------------------------------------------------------===#

include(GNUInstallDirs)
option(LLMC_ENABLE_CUDA
  "Build llmc's CUDA runtime and GPU tests when the CUDA toolkit is found" ON)
set(LLMC_CUDA_TOOLKIT_FOUND OFF)
set(LLMC_CUDA_TOOLKIT_DIR "")
if(LLMC_ENABLE_CUDA)
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND AND EXISTS "${CUDAToolkit_INCLUDE_DIRS}/cuda.h")
    set(LLMC_CUDA_TOOLKIT_FOUND ON)
    get_filename_component(LLMC_CUDA_TOOLKIT_DIR "${CUDAToolkit_BIN_DIR}"
                           DIRECTORY)
  endif()
endif()
if(LLMC_CUDA_TOOLKIT_FOUND)
  message(STATUS "CUDA toolkit ${CUDAToolkit_VERSION} in "
                 "${LLMC_CUDA_TOOLKIT_DIR}: building llmc's CUDA runtime")
else()
  message(STATUS "CUDA toolkit not found (or LLMC_ENABLE_CUDA=OFF): "
                 "no CUDA runtime, GPU tests unsupported")
endif()
