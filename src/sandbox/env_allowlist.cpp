// The environment a sandboxed child gets: allowlisted names, never a credential, plus HOME, TMPDIR, PATH.
#include "sandbox/env_allowlist.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>

extern char** environ;

namespace ptxbench::sandbox {

bool looks_like_secret(std::string_view name) {
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (std::string_view word :
       {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE", "SESSION"})
    if (upper.find(word) != std::string::npos) return true;
  return false;
}

bool inherited_name(std::string_view name) {
  static constexpr std::array<std::string_view, 11> exact{"LANG",
                                                          "TZ",
                                                          "LD_LIBRARY_PATH",
                                                          "CUDA_VISIBLE_DEVICES",
                                                          "CUDA_DEVICE_ORDER",
                                                          "CUDA_MODULE_LOADING",
                                                          "CUDA_CACHE_DISABLE",
                                                          "CUDA_CACHE_MAXSIZE",
                                                          "NVIDIA_VISIBLE_DEVICES",
                                                          "NVIDIA_DRIVER_CAPABILITIES",
                                                          "PTXBENCH_CUDNN_LIB"};
  if (std::find(exact.begin(), exact.end(), name) != exact.end()) return true;
  return name.starts_with("LC_");
}

std::vector<std::string> scrubbed_environment(const std::vector<std::string>& parent,
                                              const std::vector<std::string>& set) {
  std::map<std::string, std::string> env;
  auto split = [](const std::string& entry) {
    const size_t eq = entry.find('=');
    return eq == std::string::npos ? std::pair{entry, std::string()}
                                   : std::pair{entry.substr(0, eq), entry.substr(eq + 1)};
  };
  for (const auto& entry : parent) {
    auto [name, value] = split(entry);
    if (!name.empty() && inherited_name(name) && !looks_like_secret(name)) env[name] = value;
  }
  for (const auto& entry : set) {
    auto [name, value] = split(entry);
    if (!name.empty()) env[name] = value;
  }
  std::vector<std::string> out;
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

std::vector<std::string> current_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) out.emplace_back(*e);
  return out;
}

}  // namespace ptxbench::sandbox
