// Resource limits for a sandboxed child (setrlimit in the child before exec, inherited by
// everything it starts). Each limit is optional: unset keeps the parent's.
#pragma once
#include <optional>
#include <utility>
#include <vector>

#include "core/json.h"

namespace ptxbench::sandbox {

struct Limits {
  std::optional<unsigned long long> address_space;  // RLIMIT_AS, bytes (nvcc: a memory bomb stops here)
  std::optional<unsigned long long> data;           // RLIMIT_DATA, bytes (the worker: CUDA reserves huge
                                                    // PROT_NONE ranges, so RLIMIT_AS cannot be used there)
  std::optional<unsigned long long> file_size;      // RLIMIT_FSIZE, bytes
  std::optional<unsigned long long> processes;      // RLIMIT_NPROC (not enforced for root)
  std::optional<unsigned long long> cpu_seconds;    // RLIMIT_CPU
  std::optional<unsigned long long> open_files;     // RLIMIT_NOFILE
  std::optional<unsigned long long> core_bytes;     // RLIMIT_CORE

  // (resource, value) pairs for ProcessOptions::rlimits.
  std::vector<std::pair<int, unsigned long long>> to_rlimits() const;
  json to_json() const;
};

// Physical memory of this machine in bytes (0 when unknown).
unsigned long long physical_memory_bytes();

}  // namespace ptxbench::sandbox
