// The mgpu* functions of llmc's CUDA runtime called directly (with the
// signatures MLIR 22.1.8's lowered host code declares) over the fake driver
// (Inputs/FakeCUDADriver.c, as a CUDA 11 driver): which driver calls each
// makes, the memref descriptor arithmetic, and the sticky error API.
//
// REQUIRES: cuda-toolkit
// The C programs are linked without the sanitizer runtime:
// UNSUPPORTED: asan
// RUN: %cc -I%llmc_src_root/include %s %llmc_cuda_runtime_static -o %t
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda11_driver_dir/libcuda.so.1 FAKE_CUDA_TRACE=1 %t 2>&1 | FileCheck %s

#include "llm/Runtime/CUDA/CUDARuntime.h"

#include <stdint.h>
#include <stdio.h>

void *mgpuModuleLoadJIT(void *data, int optLevel);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gx, intptr_t gy, intptr_t gz,
                      intptr_t bx, intptr_t by, intptr_t bz, int32_t smem,
                      void *stream, void **params, void **extra, size_t count);
void mgpuLaunchClusterKernel(void *function, intptr_t cx, intptr_t cy,
                             intptr_t cz, intptr_t gx, intptr_t gy, intptr_t gz,
                             intptr_t bx, intptr_t by, intptr_t bz,
                             int32_t smem, void *stream, void **params,
                             void **extra);
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
void *mgpuMemAlloc(uint64_t bytes, void *stream, _Bool hostShared);
void mgpuMemFree(void *pointer, void *stream);
void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream);
void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementBytes);
void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementBytes);
void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *descriptor,
                                     int64_t dataType, int64_t interleave,
                                     int64_t swizzle, int64_t l2Promotion,
                                     int64_t oobFill, int64_t *boxDims);
void mgpuSetDefaultDevice(int32_t device);

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} MemRef2D;

static void report(const char *what) {
  fprintf(stderr, "%s: error %d count %d: %s\n", what, llmcCudaGetLastError(),
          llmcCudaGetErrorCount(), llmcCudaGetLastErrorMessage());
  llmcCudaClearError();
}

