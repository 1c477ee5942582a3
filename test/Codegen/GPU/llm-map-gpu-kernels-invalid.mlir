// RUN: llm-opt %s --verify-diagnostics --llm-map-gpu-kernels="chip=sm_70"
// RUN: not llm-opt %s --llm-map-gpu-kernels="block-size=100" 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not llm-opt %s --llm-map-gpu-kernels="block-size=2048" 2>&1 | FileCheck %s --check-prefix=BLOCK

// expected-error@+1 {{llm-map-gpu-kernels: unknown chip 'sm_70' (expected sm_80, sm_89 or sm_90a)}}
module {
}
// BLOCK: error: llm-map-gpu-kernels: block-size must be a multiple of 32 up to 1024
