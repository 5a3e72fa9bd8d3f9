// Resource limits for a sandboxed child as setrlimit values, and their JSON.
#include "sandbox/limits.h"

#include <sys/resource.h>
#include <unistd.h>

namespace ptxbench::sandbox {

std::vector<std::pair<int, unsigned long long>> Limits::to_rlimits() const {
  std::vector<std::pair<int, unsigned long long>> out;
  auto add = [&](int resource, const std::optional<unsigned long long>& v) {
    if (v) out.emplace_back(resource, *v);
  };
  add(RLIMIT_AS, address_space);
  add(RLIMIT_DATA, data);
  add(RLIMIT_FSIZE, file_size);
  add(RLIMIT_NPROC, processes);
  add(RLIMIT_CPU, cpu_seconds);
  add(RLIMIT_NOFILE, open_files);
  add(RLIMIT_CORE, core_bytes);
  return out;
}

json Limits::to_json() const {
  json j = json::object();
  auto put = [&](const char* key, const std::optional<unsigned long long>& v) {
    if (v) j[key] = *v;
  };
  put("address_space_bytes", address_space);
  put("data_bytes", data);
  put("file_size_bytes", file_size);
  put("processes", processes);
  put("cpu_seconds", cpu_seconds);
  put("open_files", open_files);
  put("core_bytes", core_bytes);
  return j;
}

unsigned long long physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<unsigned long long>(pages) * static_cast<unsigned long long>(page) : 0;
}

}  // namespace ptxbench::sandbox
