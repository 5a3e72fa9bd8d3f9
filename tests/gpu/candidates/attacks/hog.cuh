// Shared by the attack candidates (test data): a kernel that occupies SMs for `ns` nanoseconds.
#pragma once
__global__ void attack_hog_kernel(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}
