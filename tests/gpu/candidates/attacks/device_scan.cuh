// Shared by the attack candidates (test data): the device allocations near a pointer, found by
// asking the driver about addresses in 2 MiB steps (no harness code is needed to find them).
#pragma once
#include <cuda.h>

#include <vector>

struct FoundAllocation {
  CUdeviceptr base;
  size_t bytes;
};

// The allocation holding `a`, through cuPointerGetAttribute's range queries (on the driver allowlist;
// cuMemGetAddressRange, which this used to import, is not).
inline CUresult allocation_at(CUdeviceptr* base, size_t* bytes, CUdeviceptr a) {
  CUresult r = cuPointerGetAttribute(base, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, a);
  if (r == CUDA_SUCCESS) r = cuPointerGetAttribute(bytes, CU_POINTER_ATTRIBUTE_RANGE_SIZE, a);
  return r;
}

// The allocator packs small allocations into pools; a pool's first bytes may be free. So: 64 KiB
// steps over +-16 GiB find large allocations and pool members that cross a step; every 64 KiB
// window in which something was found is then walked in 256-byte steps (the smallest alignment).
inline std::vector<FoundAllocation> allocations_near(const void* p, size_t span = size_t(16) << 30) {
  std::vector<FoundAllocation> out;
  const CUdeviceptr at = reinterpret_cast<CUdeviceptr>(p), coarse = CUdeviceptr(64) << 10, fine = 256;
  auto add = [&](CUdeviceptr base, size_t bytes) {
    for (const auto& f : out)
      if (f.base == base) return false;
    out.push_back({base, bytes});
    return true;
  };
  std::vector<CUdeviceptr> windows;
  for (CUdeviceptr a = (at > span ? at - span : 0) & ~(coarse - 1); a < at + span; a += coarse) {
    CUdeviceptr base = 0;
    size_t bytes = 0;
    if (allocation_at(&base, &bytes, a) != CUDA_SUCCESS) continue;
    add(base, bytes);
    if (bytes < (size_t(2) << 20)) windows.push_back(a);  // a small allocation: its neighbours are near
    const CUdeviceptr next = (base + bytes + coarse - 1) & ~(coarse - 1);
    if (next > a + coarse) a = next - coarse;
  }
  for (CUdeviceptr w : windows)
    for (CUdeviceptr lo = w > 2 * coarse ? w - 2 * coarse : 0, b = lo; b < w + 2 * coarse; b += fine) {
      CUdeviceptr base = 0;
      size_t bytes = 0;
      if (allocation_at(&base, &bytes, b) != CUDA_SUCCESS) continue;
      add(base, bytes);
      const CUdeviceptr next = (base + bytes + fine - 1) & ~(fine - 1);
      if (next > b + fine) b = next - fine;
    }
  return out;
}

// Runs `launch(flag, stream)` with *flag = 1 and returns whether the kernel left it at 1 (a yes/no
// question asked of device memory).
template <typename F>
bool probe(F launch, cudaStream_t s) {
  static int* flag = nullptr;
  if (!flag && cudaMalloc(&flag, sizeof(int)) != cudaSuccess) return false;
  const int one = 1;
  int got = 0;
  cudaMemcpyAsync(flag, &one, sizeof one, cudaMemcpyHostToDevice, s);
  launch(flag, s);
  cudaMemcpyAsync(&got, flag, sizeof got, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  return got == 1;
}

// Spins on the GPU until `ns` nanoseconds have passed since the kernel started (to stay above a
// hardware-floor check while doing less work than the problem needs).
__global__ void attack_spin_kernel(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  while (t - t0 < ns);
}
