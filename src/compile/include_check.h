// Which files a candidate's build reads (the `nvcc -M` list, both compilation passes): each must
// lie in the candidate's own folder (or the readable folders beside it), on the include path
// (interface.h, the knowledge pack, -I folders) or among the CUDA toolkit's and the C/C++ system
// headers, and none may be a library's header (cuBLAS, cuDNN, CUTLASS, CuTe, ..., dlfcn.h), however
// it was reached: a macro include, a device-only include or an intermediate header.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace ptxbench {

struct IncludeRoots {
  std::vector<std::filesystem::path> readable;      // the candidate's folder (or file) and read roots
  std::vector<std::filesystem::path> include_dirs;  // on the include path
  std::vector<std::filesystem::path> system;        // the toolkit's include folder, /usr/include, gcc's
};

// The reason a header (given relative to the root it was found under, e.g. "cute/tensor.hpp")
// is forbidden; empty when it is not.
std::string forbidden_header_reason(const std::string& relative);

// One reason per offending dependency (names as the candidate can see them: never host paths).
// `deps` as nvcc printed them, relative to `cwd`; `candidate` itself is skipped.
std::vector<std::string> check_dependencies(const std::vector<std::string>& deps, const std::filesystem::path& cwd,
                                            const IncludeRoots& roots, const std::filesystem::path& candidate);

}  // namespace ptxbench
