// Kernel names for people: mangled C++ names demangled, parameter lists dropped, long names cut.
#include "report/kernel_name.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace ptxbench::report {

std::string readable_kernel_name(const std::string& name, size_t max_len) {
  std::string out = name;
  if (name.rfind("_Z", 0) == 0) {
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                  &std::free);
    if (status == 0 && d) {
      out = d.get();
      // Drop the parameter list: the '(' that follows the (possibly templated) name at depth 0.
      int depth = 0;
      for (size_t i = 0; i < out.size(); ++i) {
        if (out[i] == '<') ++depth;
        else if (out[i] == '>') --depth;
        else if (out[i] == '(' && depth == 0 && i > 0) {
          out.resize(i);
          break;
        }
      }
      if (out.rfind("void ", 0) == 0) out.erase(0, 5);  // the return type of a templated kernel
    }
  }
  if (max_len >= 3 && out.size() > max_len) out = out.substr(0, max_len - 3) + "...";
  return out;
}

}  // namespace ptxbench::report
