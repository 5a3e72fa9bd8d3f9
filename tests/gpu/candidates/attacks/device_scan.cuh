// Shared by the attack candidates (test data): the device allocations near a pointer, found by
// asking the driver about addresses in 2 MiB steps (no harness code is needed to find them).
#pragma once
#include <cuda.h>

#include <vector>

struct FoundAllocation {
  CUdeviceptr base;
  size_t bytes;
};

// Coarse 2 MiB steps over +-16 GiB find the large allocations; small ones are packed inside
// pages, so the +-64 MiB around `p` are also walked in 256-byte steps (the smallest alignment).
inline std::vector<FoundAllocation> allocations_near(const void* p, size_t span = size_t(16) << 30) {
  std::vector<FoundAllocation> out;
  const CUdeviceptr at = reinterpret_cast<CUdeviceptr>(p), step = CUdeviceptr(2) << 20, fine = 256;
  auto add = [&](CUdeviceptr base, size_t bytes) {
    for (const auto& f : out)
      if (f.base == base) return;
    out.push_back({base, bytes});
  };
  auto walk = [&](CUdeviceptr from, CUdeviceptr to, CUdeviceptr stride) {
    for (CUdeviceptr a = from; a < to; a += stride) {
      CUdeviceptr base = 0;
      size_t bytes = 0;
      if (cuMemGetAddressRange(&base, &bytes, a) != CUDA_SUCCESS) continue;
      add(base, bytes);
      const CUdeviceptr next = (base + bytes + stride - 1) & ~(stride - 1);
      if (next > a + stride) a = next - stride;  // skip to the end of this allocation
    }
  };
  walk((at > span ? at - span : 0) & ~(step - 1), at + span, step);
  const CUdeviceptr near = CUdeviceptr(64) << 20;
  walk((at > near ? at - near : 0) & ~(fine - 1), at + near, fine);
  return out;
}

// Spins on the GPU until `ns` nanoseconds have passed since the kernel started (to stay above a
// hardware-floor check while doing less work than the problem needs).
__global__ void attack_spin_kernel(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  while (t - t0 < ns);
}
