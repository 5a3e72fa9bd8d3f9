// Kernel names for people: mangled C++ names demangled, parameter lists dropped, long names cut.
#pragma once
#include <string>

namespace ptxbench::report {

// "_ZN5cudnn6fusion20convert_dq_to_16bitsILb1EEEvPKv..." -> "cudnn::fusion::convert_dq_to_16bits<true>";
// an unmangled name (extern "C", cuDNN's generated kernels) is kept; longer than max_len -> cut with "...".
std::string readable_kernel_name(const std::string& name, size_t max_len = 110);

}  // namespace ptxbench::report
