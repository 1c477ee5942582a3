//===- CUDAExecutable.cpp - Stand-alone CUDA programs of a model ----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/CUDAExecutable.h"
#include "llm/Runtime/Npy.h"
#include "llm/Support/LibraryPaths.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::runtime;

/// The runner's fixed part: .npy reading and writing, inputs, timing.
static constexpr llvm::StringLiteral kRunnerPrologue = R"C(
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int llmcCudaGetLastError(void);
const char *llmcCudaGetLastErrorMessage(void);
int llmcCudaSynchronize(void);
int llmcCudaGetNcclUniqueId(void *uniqueId);
int llmcCudaInitTensorParallel(const void *uniqueId, int ranks, int rank);
int llmcCudaFinishTensorParallel(void);
void *mgpuStreamCreate(void);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamDestroy(void *stream);
void *mgpuMemAlloc(uint64_t bytes, void *stream, _Bool hostShared);
void mgpuMemFree(void *pointer, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream);

typedef struct {
  const char *descr; /* numpy descr */
  int kind;          /* 0 float, 1 int, 2 bool, 3 f16, 4 bf16 */
  int64_t elemBytes;
  int rank;
  int64_t shape[8];
  int64_t count;
} Spec;

static void die(const char *msg, const char *arg) {
  fprintf(stderr, "error: %s%s\n", msg, arg ? arg : "");
  exit(1);
}

/* The run-time index checks' status (a model without checks has none):
   {check number, index, size, 0}, zero until a check fails. */
extern int64_t __llmc_status[4] __attribute__((weak));

static void resetIndexStatus(void) {
  if (__llmc_status)
    memset(__llmc_status, 0, 4 * sizeof(int64_t));
}

static void checkIndexStatus(void) {
  if (!__llmc_status || __llmc_status[0] == 0)
    return;
  fprintf(stderr,
          "error: run-time index check #%lld failed: index %lld is out of "
          "range [%lld, %lld) (the outputs of this call are not valid)\n",
          (long long)__llmc_status[0], (long long)__llmc_status[1],
          -(long long)__llmc_status[2], (long long)__llmc_status[2]);
  exit(1);
}

static void shapeString(const Spec *spec, char *out) {
  strcpy(out, "(");
  for (int i = 0; i < spec->rank; ++i) {
    char dim[32];
    snprintf(dim, sizeof dim, "%lld%s", (long long)spec->shape[i],
             spec->rank == 1 ? "," : (i + 1 < spec->rank ? ", " : ""));
    strcat(out, dim);
  }
  strcat(out, ")");
}

/* Reads PATH, a C-order .npy file whose descr and shape must be SPEC's. */
static void *readNpy(const char *path, const Spec *spec) {
  FILE *f = fopen(path, "rb");
  if (!f)
    die("cannot open ", path);
  unsigned char magic[10];
  if (fread(magic, 1, 10, f) != 10 || memcmp(magic, "\x93NUMPY", 6) != 0)
    die("not a .npy file: ", path);
  size_t headerLen = magic[8] | (magic[9] << 8);
  if (magic[6] >= 2) {
    unsigned char more[2];
    if (fread(more, 1, 2, f) != 2)
      die("truncated .npy header: ", path);
    headerLen |= ((size_t)more[0] << 16) | ((size_t)more[1] << 24);
  }
  char *header = (char *)calloc(headerLen + 1, 1);
  if (fread(header, 1, headerLen, f) != headerLen)
    die("truncated .npy header: ", path);
  char expect[256];
  snprintf(expect, sizeof expect, "'descr': '%s'", spec->descr);
  if (!strstr(header, expect)) {
    fprintf(stderr, "error: %s: expected element type '%s'\n", path,
            spec->descr);
    exit(1);
  }
  if (strstr(header, "'fortran_order': True"))
    die("Fortran-order arrays are not supported: ", path);
  /* numpy's spelling: (), (4,), (2, 3) */
  char shape[256];
  shapeString(spec, shape);
  const char *found = strstr(header, "'shape': ");
  if (!found || strncmp(found + 9, shape, strlen(shape)) != 0) {
    fprintf(stderr, "error: %s: expected shape %s\n", path, shape);
    exit(1);
  }
  void *data = malloc((size_t)(spec->count * spec->elemBytes) + 1);
  if (fread(data, (size_t)spec->elemBytes, (size_t)spec->count, f) !=
      (size_t)spec->count)
    die("truncated data in ", path);
  fclose(f);
  free(header);
  return data;
}

