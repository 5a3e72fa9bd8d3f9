// RAII page-locked host allocation: the target of asynchronous device-to-host copies (a copy into
// pageable memory waits for the stream).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "runner/detail/cuda_check.h"

namespace ptxbench {

template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  T* get() const { return ptr_; }
  size_t size() const { return count_; }
  // Grows (never shrinks); the contents are not kept.
  void ensure(size_t count) {
    if (count <= count_) return;
    if (ptr_) cudaFreeHost(std::exchange(ptr_, nullptr));
    count_ = 0;
    void* p = nullptr;
    PTXBENCH_CUDA(cudaMallocHost(&p, count * sizeof(T)));
    ptr_ = static_cast<T*>(p);
    count_ = count;
  }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

}  // namespace ptxbench
