// The fastest a GPU can do a class of arithmetic: the floor below which a timing is impossible.
#include "runner/hardware_peak.h"

namespace ptxbench {

double flops_per_clock_per_sm(int cc_major, int /*cc_minor*/, const std::string& math_class) {
  // Hopper SXM: 989 dense bf16 TFLOP/s = 132 SMs x 1830 MHz x 4096; Blackwell doubles per SM.
  if (math_class == "bf16" || math_class == "fp16") {
    if (cc_major == 9) return 4096;
    if (cc_major == 10) return 8192;
    if (cc_major == 8) return 2048;
  }
  // Dense fp8 (e4m3/e5m2) tensor-core math: twice bf16 (Hopper 1979 TFLOP/s on 132 SMs).
  if (math_class == "fp8") {
    if (cc_major == 9) return 8192;
    if (cc_major == 10) return 16384;
  }
  return 0;
}

}  // namespace ptxbench