static void writeNpy(const char *path, const Spec *spec, const void *data) {
  char header[512], shape[256];
  shapeString(spec, shape);
  int len = snprintf(header, sizeof header,
                     "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     spec->descr, shape);
  int total = 10 + len + 1;
  int pad = (64 - total % 64) % 64;
  FILE *f = fopen(path, "wb");
  if (!f)
    die("cannot write ", path);
  unsigned short hl = (unsigned short)(len + pad + 1);
  fwrite("\x93NUMPY\x01\x00", 1, 8, f);
  fputc(hl & 0xff, f);
  fputc(hl >> 8, f);
  fwrite(header, 1, (size_t)len, f);
  for (int i = 0; i < pad; ++i)
    fputc(' ', f);
  fputc('\n', f);
  if (fwrite(data, (size_t)spec->elemBytes, (size_t)spec->count, f) !=
          (size_t)spec->count ||
      fclose(f) != 0)
    die("cannot write ", path);
}

static uint64_t rngState;
static double nextUniform(void) {
  rngState = rngState * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rngState >> 11) / 9007199254740992.0;
}

static float halfToFloat(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31,
           man = h & 1023, bits;
  if (exp == 0) {
    float v = (float)man / 1024.0f / 16384.0f;
    return sign ? -v : v;
  }
  bits = sign | ((exp == 31 ? 255 : exp - 15 + 127) << 23) | (man << 13);
  float v;
  memcpy(&v, &bits, 4);
  return v;
}

/* Seeded inputs: floats uniform in [-1, 1), integers in [0, 16), i1 0/1. */
static void *generate(const Spec *spec) {
  unsigned char *data = (unsigned char *)malloc((size_t)(spec->count *
                                                         spec->elemBytes) + 1);
  for (int64_t i = 0; i < spec->count; ++i) {
    double u = nextUniform();
    unsigned char *p = data + i * spec->elemBytes;
    if (spec->kind == 0 && spec->elemBytes == 4) {
      float v = (float)(2 * u - 1);
      memcpy(p, &v, 4);
    } else if (spec->kind == 0) {
      double v = 2 * u - 1;
      memcpy(p, &v, 8);
    } else if (spec->kind == 3) {
      uint16_t h = (uint16_t)(0x3c00 - (uint16_t)(u * 1024)); /* (0, 1] */
      memcpy(p, &h, 2);
    } else if (spec->kind == 4) {
      float v = (float)(2 * u - 1);
      uint32_t bits;
      memcpy(&bits, &v, 4);
      uint16_t h = (uint16_t)(bits >> 16); /* truncated to bf16 */
      memcpy(p, &h, 2);
    } else if (spec->kind == 2) {
      *p = u < 0.5;
    } else {
      int64_t v = (int64_t)(u * 16);
      memcpy(p, &v, (size_t)spec->elemBytes); /* little endian */
    }
  }
  return data;
}