int main(void) {
  // CHECK: device 0, init 0
  int device = llmcCudaGetDevice();
  int init = llmcCudaInit();
  fprintf(stderr, "device %d, init %d\n", device, init);

  // CHECK: fake-cuda: cuModuleLoadDataEx(PTX, 3 options)
  // CHECK-NEXT: fake-cuda: cuModuleGetFunction(k)
  void *module = mgpuModuleLoadJIT("// PTX\n", 3);
  void *kernel = mgpuModuleGetFunction(module, "k");

  // A destroyed stream or event is kept and handed out by the next create
  // (no driver call either way).
  // CHECK-NEXT: fake-cuda: cuStreamCreate(1)
  // CHECK-NEXT: fake-cuda: cuEventCreate(2)
  // CHECK-NEXT: fake-cuda: cuEventRecord
  // CHECK-NEXT: fake-cuda: cuStreamWaitEvent
  // CHECK-NEXT: fake-cuda: cuEventSynchronize
  // CHECK-NEXT: pooled: stream 1, event 1
  void *stream = mgpuStreamCreate();
  void *event = mgpuEventCreate();
  mgpuEventRecord(event, stream);
  mgpuStreamWaitEvent(stream, event);
  mgpuEventSynchronize(event);
  mgpuEventDestroy(event);
  mgpuStreamDestroy(stream);
  void *pooledStream = mgpuStreamCreate();
  void *pooledEvent = mgpuEventCreate();
  fprintf(stderr, "pooled: stream %d, event %d\n", pooledStream == stream,
          pooledEvent == event);
  mgpuEventDestroy(pooledEvent);
  stream = pooledStream;

  // host_shared memory is managed; 0 bytes allocate nothing.
  // CHECK-NEXT: fake-cuda: cuMemAllocManaged(100, 1)
  // CHECK-NEXT: fake-cuda: cuMemsetD16Async(0x3c00, 8)
  // CHECK-NEXT: fake-cuda: cuStreamSynchronize
  // CHECK-NEXT: fake-cuda: cuMemFree
  // CHECK-NEXT: zero bytes: (nil)
  void *shared = mgpuMemAlloc(100, stream, 1);
  mgpuMemset16(shared, 0x3c00, 8, stream);
  mgpuMemFree(shared, stream);
  fprintf(stderr, "zero bytes: %p\n", mgpuMemAlloc(0, stream, 0));

  // A freed device buffer is kept (after its stream's work) and handed out
  // again for the same size; llmcCudaReleaseCachedMemory returns it.
  // CHECK-NEXT: fake-cuda: cuMemAlloc(256)
  // CHECK-NEXT: fake-cuda: cuStreamSynchronize
  // CHECK-NEXT: reused: 1
  // CHECK-NEXT: fake-cuda: cuStreamSynchronize
  // CHECK-NEXT: fake-cuda: cuMemAlloc(512)
  // CHECK-NEXT: fake-cuda: cuStreamSynchronize
  // CHECK-NEXT: fake-cuda: cuMemFree
  // CHECK-NEXT: fake-cuda: cuMemFree
  // CHECK-NEXT: released 2
  void *first = mgpuMemAlloc(256, stream, 0);
  mgpuMemFree(first, stream);
  void *again = mgpuMemAlloc(256, stream, 0);
  fprintf(stderr, "reused: %d\n", first == again);
  mgpuMemFree(again, stream);
  mgpuMemFree(mgpuMemAlloc(512, stream, 0), stream);
  fprintf(stderr, "released %d\n", llmcCudaReleaseCachedMemory());
  // Freeing a buffer twice is an error (the idle buffer is not freed, nor
  // handed out twice).
  // CHECK-NEXT: fake-cuda: cuMemAlloc(64)
  // CHECK-NEXT: fake-cuda: cuStreamSynchronize
  // CHECK-NEXT: llmc CUDA runtime: mgpuMemFree: the buffer {{.*}} was freed already
  // CHECK-NEXT: twice: error -2 count 1
  void *twice = mgpuMemAlloc(64, stream, 0);
  mgpuMemFree(twice, stream);
  mgpuMemFree(twice, stream);
  report("twice");

  // A 3x4 view at offset 2 of a dense buffer: 48 bytes registered.
  // CHECK-NEXT: fake-cuda: cuMemHostRegister(48, 0)
  // CHECK-NEXT: fake-cuda: cuMemHostUnregister
  float data[16];
  MemRef2D dense = {data, data, 2, {3, 4}, {4, 1}};
  mgpuMemHostRegisterMemRef(2, &dense, 4);
  mgpuMemHostUnregisterMemRef(2, &dense, 4);

  // A strided view is refused; the error is sticky until cleared.
  // CHECK-NEXT: llmc CUDA runtime: mgpuMemHostRegisterMemRef: the memref is not dense (dimension 0 has stride 8, expected 4)
  // CHECK-NEXT: skipped: (nil)
  // CHECK-NEXT: strided: error -2 count 1: llmc CUDA runtime: mgpuMemHostRegisterMemRef: the memref is not dense
  MemRef2D strided = {data, data, 0, {2, 4}, {8, 1}};
  mgpuMemHostRegisterMemRef(2, &strided, 4);
  fprintf(stderr, "skipped: %p\n", mgpuStreamCreate());
  report("strided");

  // Dynamic shared memory above 48 KiB is allowed first; above the device's
  // opt-in maximum (163 KiB on the fake sm_80) it is an error. An empty grid
  // launches nothing; a zero block is an error.
  // CHECK-NEXT: fake-cuda: cuFuncSetAttribute(8, 65536)
  // CHECK-NEXT: fake-cuda: cuLaunchKernel(grid 2,3,4 block 32,4,1 smem 65536)
  // CHECK-NEXT: llmc CUDA runtime: mgpuLaunchKernel: the kernel needs 200000 bytes of dynamic shared memory, device 0 allows at most 166912
  // CHECK-NEXT: smem: error -2 count 1
  // CHECK-NEXT: llmc CUDA runtime: mgpuLaunchKernel: invalid block dimension 0
  // CHECK-NEXT: block: error -2
  mgpuLaunchKernel(kernel, 2, 3, 4, 32, 4, 1, 65536, stream, 0, 0, 0);
  mgpuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 200000, stream, 0, 0, 0);
  report("smem");
  mgpuLaunchKernel(kernel, 0, 1, 1, 32, 1, 1, 0, stream, 0, 0, 0);
  mgpuLaunchKernel(kernel, 1, 1, 1, 0, 1, 1, 0, stream, 0, 0, 0);
  report("block");

  // Functions of CUDA 12 drivers that this (fake) driver lacks.
  // CHECK-NEXT: llmc CUDA runtime: mgpuLaunchClusterKernel: the CUDA driver lacks cuLaunchKernelEx (CUDA 12 or newer needed)
  // CHECK-NEXT: cluster: error -1
  // CHECK-NEXT: llmc CUDA runtime: mgpuTensorMapEncodeTiledMemref: the CUDA driver lacks cuTensorMapEncodeTiled (CUDA 12 or newer needed)
  // CHECK-NEXT: tma: error -1
  mgpuLaunchClusterKernel(kernel, 2, 1, 1, 4, 1, 1, 128, 1, 1, 0, stream, 0, 0);
  report("cluster");
  int64_t box[2] = {64, 64};
  mgpuTensorMapEncodeTiledMemref(2, &dense, 7, 0, 0, 0, 0, box);
  report("tma");

  // The device cannot change after initialization.
  // CHECK-NEXT: llmc CUDA runtime: mgpuSetDefaultDevice(1): the runtime already uses device 0 (select the device before the first GPU call)
  mgpuSetDefaultDevice(0);
  mgpuSetDefaultDevice(1);
  report("device");

  // (The destroyed stream stays in the pool: no cuStreamDestroy.)
  // CHECK-NEXT: device: error -2
  // CHECK-NEXT: fake-cuda: cuModuleUnload
  // CHECK-NEXT: fake-cuda: cuCtxSynchronize
  // CHECK-NEXT: done 0
  mgpuStreamDestroy(stream);
  extern void mgpuModuleUnload(void *);
  mgpuModuleUnload(module);
  fprintf(stderr, "done %d\n", llmcCudaSynchronize());
  return 0;
}
