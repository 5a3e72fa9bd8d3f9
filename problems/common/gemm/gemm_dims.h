// Shape of one GEMM problem instance: C[M,N] = A[M,K] B[N,K]^T, all row-major (A and B K-major).
#pragma once
#include <string>

#include "runner/workload.h"

namespace ptxbench::gemm {

struct Dims {
  int M = 0, N = 0, K = 0;
  size_t a_elements() const { return size_t(M) * K; }
  size_t b_elements() const { return size_t(N) * K; }
  size_t c_elements() const { return size_t(M) * N; }
  std::string label() const { return "M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K); }
};

inline Dims dims_of(const WorkloadShape& shape) { return {int(shape.at("M")), int(shape.at("N")), int(shape.at("K"))}; }

// The element type of A and B.
enum class Operand { bf16, e4m3 };

}  // namespace ptxbench::gemm