static double sum(const Spec *spec, const void *data) {
  double s = 0;
  const unsigned char *p = (const unsigned char *)data;
  for (int64_t i = 0; i < spec->count; ++i, p += spec->elemBytes) {
    if (spec->kind == 0 && spec->elemBytes == 4) {
      float v;
      memcpy(&v, p, 4);
      s += v;
    } else if (spec->kind == 0) {
      double v;
      memcpy(&v, p, 8);
      s += v;
    } else if (spec->kind == 3) {
      uint16_t h;
      memcpy(&h, p, 2);
      s += halfToFloat(h);
    } else if (spec->kind == 4) {
      uint16_t h;
      memcpy(&h, p, 2);
      uint32_t bits = (uint32_t)h << 16;
      float v;
      memcpy(&v, &bits, 4);
      s += v;
    } else if (spec->kind == 2 || spec->elemBytes == 1) {
      s += (signed char)*p;
    } else if (spec->elemBytes == 4) {
      int32_t v;
      memcpy(&v, p, 4);
      s += v;
    } else {
      int64_t v;
      memcpy(&v, p, 8);
      s += (double)v;
    }
  }
  return s;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int compareDoubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* A tensor-parallel program: rank RANK of RANKS joins the job's NCCL
   communicator. The NCCL id goes through the file $LLMC_NCCL_ID_FILE, which
   must not exist when the job starts: rank 0 writes it (a new temporary file
   beside it, renamed into place); the others wait for it (5 minutes at most)
   and refuse anything but a regular file of one id. The file stays: a later
   job needs a path of its own (its rank 0 refuses this one). */
static void joinJob(int rank, int ranks) {
  const char *path = getenv("LLMC_NCCL_ID_FILE");
  if (!path || !*path)
    die("a rank of a tensor-parallel program needs LLMC_NCCL_ID_FILE, a "
        "path shared by the ranks that does not exist yet", 0);
  char id[128];
  struct stat st;
  if (rank == 0) {
    if (lstat(path, &st) == 0)
      die("LLMC_NCCL_ID_FILE exists already (from an earlier job?): ", path);
    if (llmcCudaGetNcclUniqueId(id) != 0)
      exit(1);
    char temp[4096];
    if (snprintf(temp, sizeof temp, "%s.XXXXXX", path) >= (int)sizeof temp)
      die("LLMC_NCCL_ID_FILE is too long: ", path);
    int fd = mkstemp(temp);
    if (fd < 0)
      die("cannot create a temporary file beside LLMC_NCCL_ID_FILE ", path);
    if (write(fd, id, sizeof id) != (ssize_t)sizeof id || close(fd) != 0 ||
        rename(temp, path) != 0) {
      unlink(temp);
      die("cannot write LLMC_NCCL_ID_FILE ", path);
    }
  } else {
    double start = now();
    int told = 0;
    for (;;) {
      if (lstat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode) || st.st_size != (off_t)sizeof id)
          die("LLMC_NCCL_ID_FILE is not a file of one NCCL id (128 bytes): ",
              path);
        FILE *f = fopen(path, "rb");
        size_t n = f ? fread(id, 1, sizeof id, f) : 0;
        if (f)
          fclose(f);
        if (n != sizeof id)
          die("cannot read LLMC_NCCL_ID_FILE ", path);
        break;
      }
      if (now() - start > 300e3)
        die("no NCCL id from rank 0 in 5 minutes in ", path);
      if (!told && now() - start > 10e3) {
        fprintf(stderr, "rank %d: waiting for rank 0's NCCL id in %s\n", rank,
                path);
        told = 1;
      }
      struct timespec pause = {0, 10 * 1000 * 1000};
      nanosleep(&pause, 0);
    }
  }
  if (llmcCudaInitTensorParallel(id, ranks, rank) != 0)
    exit(1);
}
)C";

/// numpy descr and kind (see the runner's Spec) of `dtype`.
static llvm::Expected<std::pair<const char *, int>> getRunnerType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return std::make_pair("<f4", 0);
  case DType::F64:
    return std::make_pair("<f8", 0);
  case DType::F16:
    return std::make_pair("<f2", 3);
  case DType::I1:
    return std::make_pair("|b1", 2);
  case DType::I8:
    return std::make_pair("|i1", 1);
  case DType::I32:
    return std::make_pair("<i4", 1);
  case DType::I64:
    return std::make_pair("<i8", 1);
  case DType::BF16:
    // numpy has no bf16: its bit patterns, as uint16 (what
    // `ml_dtypes.bfloat16` arrays give with `.view(np.uint16)`).
    return std::make_pair("<u2", 4);
  }
  llvm_unreachable("unknown dtype");
}

