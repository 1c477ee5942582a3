//===- onnx-import-fuzzer.cpp - libFuzzer target: the ONNX importer -------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Feeds each input, as the bytes of a .onnx file, to the ONNX importer
// (`llmc import`): protobuf parsing, the model checks (names, attribute
// types), ONNX shape inference, constant folding and the import into the llm
// dialect; an imported module must verify. Errors are expected and ignored;
// a crash, an ASan/UBSan report, a hang (libFuzzer's -timeout), an imported
// module that does not verify, or an imported weight holding bytes of a file
// outside the model's directory is a finding.
//
// External data resolves against a private model directory made at start-up
// (LLVMFuzzerInitialize), next to a "secret" file outside it:
//   MODEL/w.bin        4 KiB of weights        (readable)
//   MODEL/in.bin       -> w.bin                (a link that stays inside)
//   MODEL/out.bin      -> ../secret.bin        (a link that leads outside)
//   MODEL/outdir       -> ..                   (a directory link outside)
//   MODEL/fifo.bin     a FIFO                  (opening it would block)
//   MODEL/dev.bin      a private /dev/zero     (mknod, when allowed)
//   MODEL/sub/         a directory
//   secret.bin         4 KiB of the marker LLMCLEAK
// test/lib/onnx_models/make_bad_model.py writes seeds that use these names
// (external_file:LOCATION); the structured mutations below pick them too.
//
// Half of the mutations are structure-aware (LLVMFuzzerCustomMutator): the
// input is parsed as a ModelProto and one of the classes of issue 23 is
// applied (attribute types, duplicate names, integer folding at the edges
// of int64, external-data paths), then serialized; the other half are
// libFuzzer's byte mutations. Seeds: the ONNX backend node tests
// (/usr/share/libonnx-testdata/data/node/*/model.onnx) and the bad-input
// models of make_bad_model.py (scripts/fuzz.sh).
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Target/ONNX/ImportONNX.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBufferRef.h"

#include "onnx/onnx_pb.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

using namespace mlir;

/// Largest input accepted (bytes).
static constexpr size_t kMaxInputSize = 64 * 1024;

/// The bytes of the file outside the model's directory.
static const char kMarker[] = "LLMCLEAK";

/// The model's directory (external data resolves here).
static std::string modelDir = "/nonexistent-llmc-fuzz-dir";

static void writeFile(const std::string &path, const std::string &bytes) {
  if (FILE *f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
}

/// The directory made at start-up, removed at exit (not after a crash).
static std::string fuzzRoot;

static void removeFuzzRoot() {
  if (fuzzRoot.empty())
    return;
  for (const char *name :
       {"model/w.bin", "model/in.bin", "model/out.bin", "model/outdir",
        "model/fifo.bin", "model/dev.bin", "secret.bin"})
    unlink((fuzzRoot + "/" + name).c_str());
  rmdir((fuzzRoot + "/model/sub").c_str());
  rmdir((fuzzRoot + "/model").c_str());
  rmdir(fuzzRoot.c_str());
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  char tmpl[] = "/tmp/llmc-onnx-fuzz.XXXXXX";
  if (!mkdtemp(tmpl))
    return 0;
  std::string root = tmpl, dir = root + "/model";
  fuzzRoot = root;
  std::atexit(removeFuzzRoot);
  if (mkdir(dir.c_str(), 0755) != 0)
    return 0;
  std::string secret;
  for (int i = 0; i < 512; ++i)
    secret += kMarker;
  writeFile(root + "/secret.bin", secret);
  std::string weights(4096, '\0');
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] = static_cast<char>(i * 7 + 1);
  writeFile(dir + "/w.bin", weights);
  // Failures are harmless: the entry is then missing, also a case.
  (void)!symlink("w.bin", (dir + "/in.bin").c_str());
  (void)!symlink("../secret.bin", (dir + "/out.bin").c_str());
  (void)!symlink("..", (dir + "/outdir").c_str());
  (void)!mkfifo((dir + "/fifo.bin").c_str(), 0644);
  (void)!mknod((dir + "/dev.bin").c_str(), S_IFCHR | 0644, makedev(1, 5));
  (void)!mkdir((dir + "/sub").c_str(), 0755);
  modelDir = dir;
  return 0;
}

/// Whether `bytes` hold the marker of the outside file.
static bool hasMarker(StringRef bytes) {
  return bytes.contains(StringRef(kMarker, sizeof(kMarker) - 1));
}

