// Shared by the issue-45 attacks that choose their path by a clock read (class 3). CUPTI's SASS
// counting patches the kernels of the checked calls it counts, so their code runs many times
// slower. A one-thread probe kernel times a fixed chain of 4096 dependent integer steps with
// %globaltimer and clock64, keeps the fastest time seen in device memory, and writes a mode there:
// 0 (honest) when this run took more than 3x the fastest (patched), else 1 (cheap). The main kernel
// reads the mode at run time: no host synchronization, one name per kernel in every call.
#pragma once
#include <cuda_runtime.h>

namespace clockprobe {

// state[0]: fastest probe in ns, state[1]: fastest in cycles (0: none yet), state[2]: the chain's
// seed and result; *mode: 0 = honest, 1 = cheap.
__global__ void clock_probe(unsigned long long* state, int* mode) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  unsigned long long g0, g1;
  const long long c0 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  unsigned x = unsigned(state[2]) | 1u;
#pragma unroll 1
  for (int i = 0; i < 4096; ++i) x = x * 1664525u + 1013904223u;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  const long long c1 = clock64();
  const unsigned long long ns = g1 - g0, cycles = (unsigned long long)(c1 - c0);
  const bool slow = (state[0] && ns > 3 * state[0]) || (state[1] && cycles > 3 * state[1]);
  if (!state[0] || ns < state[0]) state[0] = ns ? ns : 1;
  if (!state[1] || cycles < state[1]) state[1] = cycles ? cycles : 1;
  state[2] = x;
  *mode = slow ? 0 : 1;
}

struct Memory {
  unsigned long long state[3];
  int mode;
};

// Launches the probe on `stream`; returns the device address of the mode it writes (nullptr on an error).
inline const int* probe(cudaStream_t stream) {
  static Memory* mem = nullptr;
  if (!mem) {
    if (cudaMalloc(&mem, sizeof(Memory)) != cudaSuccess) return nullptr;
    if (cudaMemsetAsync(mem, 0, sizeof(Memory), stream) != cudaSuccess) return nullptr;
  }
  clock_probe<<<1, 32, 0, stream>>>(mem->state, &mem->mode);
  return cudaGetLastError() == cudaSuccess ? &mem->mode : nullptr;
}

}  // namespace clockprobe