llvm::Expected<std::string>
mlir::llm::runtime::generateCUDARunner(const EntrySignature &signature,
                                       int64_t tensorParallel, int64_t rank) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "/* Runner of " << signature.name
     << " generated by llmc compile --target cuda --emit=exe. */\n"
     << kRunnerPrologue;
  SmallVector<TensorSpec> all(signature.inputs);
  all.append(signature.results.begin(), signature.results.end());
  size_t numInputs = signature.inputs.size();
  // One descriptor type per argument: {allocated, aligned, offset,
  // sizes[R], strides[R]} (MLIR's C interface).
  for (auto [k, spec] : llvm::enumerate(all)) {
    if (spec.isDynamic())
      return llvm::createStringError(
          "--emit=exe: the entry has a dynamic dimension (" + spec.str() +
          "); give fixed sizes");
    if (spec.shape.size() > 8)
      return llvm::createStringError("--emit=exe: rank above 8 in " +
                                     spec.str());
    os << "typedef struct { void *allocated, *aligned; int64_t offset;";
    if (!spec.shape.empty())
      os << " int64_t sizes[" << spec.shape.size() << "], strides["
         << spec.shape.size() << "];";
    os << " } Desc" << k << ";\n";
  }
  for (const char *suffix : {"_host", ""}) {
    os << "void _mlir_ciface_" << signature.name << suffix << "(";
    for (size_t k = 0; k < all.size(); ++k)
      os << (k ? ", " : "") << "Desc" << k << " *";
    os << ");\n";
  }
  os << "\n";
  os << "static Spec specs[" << all.size() << "] = {\n";
  for (const TensorSpec &spec : all) {
    llvm::Expected<std::pair<const char *, int>> type =
        getRunnerType(spec.dtype);
    if (!type)
      return type.takeError();
    os << "  {\"" << type->first << "\", " << type->second << ", "
       << getDTypeSize(spec.dtype) << ", " << spec.shape.size() << ", {";
    for (int64_t d : spec.shape)
      os << d << ", ";
    os << "}, " << spec.getNumElements() << "},\n";
  }
  os << "};\n\n";
  os << llvm::formatv(R"C(
int main(int argc, char **argv) {
  const int numInputs = {0}, numAll = {1};
  int repeat = 1;
  const char *outDir = 0;
  const char *files[{1} + 1];
  int numFiles = 0;
  rngState = 0;
  for (int i = 1; i < argc; ++i) {{
    if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--output-dir") && i + 1 < argc)
      outDir = argv[++i];
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      rngState = strtoull(argv[++i], 0, 10);
    else if (argv[i][0] == '-')
      die("usage: model [--repeat N] [--output-dir DIR] [--seed S] "
          "[INPUT.npy ...]; unknown option ", argv[i]);
    else if (numFiles < numInputs)
      files[numFiles++] = argv[i];
    else
      die("too many inputs: ", argv[i]);
  }
  if (numFiles != 0 && numFiles != numInputs)
    die("give every input (or none, for seeded inputs)", 0);
  if (repeat < 1)
    die("--repeat must be at least 1", 0);
  if ({2} > 1)
    joinJob({3}, {2});
  void *data[{1}];
  for (int k = 0; k < numAll; ++k) {{
    if (k < numInputs)
      data[k] = numFiles ? readNpy(files[k], &specs[k]) : generate(&specs[k]);
    else
      data[k] = calloc((size_t)(specs[k].count * specs[k].elemBytes) + 1, 1);
  }
)C",
                      numInputs, all.size(), tensorParallel, rank);
  for (auto [k, spec] : llvm::enumerate(all)) {
    os << "  Desc" << k << " d" << k << " = {data[" << k << "], data[" << k
       << "], 0";
    if (!spec.shape.empty()) {
      os << ", {";
      for (int64_t d : spec.shape)
        os << d << ", ";
      os << "}, {";
      int64_t stride = 1;
      SmallVector<int64_t> strides(spec.shape.size());
      for (int i = static_cast<int>(spec.shape.size()) - 1; i >= 0; --i) {
        strides[i] = stride;
        stride *= spec.shape[i];
      }
      for (int64_t s : strides)
        os << s << ", ";
      os << "}";
    }
    os << "};\n";
  }
  // Descriptors of the device copies.
  std::string deviceDescs;
  llvm::raw_string_ostream ds(deviceDescs);
  for (size_t k = 0; k < all.size(); ++k)
    ds << "  Desc" << k << " e" << k << " = d" << k << ";\n  e" << k
       << ".allocated = e" << k << ".aligned = device[" << k << "];\n";
  std::string deviceCall;
  llvm::raw_string_ostream dcs(deviceCall);
  dcs << "_mlir_ciface_" << signature.name << "(";
  for (size_t k = 0; k < all.size(); ++k)
    dcs << (k ? ", " : "") << "&e" << k;
  dcs << ")";
  std::string call;
  llvm::raw_string_ostream cs(call);
  cs << "_mlir_ciface_" << signature.name << "_host(";
  for (size_t k = 0; k < all.size(); ++k)
    cs << (k ? ", " : "") << "&d" << k;
  cs << ")";
  os << llvm::formatv(R"C(
  double *times = (double *)malloc(sizeof(double) * (size_t)repeat);
  for (int r = -1; r < repeat; ++r) {{
    resetIndexStatus();
    double start = now();
    {0};
    if (llmcCudaSynchronize() != 0 || llmcCudaGetLastError() != 0) {{
      /* The runtime printed the CUDA error. */
      fprintf(stderr, "error: the model failed on the GPU (CUDA error %d)\n",
              llmcCudaGetLastError());
      return 1;
    }
    checkIndexStatus();
    if (r >= 0)
      times[r] = now() - start;
  }
  qsort(times, (size_t)repeat, sizeof(double), compareDoubles);
  /* The entry on device buffers (inputs copied once): the kernels' time. */
  void *stream = mgpuStreamCreate();
  void *device[{1}];
  for (int k = 0; k < numAll; ++k) {{
    size_t bytes = (size_t)(specs[k].count * specs[k].elemBytes);
    device[k] = mgpuMemAlloc(bytes ? bytes : 1, stream, 0);
    if (k < numInputs && bytes)
      mgpuMemcpy(device[k], data[k], bytes, stream);
  }
  mgpuStreamSynchronize(stream);
{2}
  double *deviceTimes = (double *)malloc(sizeof(double) * (size_t)repeat);
  for (int r = -1; r < repeat; ++r) {{
    resetIndexStatus();
    double start = now();
    {3};
    if (llmcCudaSynchronize() != 0 || llmcCudaGetLastError() != 0) {{
      fprintf(stderr, "error: the model failed on the GPU (CUDA error %d)\n",
              llmcCudaGetLastError());
      return 1;
    }
    checkIndexStatus();
    if (r >= 0)
      deviceTimes[r] = now() - start;
  }
  qsort(deviceTimes, (size_t)repeat, sizeof(double), compareDoubles);
  for (int k = 0; k < numAll; ++k)
    mgpuMemFree(device[k], stream);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  if (outDir && mkdir(outDir, 0777) != 0 && errno != EEXIST)
    die("cannot create the output directory ", outDir);
  for (int k = numInputs; k < numAll; ++k) {{
    printf("out%d: sum=%.6g\n", k - numInputs, sum(&specs[k], data[k]));
    if (outDir) {{
      char path[4096];
      snprintf(path, sizeof path, "%s/out%d.npy", outDir, k - numInputs);
      writeNpy(path, &specs[k], data[k]);
    }
  }
  printf("time: median %.4f ms, min %.4f ms (%d runs after 1 warm-up, "
         "copies to and from the device included)\n",
         times[repeat / 2], times[0], repeat);
  printf("device time: median %.4f ms, min %.4f ms (the entry on device "
         "buffers)\n",
         deviceTimes[repeat / 2], deviceTimes[0]);
  return llmcCudaFinishTensorParallel() != 0;
}
)C",
                      call, all.size(), deviceDescs, deviceCall);
  return text;
}

llvm::Error mlir::llm::runtime::linkCUDAProgram(llvm::StringRef objectPath,
                                                llvm::StringRef runnerSource,
                                                bool shared,
                                                llvm::StringRef outputPath) {
#ifndef LLMC_CUDA_RUNTIME_STATIC
  return llvm::createStringError(
      "--emit=exe and --emit=shared need llmc's CUDA runtime, which is built "
      "only when CMake finds the CUDA toolkit");
#else
  llvm::ErrorOr<std::string> cc = llvm::sys::findProgramByName("cc");
  if (!cc)
    cc = llvm::sys::findProgramByName("clang");
  if (!cc)
    cc = llvm::sys::findProgramByName("gcc");
  if (!cc)
    return llvm::createStringError(
        "--emit=exe/shared: no C compiler (cc, clang or gcc) on $PATH to link "
        "with");
  SmallVector<std::string> args = {*cc, "-O2", "-o", outputPath.str()};
  llvm::SmallString<128> runner;
  llvm::scope_exit removeRunner([&] {
    if (!runner.empty())
      llvm::sys::fs::remove(runner);
  });
  if (shared) {
    args.push_back("-shared");
  } else {
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("llmc-runner", "c", runner))
      return llvm::errorCodeToError(ec);
    std::error_code ec;
    llvm::raw_fd_ostream os(runner, ec);
    if (ec)
      return llvm::errorCodeToError(ec);
    os << runnerSource;
    os.close();
    args.push_back(runner.str().str());
  }
  args.push_back(objectPath.str());
  // llmc's CUDA runtime as an archive: beside the installed binary, else
  // this build's.
  args.push_back(findLibrary("libllmc_cuda_runtime_static.a",
                             reinterpret_cast<const void *>(&linkCUDAProgram),
                             LLMC_CUDA_RUNTIME_STATIC));
  for (const char *lib : {"-ldl", "-lpthread", "-lm", "-lstdc++"})
    args.push_back(lib);
  SmallVector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(argRefs[0], argRefs, std::nullopt, {}, 0,
                                     0, &message);
  if (rc != 0)
    return llvm::createStringError(
        llvm::formatv("linking with '{0}' failed (exit {1}){2}{3}", *cc, rc,
                      message.empty() ? "" : ": ", message)
            .str());
  return llvm::Error::success();
#endif
}
