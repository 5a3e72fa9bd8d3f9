// problems/<name>/triton/abi.toml: every shipped one matches its problem's C interface (names,
// order, pointer element types), and a malformed one is an InputError naming the file and key.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "core/error.h"
#include "problems/registry.h"
#include "problems/triton_abi.h"
#include "support/temp_dir.h"

using namespace ptxbench;
namespace fs = std::filesystem;

namespace {

fs::path repo() { return PTXBENCH_SOURCE_DIR; }

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct CParam {
  std::string type, name;
};

// The entry's parameters from interface.h: "const __nv_bfloat16* A" -> {"const __nv_bfloat16*", "A"}.
std::vector<CParam> c_parameters(const ProblemSpec& p) {
  const std::string text = read(p.interface_header());
  std::smatch m;
  EXPECT_TRUE(std::regex_search(text, m, std::regex(p.entry + "\\s*\\(([^)]*)\\)"))) << p.name;
  std::vector<CParam> out;
  std::stringstream ss(m[1].str());
  for (std::string item; std::getline(ss, item, ',');) {
    item = std::regex_replace(item, std::regex("^\\s+|\\s+$"), "");
    std::smatch pm;
    EXPECT_TRUE(std::regex_match(item, pm, std::regex("(.*[\\s*])(\\w+)"))) << item;
    out.push_back({std::regex_replace(pm[1].str(), std::regex("\\s+$"), ""), pm[2].str()});
  }
  return out;
}

std::string dtype_of_c(const std::string& type) {
  if (type.find("__nv_bfloat16") != std::string::npos) return "bfloat16";
  if (type.find("__nv_fp8_e4m3") != std::string::npos) return "float8_e4m3fn";
  if (type.find("float") != std::string::npos) return "float32";
  if (type.find("void") != std::string::npos) return "uint8";
  return "?";
}

fs::path write_abi(const std::string& toml) {
  static const ptxbench::test::TempDir root("ptxbench-abi");  // removed when the test process ends
  const fs::path dir = root.path() / "gemm";
  fs::create_directories(dir / "triton");
  std::ofstream(dir / "triton" / "abi.toml") << toml;
  return dir;
}

}  // namespace

TEST(TritonAbi, EveryProblemHasOneMatchingItsCInterface) {
  ProblemRegistry registry(repo() / "problems");
  ASSERT_FALSE(registry.names().empty());
  for (const auto& name : registry.names()) {
    SCOPED_TRACE(name);
    const ProblemSpec p = registry.load(name);
    const auto abi = load_triton_abi(p);
    ASSERT_TRUE(abi.has_value()) << "problems/" << name << "/triton/abi.toml is missing";
    const auto c = c_parameters(p);
    ASSERT_EQ(c.size(), abi->arguments.size() + 1) << "the C entry has one more parameter: the stream";
    EXPECT_EQ(c.back().name, "stream");
    for (size_t i = 0; i < abi->arguments.size(); ++i) {
      const TritonArgument& a = abi->arguments[i];
      EXPECT_EQ(a.name, c[i].name) << "argument " << i;
      const bool pointer = c[i].type.find('*') != std::string::npos;
      EXPECT_EQ(a.is_buffer(), pointer) << a.name;
      if (pointer) {
        EXPECT_EQ(a.dtype, dtype_of_c(c[i].type)) << a.name;
        // Outputs are the non-const typed pointers; a void* is scratch (the workspace), never checked.
        const bool scratch = c[i].type.find("void") != std::string::npos;
        EXPECT_EQ(a.output, !scratch && c[i].type.find("const") == std::string::npos) << a.name;
      }
    }
    // Every shape the problem lists gives integers for every argument.
    for (const auto& s : p.benchmark_shapes) {
      const json args = abi->arguments_json(s);
      const json scalars = abi->scalar_values(s);
      for (const auto& a : args) {
        if (a.contains("shape")) {
          for (const auto& d : a["shape"]) EXPECT_GT(d.get<long long>(), 0);
        }
      }
      for (const auto& d : p.dims) {
        if (scalars.contains(d)) {
          EXPECT_EQ(scalars[d].get<long long>(), s.at(d));
        }
      }
    }
  }
}

TEST(TritonAbi, SignatureAndShapesForOneShape) {
  const ProblemSpec p = ProblemRegistry(repo() / "problems").load("mha_bwd");
  const auto abi = load_triton_abi(p);
  ASSERT_TRUE(abi);
  EXPECT_EQ(abi->signature(p.entry),
            "ptxbench_mha_bwd(Q, K, V, O, dO, LSE, dQ, dK, dV, B, H, S, D, workspace, workspace_bytes, stream)");
  const Shape s{{"B", 2}, {"H", 3}, {"S", 128}, {"D", 64}};
  const json scalars = abi->scalar_values(s);
  EXPECT_EQ(scalars["workspace_bytes"], 4 * 2 * 3 * 128 * 65);
  const json args = abi->arguments_json(s);
  EXPECT_EQ(args[5]["shape"], json::parse("[2, 3, 128]"));
  EXPECT_EQ(args[13]["shape"], json::parse("[199680]"));
}

TEST(TritonAbi, MalformedFilesAreInputErrorsNamingFileAndKey) {
  ProblemSpec p = ProblemRegistry(repo() / "problems").load("gemm");
  auto expect_error = [&](const std::string& toml, const std::string& needle) {
    p.dir = write_abi(toml);
    try {
      load_triton_abi(p);
      ADD_FAILURE() << "expected an InputError for: " << toml;
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("abi.toml"), std::string::npos) << what;
      EXPECT_NE(what.find(needle), std::string::npos) << what;
    }
  };
  expect_error("arguments = []\n", "arguments");
  expect_error("argument = [{ name = \"M\" }]\n", "unknown key");
  expect_error("arguments = [{ name = \"A\", dtype = \"float64\", shape = [\"M\"] }]\n", "dtype");
  expect_error("arguments = [{ name = \"A\", dtype = \"bfloat16\", shape = [\"M\", \"Q\"] }]\n", "shape[1]");
  expect_error("arguments = [{ name = \"A\", dtype = \"bfloat16\" }]\n", "shape");
  expect_error("arguments = [{ name = \"X\" }]\n", "neither one of the problem's dims");
  expect_error("arguments = [{ name = \"M\" }, { name = \"M\" }]\n", "repeated");
  expect_error("arguments = [{ name = \"stream\" }]\n", "stream");
  expect_error("arguments = [{ name = \"M\", output = true }]\n", "only a buffer");
  expect_error("arguments = [{ name = \"M\", colour = 1 }]\n", "colour");
  p.dir = write_abi("arguments = [{ name = \"ws\", value = \"M*(K+\" }]\n");
  EXPECT_THROW(load_triton_abi(p), InputError);
  p.dir = write_abi("arguments = [{ name = \"A\", dtype = \"bfloat16\", shape = [\"M\", \"K\"] }, { name = \"M\" }]\n");
  EXPECT_EQ(load_triton_abi(p)->signature("f"), "f(A, M, stream)");
  p.dir = fs::temp_directory_path() / "ptxbench-no-such-problem";
  EXPECT_FALSE(load_triton_abi(p).has_value());
}
