// The fastest a GPU can do a class of arithmetic: the floor below which a timing is impossible.
#pragma once
#include <string>

namespace ptxbench {

// Dense tensor-core FLOP per clock per SM for a math class on a compute capability; 0 if unknown.
double flops_per_clock_per_sm(int cc_major, int cc_minor, const std::string& math_class);

}  // namespace ptxbench
