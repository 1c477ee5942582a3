#===- LLMCInstall.cmake - cmake --install rules and the LLMC package -----===#
#
# `cmake --install BUILD [--prefix P]` installs, besides the libraries that
# add_mlir_library installs itself (component = the library's name):
#   component llmc-headers: include/llm/**.{h,td,def}, include/llm-c/*.h and
#                           the generated include/llm/**.inc;
#   component llmc-tools:   bin/llmc, bin/llm-opt, bin/llm-translate and
#                           lib/LLMPlugin.so (the mlir-opt plugin);
#   component llmc-cmake:   lib/cmake/llmc/LLMCConfig.cmake, its version
#                           file and LLMCTargets.cmake (imported targets
#                           LLMC::<library>).
# The Python package has its own component, llmc-python (python/), which a
# plain `cmake --install` skips.
#
#===----------------------------------------------------------------------===#

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/llm
                  ${PROJECT_SOURCE_DIR}/include/llm-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT llmc-headers
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td" PATTERN "*.def")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/llm
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT llmc-headers
  FILES_MATCHING PATTERN "*.inc" PATTERN "*.h"
  PATTERN "CMakeFiles" EXCLUDE)

foreach(tool llmc llm-opt llm-translate)
  if(TARGET ${tool})
    install(TARGETS ${tool}
      RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT llmc-tools)
  endif()
endforeach()
install(TARGETS LLMPlugin
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT llmc-tools)

# The libraries add_mlir_library put in the MLIRTargets export set.
set(LLMC_EXPORTED_TARGETS
  MLIRLLMSupport MLIRLLMDialect MLIRLLMTransforms MLIRLLMToLinalg
  MLIRLLMCodegen MLIRLLMPipelines MLIRLLMRuntime MLIRLLMCUDAProbe
  MLIRLLMImportONNX LLMCAPI)
if(TARGET MLIRLLMImportONNX)
  set(LLMC_EXPORT_ONNX ON)
else()
  set(LLMC_EXPORT_ONNX OFF)
endif()

set(LLMC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/llmc)
install(EXPORT MLIRTargets
  NAMESPACE LLMC::
  FILE LLMCTargets.cmake
  DESTINATION ${LLMC_INSTALL_CMAKEDIR}
  COMPONENT llmc-cmake)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/LLMCConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lib/cmake/llmc/LLMCConfig.cmake
  INSTALL_DESTINATION ${LLMC_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR
            CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/lib/cmake/llmc/LLMCConfigVersion.cmake
  VERSION ${LLMC_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/lib/cmake/llmc/LLMCConfig.cmake
  ${PROJECT_BINARY_DIR}/lib/cmake/llmc/LLMCConfigVersion.cmake
  DESTINATION ${LLMC_INSTALL_CMAKEDIR}
  COMPONENT llmc-cmake)
