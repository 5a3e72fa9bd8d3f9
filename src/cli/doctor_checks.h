// `ptxbench doctor`: what this machine can do for the harness, and for each missing piece the exact
// fix. The facts are gathered once (tools, the GPU through the worker, CUPTI's profiling permission,
// libraries, the Triton toolchain, the sandbox's mechanisms); diagnose() turns them into findings.
#pragma once
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/json.h"

namespace ptxbench::cli {

struct HostFacts {
  std::string harness;                  // "ptxbench 0.1.0 (commit ...)"
  std::string nvcc;                     // its version, or "none (...)"
  std::string cuobjdump;                // its path, or empty
  bool gpu_stages = false;              // the worker found a GPU that runs the default arch
  std::string gpu, gpu_reason;          // its name; why the GPU stages will not run
  json gpu_hello = nullptr;             // the worker's self-description
  bool driver_params = false;           // /proc/driver/nvidia/params exists (an NVIDIA driver is loaded)
  bool profiling_admin_only = false;    // RmProfilingAdminOnly: 1
  bool root = false;                    // this process runs as root
  std::string compute_sanitizer, ncu;   // paths, or empty
  std::string cudnn_error, nvml_error;  // empty: the library loads
  bool triton_usable = false;
  std::string triton_version, triton_error;
  json sandbox = json::object();  // sandbox::Capabilities::to_json()
  std::string userns_restricted;  // the sysctl that restricts unprivileged user namespaces, or empty
};

HostFacts gather_host_facts(const GlobalOptions& g);

struct Finding {
  std::string name;
  std::string status;  // "ok", "missing" (a stage cannot run), "limited" (it runs, with less)
  std::string found;   // what is there
  std::string fix;     // the exact step, "" when ok
};

// Pure: the findings for these facts, in a fixed order.
std::vector<Finding> diagnose(const HostFacts& f);

}  // namespace ptxbench::cli