/// Whether an imported constant holds bytes of the file outside the model's
/// directory. The input itself may spell the marker (libFuzzer learns the
/// compared bytes): only a marker the input does not contain counts.
static bool leaksOutsideData(ModuleOp module, StringRef input) {
  if (hasMarker(input))
    return false;
  bool leak = false;
  module.walk([&](Operation *op) {
    for (NamedAttribute a : op->getAttrs()) {
      if (auto r = dyn_cast<DenseResourceElementsAttr>(a.getValue())) {
        if (AsmResourceBlob *blob = r.getRawHandle().getBlob())
          leak |= hasMarker(StringRef(blob->getData().data(),
                                      blob->getData().size()));
      } else if (auto d = dyn_cast<DenseElementsAttr>(a.getValue())) {
        leak |= hasMarker(
            StringRef(d.getRawData().data(), d.getRawData().size()));
      }
    }
  });
  return leak;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputSize)
    return -1;
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    registerAllDialects(*r);
    r->insert<llm::LLMDialect>();
    return r;
  }();
  MLIRContext ctx(*registry, MLIRContext::Threading::DISABLED);
  ctx.printOpOnDiagnostic(false);
  ScopedDiagnosticHandler silence(&ctx, [](Diagnostic &) { return success(); });

  StringRef input(reinterpret_cast<const char *>(data), size);
  llvm::MemoryBufferRef buffer(input, "fuzz.onnx");
  OwningOpRef<ModuleOp> module =
      llm::importONNXModel(buffer, modelDir, &ctx, llm::ImportOptions());
  if (module && failed(verify(*module)))
    std::abort(); // The importer must produce valid IR or fail.
  if (module && leaksOutsideData(*module, input)) {
    std::fprintf(stderr, "onnx-import-fuzzer: an imported constant holds "
                         "bytes of a file outside the model's directory\n");
    std::abort();
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Structure-aware mutations
//===----------------------------------------------------------------------===//

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {
using onnx::AttributeProto;
using onnx::TensorProto;

struct Mutator {
  std::mt19937 &rng;
  onnx::ModelProto &model;

  size_t pick(size_t n) { return n ? rng() % n : 0; }
  template <typename T, size_t N> const T &pickFrom(const T (&a)[N]) {
    return a[pick(N)];
  }
  onnx::GraphProto &graph() { return *model.mutable_graph(); }

  /// Interesting integers: the edges of int64 and int32, 0, +-1.
  int64_t edgeInt() {
    static const int64_t values[] = {INT64_MIN, INT64_MIN + 1, -1, 0, 1, 2,
                                     INT64_MAX, INT64_MAX - 1, INT32_MIN,
                                     INT32_MAX, int64_t(1) << 32,
                                     int64_t(1) << 62, -(int64_t(1) << 62)};
    return pickFrom(values);
  }

  /// An attribute of a random type holding a random value of that type.
  void randomValue(AttributeProto &a) {
    static const int types[] = {
        AttributeProto::FLOAT,   AttributeProto::INT,    AttributeProto::STRING,
        AttributeProto::TENSOR,  AttributeProto::FLOATS, AttributeProto::INTS,
        AttributeProto::STRINGS, AttributeProto::UNDEFINED};
    std::string name = a.name();
    a.Clear();
    a.set_name(name);
    int t = pickFrom(types);
    // The declared type and the value's usually agree; sometimes not.
    int valueType = pick(4) ? t : pickFrom(types);
    if (t != AttributeProto::UNDEFINED)
      a.set_type(static_cast<AttributeProto::AttributeType>(t));
    switch (valueType) {
    case AttributeProto::FLOAT:
      a.set_f(pick(2) ? 1.7f : -0.0f);
      break;
    case AttributeProto::INT:
      a.set_i(edgeInt());
      break;
    case AttributeProto::STRING:
      a.set_s(pick(2) ? "2" : "hello");
      break;
    case AttributeProto::TENSOR: {
      TensorProto *v = a.mutable_t();
      v->set_data_type(TensorProto::INT64);
      v->add_dims(1);
      v->add_int64_data(edgeInt());
      break;
    }
    case AttributeProto::FLOATS:
      a.add_floats(0.5f);
      break;
    case AttributeProto::INTS:
      for (size_t i = 0, n = pick(4); i < n; ++i)
        a.add_ints(edgeInt());
      break;
    case AttributeProto::STRINGS:
      a.add_strings("x");
      break;
    default:
      break;
    }
  }

  /// Class 1: an attribute's type, value, name or multiplicity.
  void mutateAttribute() {
    if (graph().node_size() == 0)
      return;
    onnx::NodeProto &node = *graph().mutable_node(pick(graph().node_size()));
    static const char *names[] = {
        "alpha", "beta",  "axis",  "axes",        "perm",    "to",
        "keepdims", "fmod", "num_outputs", "split", "value", "epsilon",
        "transA", "transB", "upper", "allowzero", "start",   "end",
        "min",    "max",    "value_int", "value_ints", "select_last_index",
        "noop_with_empty_axes", "unknown_attr"};
    switch (pick(4)) {
    case 0: // A new attribute, named as some op's.
    {
      AttributeProto *a = node.add_attribute();
      a->set_name(pickFrom(names));
      randomValue(*a);
      break;
    }
    case 1: // Duplicated.
      if (node.attribute_size())
        *node.add_attribute() = node.attribute(pick(node.attribute_size()));
      break;
    default: // Another type or value.
      if (node.attribute_size())
        randomValue(*node.mutable_attribute(pick(node.attribute_size())));
      break;
    }
  }

  /// Class 2: a graph input, initializer, output or node output named like
  /// another value.
  void mutateNames() {
    onnx::GraphProto &g = graph();
    std::vector<std::string> names;
    for (const auto &vi : g.input())
      names.push_back(vi.name());
    for (const auto &t : g.initializer())
      names.push_back(t.name());
    for (const auto &n : g.node())
      for (const auto &o : n.output())
        names.push_back(o);
    if (names.empty())
      return;
    const std::string &name = names[pick(names.size())];
    switch (pick(5)) {
    case 0:
      if (g.input_size())
        *g.add_input() = g.input(pick(g.input_size()));
      break;
    case 1:
      if (g.initializer_size())
        *g.add_initializer() = g.initializer(pick(g.initializer_size()));
      break;
    case 2:
      if (g.output_size())
        *g.add_output() = g.output(pick(g.output_size()));
      break;
    case 3: // An input or initializer renamed (an initializer named like an
            // input is the input's default value: legal).
      if (g.input_size() && pick(2))
        g.mutable_input(pick(g.input_size()))->set_name(name);
      else if (g.initializer_size())
        g.mutable_initializer(pick(g.initializer_size()))->set_name(name);
      break;
    default:
      if (g.node_size()) {
        onnx::NodeProto &n = *g.mutable_node(pick(g.node_size()));
        if (n.output_size())
          n.set_output(pick(n.output_size()), name);
      }
      break;
    }
  }

  /// A Constant node `out` holding `n` edge integers of `dtype`.
  void addConstant(const std::string &out, int dtype, int n, bool scalar) {
    onnx::NodeProto &c = *graph().add_node();
    c.set_op_type("Constant");
    c.add_output(out);
    AttributeProto &a = *c.add_attribute();
    a.set_name("value");
    a.set_type(AttributeProto::TENSOR);
    TensorProto &t = *a.mutable_t();
    t.set_data_type(dtype);
    if (!scalar)
      t.add_dims(n);
    for (int i = 0; i < (scalar ? 1 : n); ++i) {
      int64_t v = edgeInt();
      if (dtype == TensorProto::INT64)
        t.add_int64_data(v);
      else
        t.add_int32_data(static_cast<int32_t>(v));
    }
  }

  /// Class 3: integer folding at the edges of int64 (Div(INT64_MIN, -1),
  /// division by zero, wrap-around, shape math that overflows): constants
  /// of edge values, the op consuming them, and its result a graph output.
  /// Existing int64 initializers get edge values too.
  void mutateIntegers() {
    onnx::GraphProto &g = graph();
    if (g.initializer_size() && pick(3) == 0) {
      TensorProto &t = *g.mutable_initializer(pick(g.initializer_size()));
      if (t.data_type() == TensorProto::INT64 && t.raw_data().size() >= 8) {
        int64_t v = edgeInt();
        size_t at = 8 * pick(t.raw_data().size() / 8);
        std::memcpy(&(*t.mutable_raw_data())[at], &v, 8);
        return;
      }
    }
    static const char *binary[] = {"Div", "Mod", "Mul", "Add", "Sub", "Pow",
                                   "Max", "Min"};
    static const char *unary[] = {"Neg", "Abs", "Relu", "Floor"};
    std::string id = std::to_string(rng() % 100000);
    int dtype = pick(4) ? TensorProto::INT64 : TensorProto::INT32;
    int n = 1 + pick(4);
    onnx::NodeProto node;
    switch (pick(4)) {
    case 0:
      addConstant("fa" + id, dtype, n, false);
      node.set_op_type(pickFrom(unary));
      node.add_input("fa" + id);
      break;
    case 1: // Range over edge bounds.
      addConstant("fa" + id, TensorProto::INT64, 1, true);
      addConstant("fb" + id, TensorProto::INT64, 1, true);
      addConstant("fc" + id, TensorProto::INT64, 1, true);
      node.set_op_type("Range");
      node.add_input("fa" + id);
      node.add_input("fb" + id);
      node.add_input("fc" + id);
      break;
    case 2: { // Slice of an existing input with edge starts/ends/steps.
      if (!g.input_size())
        return;
      addConstant("fa" + id, TensorProto::INT64, 1, false);
      addConstant("fb" + id, TensorProto::INT64, 1, false);
      addConstant("fc" + id, TensorProto::INT64, 1, false);
      addConstant("fd" + id, TensorProto::INT64, 1, false);
      node.set_op_type("Slice");
      node.add_input(g.input(pick(g.input_size())).name());
      for (const char *p : {"fa", "fb", "fc", "fd"})
        node.add_input(p + id);
      break;
    }
    default:
      addConstant("fa" + id, dtype, n, false);
      addConstant("fb" + id, dtype, pick(2) ? n : 1, false);
      node.set_op_type(pickFrom(binary));
      node.add_input("fa" + id);
      node.add_input("fb" + id);
      if (node.op_type() == "Mod" && pick(2)) {
        AttributeProto &a = *node.add_attribute();
        a.set_name("fmod");
        a.set_type(AttributeProto::INT);
        a.set_i(1);
      }
      break;
    }
    node.set_name("fold" + id);
    node.add_output("fy" + id);
    *g.add_node() = node;
    onnx::ValueInfoProto &out = *g.add_output();
    out.set_name("fy" + id);
    out.mutable_type()->mutable_tensor_type()->set_elem_type(
        node.op_type() == "Slice" ? TensorProto::FLOAT : dtype);
  }

  /// Class 4: an initializer's data moved to an external file: inside,
  /// through links that stay inside or lead outside, a FIFO, a device, a
  /// directory, a missing file, escaping paths; offsets and lengths at the
  /// edges.
  void mutateExternalData() {
    onnx::GraphProto &g = graph();
    TensorProto *t;
    if (g.initializer_size()) {
      t = g.mutable_initializer(pick(g.initializer_size()));
    } else {
      // y = Add(x, w) with a 4-float w, as make_bad_model.py builds.
      t = g.add_initializer();
      t->set_name("w");
      t->set_data_type(TensorProto::FLOAT);
      t->add_dims(4);
    }
    static const char *locations[] = {
        "w.bin",    "in.bin",    "out.bin",      "outdir/secret.bin",
        "fifo.bin", "dev.bin",   "sub",          "missing.bin",
        "../secret.bin", "/etc/passwd", "",      "sub/../w.bin",
        "outdir/model/w.bin", "./out.bin", "outdir/model/out.bin"};
    t->clear_raw_data();
    t->clear_float_data();
    t->clear_int64_data();
    t->clear_int32_data();
    t->clear_external_data();
    t->set_data_location(TensorProto::EXTERNAL);
    auto add = [&](const char *key, const std::string &value) {
      onnx::StringStringEntryProto &kv = *t->add_external_data();
      kv.set_key(key);
      kv.set_value(value);
    };
    add("location", pickFrom(locations));
    if (pick(2))
      add("offset", std::to_string(pick(2) ? int64_t(pick(64)) : edgeInt()));
    if (pick(2))
      add("length", std::to_string(pick(2) ? int64_t(4 * pick(64)) : edgeInt()));
  }
};
} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  std::mt19937 rng(seed);
  if (rng() % 2)
    return LLVMFuzzerMutate(data, size, maxSize);
  onnx::ModelProto model;
  if (size > static_cast<size_t>(INT32_MAX) ||
      !model.ParseFromArray(data, static_cast<int>(size)))
    return LLVMFuzzerMutate(data, size, maxSize);
  Mutator m{rng, model};
  switch (rng() % 4) {
  case 0:
    m.mutateAttribute();
    break;
  case 1:
    m.mutateNames();
    break;
  case 2:
    m.mutateIntegers();
    break;
  default:
    m.mutateExternalData();
    break;
  }
  std::string out;
  if (!model.SerializeToString(&out) || out.size() > maxSize)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}
