#include "runner/hardware_peak.h"

namespace ptxbench {

double flops_per_clock_per_sm(int cc_major, int /*cc_minor*/, const std::string& math_class) {
  // Hopper SXM: 989 dense bf16 TFLOP/s = 132 SMs x 1830 MHz x 4096; Blackwell doubles per SM.
  if (math_class == "bf16" || math_class == "fp16") {
    if (cc_major == 9) return 4096;
    if (cc_major == 10) return 8192;
    if (cc_major == 8) return 2048;
  }
  return 0;
}

}  // namespace ptxbench
