// Checks every file the `nvcc -M` list says the build read lies where a candidate may read.
#include "compile/include_check.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace ptxbench {
namespace fs = std::filesystem;
namespace {

struct ForbiddenHeader {
  std::string_view name;  // a file name prefix, or a folder when it ends in '/'
  std::string_view why;
};

constexpr std::array<ForbiddenHeader, 12> kForbiddenHeaders{{
    {"cublas", "library kernels (cuBLAS) are forbidden"},
    {"cudnn", "library kernels (cuDNN) are forbidden"},
    {"cutlass/", "library kernels (CUTLASS) are forbidden"},
    {"cute/", "library kernels (CuTe) are forbidden"},
    {"cufft", "library kernels (cuFFT) are forbidden"},
    {"cusparse", "library kernels (cuSPARSE) are forbidden"},
    {"cusolver", "library kernels (cuSOLVER) are forbidden"},
    {"nccl", "NCCL is forbidden"},
    {"nvrtc", "compiling code at run time (NVRTC) is forbidden"},
    {"nvJitLink", "linking code at run time (nvJitLink) is forbidden"},
    {"dlfcn.h", "dynamic loading is forbidden"},
    {"link.h", "walking the loaded objects (dl_iterate_phdr) is forbidden"},
}};

fs::path normal(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : c;
}

// The root that holds `p` (the longest), and `p` relative to it.
bool under(const fs::path& p, const std::vector<fs::path>& roots, fs::path& relative) {
  size_t best = 0;
  bool found = false;
  for (const auto& r : roots) {
    const fs::path root = normal(r);
    const std::string rs = root.string(), ps = p.string();
    const bool inside = ps == rs || (ps.size() > rs.size() && ps.compare(0, rs.size(), rs) == 0 &&
                                     (rs.back() == '/' || ps[rs.size()] == '/'));
    if (inside && rs.size() >= best) {
      best = rs.size(), found = true;
      relative = ps == rs ? p.filename() : p.lexically_relative(root);
    }
  }
  return found;
}

}  // namespace

std::string forbidden_header_reason(const std::string& relative) {
  const fs::path rel(relative);
  const std::string file = rel.filename().string();
  for (const auto& h : kForbiddenHeaders) {
    if (h.name.ends_with('/')) {
      const std::string_view folder = h.name.substr(0, h.name.size() - 1);
      for (const auto& part : rel.parent_path())
        if (part.string() == folder) return std::string(h.why);
    } else if (std::string_view(file).starts_with(h.name)) {
      return std::string(h.why);
    }
  }
  return {};
}

std::vector<std::string> check_dependencies(const std::vector<std::string>& deps, const fs::path& cwd,
                                            const IncludeRoots& roots, const fs::path& candidate) {
  std::vector<std::string> reasons;
  const fs::path self = normal(candidate);
  for (const auto& dep : deps) {
    const fs::path p = normal(fs::path(dep).is_absolute() ? fs::path(dep) : cwd / dep);
    if (p == self) continue;
    fs::path rel;
    std::string why;
    if (under(p, roots.readable, rel) || under(p, roots.include_dirs, rel) || under(p, roots.system, rel)) {
      if (std::string w = forbidden_header_reason(rel.string()); !w.empty())
        why = "includes " + rel.string() + ": " + w;
    } else {
      why = "includes " + p.filename().string() +
            ", a file outside the candidate's folder, its include folders and the CUDA and C++ system headers";
    }
    if (!why.empty() && std::find(reasons.begin(), reasons.end(), why) == reasons.end()) reasons.push_back(why);
  }
  return reasons;
}

}  // namespace ptxbench
