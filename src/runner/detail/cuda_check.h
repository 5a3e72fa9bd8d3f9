// CUDA calls in the worker throw CudaError with the call, the error name and file:line.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "core/error.h"

namespace ptxbench {

class CudaError : public Error {
 public:
  CudaError(cudaError_t code, const std::string& what) : Error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

inline void cuda_check(cudaError_t e, const char* call, const char* file, int line) {
  if (e != cudaSuccess)
    throw CudaError(e, std::string(call) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ") [" +
                           file + ":" + std::to_string(line) + "]");
}

}  // namespace ptxbench

#define PTXBENCH_CUDA(call) ::ptxbench::cuda_check((call), #call, __FILE__, __LINE__)
