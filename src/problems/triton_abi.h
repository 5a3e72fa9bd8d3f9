// A problem's Triton interface: problems/<name>/triton/abi.toml lists the entry function's
// arguments in the C entry's order (the stream, always last, is implied). A buffer has a dtype and a
// shape (expressions over the problem's dims); a scalar is a dim or has a value expression (e.g. a
// workspace size). The Triton build calls the entry with buffers of these shapes
// (compile/triton_driver.h), and the prompt shows the signature. A problem without the file has no
// Triton track.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "problems/problem_spec.h"

namespace ptxbench {

struct TritonArgument {
  std::string name;
  std::string dtype;               // buffers: bfloat16, float16, float32, float8_e4m3fn, uint8, int32
  std::vector<std::string> shape;  // buffers: one expression per dimension
  std::string value;               // scalars: an expression; empty means the dim of that name
  bool output = false;             // buffers the entry writes
  bool is_buffer() const { return !dtype.empty(); }
};

struct TritonAbi {
  std::filesystem::path file;  // the abi.toml
  std::vector<TritonArgument> arguments;

  // The signature as the prompt shows it: "ptxbench_gemm(A, B, C, M, N, K, stream)".
  std::string signature(const std::string& entry) const;
  // The arguments for one shape, as compile/triton_driver.h passes them on: buffers with integer
  // shapes, and {name: value} for every scalar.
  json arguments_json(const Shape& shape) const;
  json scalar_values(const Shape& shape) const;
};

std::vector<std::string> triton_dtypes();

// problems/<name>/triton/abi.toml of `p`, checked against p's dims (unknown keys, dtypes or dims,
// duplicate names are InputErrors naming the file, line and key); nullopt when p has none.
std::optional<TritonAbi> load_triton_abi(const ProblemSpec& p);

}  // namespace ptxbench
