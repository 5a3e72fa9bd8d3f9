// `ptxbench doctor`: gathers what this machine has for the harness and turns it into findings with fixes.
#include "cli/doctor_checks.h"

#include <dlfcn.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "compile/static_checks.h"
#include "compile/triton_driver.h"
#include "core/build_info.h"
#include "judge/gpu_description.h"
#include "judge/toolchain_info.h"
#include "probes/ncu_probe.h"
#include "probes/sanitizer_probe.h"
#include "sandbox/capabilities.h"

namespace ptxbench::cli {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// "" when the shared library loads, else dlerror's words.
std::string load_error(const char* soname) {
  void* h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    return e ? e : "not found";
  }
  dlclose(h);
  return "";
}

// The sysctl that keeps unprivileged processes from making user namespaces (bubblewrap needs one
// where we are not root), or "".
std::string userns_restriction() {
  if (read_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").starts_with("1"))
    return "kernel.apparmor_restrict_unprivileged_userns";
  if (read_file("/proc/sys/kernel/unprivileged_userns_clone").starts_with("0"))
    return "kernel.unprivileged_userns_clone";
  if (read_file("/proc/sys/user/max_user_namespaces").starts_with("0")) return "user.max_user_namespaces";
  return "";
}

Finding ok(std::string name, std::string found) { return {std::move(name), "ok", std::move(found), ""}; }
Finding missing(std::string name, std::string found, std::string fix) {
  return {std::move(name), "missing", std::move(found), std::move(fix)};
}
Finding limited(std::string name, std::string found, std::string fix) {
  return {std::move(name), "limited", std::move(found), std::move(fix)};
}

}  // namespace

HostFacts gather_host_facts(const GlobalOptions& g) {
  HostFacts f;
  f.harness = "ptxbench " + harness_version() + " (commit " + harness_commit() + ")";
  f.nvcc = nvcc_version();
  f.cuobjdump = find_cuobjdump().string();
  EvalOptions eval;
  eval.workspace = workspace_dir(g);
  const GpuDescription d = describe_gpu_for(eval);
  f.gpu_stages = d.gpu_stages;
  f.gpu = d.gpu;
  f.gpu_reason = d.reason;
  f.gpu_hello = d.hello;
  const std::string params = read_file("/proc/driver/nvidia/params");
  f.driver_params = !params.empty();
  f.profiling_admin_only = params.find("RmProfilingAdminOnly: 1") != std::string::npos;
  f.root = geteuid() == 0;
  f.compute_sanitizer = find_compute_sanitizer().string();
  f.ncu = find_ncu().string();
  f.cudnn_error = load_error("libcudnn.so.9");
  f.nvml_error = load_error("libnvidia-ml.so.1");
  const TritonToolchain& t = find_triton_toolchain(problems_root(g));
  f.triton_usable = t.usable();
  f.triton_version = t.triton_version;
  f.triton_error = t.error;
  f.sandbox = sandbox::host_capabilities().to_json();
  f.userns_restricted = userns_restriction();
  return f;
}

std::vector<Finding> diagnose(const HostFacts& f) {
  std::vector<Finding> out;
  out.push_back(ok("harness", f.harness));

  if (f.nvcc.starts_with("none"))
    out.push_back(missing("nvcc (builds every CUDA candidate)", f.nvcc,
                          "install the CUDA 13 toolkit at /usr/local/cuda "
                          "(https://developer.nvidia.com/cuda-downloads), or put its bin/ on PATH"));
  else out.push_back(ok("nvcc (builds every CUDA candidate)", f.nvcc));

  if (f.cuobjdump.empty())
    out.push_back(missing("cuobjdump (the SASS checks: target_static, target counts)", "not found",
                          "python3 -m pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm "
                          "(or set PTXBENCH_CUOBJDUMP)"));
  else out.push_back(ok("cuobjdump (the SASS checks: target_static, target counts)", f.cuobjdump));

  const std::string gpu = "GPU (correctness, targets executed, timing)";
  if (f.gpu_stages) {
    std::string found = f.gpu;
    if (f.gpu_hello.is_object())
      found += ", compute capability " + f.gpu_hello.value("cc", std::string("?")) + ", CUDA driver " +
               std::to_string(f.gpu_hello.value("cuda_driver", 0)) + ", runtime " +
               std::to_string(f.gpu_hello.value("cuda_runtime", 0));
    out.push_back(ok(gpu, found));
  } else if (!f.driver_params) {
    out.push_back(missing(gpu, f.gpu_reason,
                          "no NVIDIA driver is loaded: install it so that `nvidia-smi` lists the GPU (in a container: "
                          "docker run --gpus all ...); until then every run is static checks only (verdict not_run)"));
  } else if (f.gpu_reason.find("cannot run") != std::string::npos) {
    out.push_back(missing(gpu, f.gpu_reason,
                          "the default target is sm_90a (Hopper: H100/H200, compute capability 9.0); judge on a "
                          "Hopper host, or pass --arch for this GPU's architecture"));
  } else {
    out.push_back(missing(gpu, f.gpu_reason,
                          "rebuild so that ptxbench-worker sits beside ptxbench (scripts/setup.sh), and check "
                          "`build/release/bin/ptxbench-worker --info`"));
  }

  const std::string counters = "CUPTI's hardware counters (target_executed)";
  if (!f.driver_params) out.push_back(limited(counters, "no NVIDIA driver", "comes with the driver (see GPU above)"));
  else if (f.profiling_admin_only && !f.root)
    out.push_back(missing(counters, "the driver lets only administrators read the performance counters",
                          "run as root, or: echo 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' | sudo tee "
                          "/etc/modprobe.d/ptxbench-profiling.conf && sudo update-initramfs -u && sudo reboot "
                          "(without them target_executed is unknown)"));
  else out.push_back(ok(counters, f.root ? "readable (root)" : "readable by every user"));

  if (f.compute_sanitizer.empty())
    out.push_back(missing("compute-sanitizer (the sanitize stage)", "not found",
                          "install the toolkit's compute-sanitizer (apt-get install cuda-sanitizer-13-0) or set "
                          "PTXBENCH_COMPUTE_SANITIZER; without it pass --no-sanitize"));
  else out.push_back(ok("compute-sanitizer (the sanitize stage)", f.compute_sanitizer));

  if (f.ncu.empty())
    out.push_back(limited("ncu (the target counts' fallback)", "not found",
                          "optional: apt-get install cuda-nsight-compute-13-0, or set PTXBENCH_NCU"));
  else out.push_back(ok("ncu (the target counts' fallback)", f.ncu));

  if (!f.cudnn_error.empty())
    out.push_back(missing("cuDNN 9 (the attention problems' baseline)", f.cudnn_error,
                          "apt-get install libcudnn9-cuda-13 (or python3 -m pip install nvidia-cudnn-cu13 and add its "
                          "lib/ to LD_LIBRARY_PATH)"));
  else out.push_back(ok("cuDNN 9 (the attention problems' baseline)", "libcudnn.so.9 loads"));

  if (!f.nvml_error.empty())
    out.push_back(limited("NVML (clocks, throttling, thermal screening)", f.nvml_error,
                          "comes with the NVIDIA driver (libnvidia-ml.so.1); without it no clock or throttle is "
                          "recorded beside the timings"));
  else out.push_back(ok("NVML (clocks, throttling, thermal screening)", "libnvidia-ml.so.1 loads"));

  if (!f.triton_usable)
    out.push_back(limited("Triton toolchain (--language triton)", f.triton_error,
                          "scripts/setup.sh --triton (or set PTXBENCH_TRITON_PYTHON to a Python with triton==3.6.0)"));
  else out.push_back(ok("Triton toolchain (--language triton)", "triton " + f.triton_version));

  const json& s = f.sandbox;
  const std::string bwrap = "bubblewrap (the candidates' file, network and process view)";
  if (s.value("bubblewrap", json(false)) == json(true)) out.push_back(ok(bwrap, "works"));
  else {
    const std::string why = s.value("bubblewrap", json("")).is_string() ? s["bubblewrap"].get<std::string>() : "";
    std::string fix = "apt-get install bubblewrap";
    if (!f.userns_restricted.empty())
      fix = "sudo sysctl -w " + f.userns_restricted + "=" +
            (f.userns_restricted == "kernel.apparmor_restrict_unprivileged_userns" ? "0" : "1") +
            " (unprivileged user namespaces are off), or run as root";
    out.push_back(limited(bwrap, why.empty() ? "unavailable" : why, fix + "; the other layers still apply"));
  }
  const int abi = s.value("landlock_abi", 0);
  if (abi > 0) out.push_back(ok("Landlock (file view without namespaces)", "ABI " + std::to_string(abi)));
  else
    out.push_back(limited("Landlock (file view without namespaces)", "unavailable",
                          "Linux 5.13 or later with landlock in the boot's lsm= list (cat /sys/kernel/security/lsm)"));
  if (s.value("seccomp", false))
    out.push_back(ok("seccomp (the candidates' system calls)", "the helper installs filters"));
  else
    out.push_back(missing("seccomp (the candidates' system calls)",
                          s.value("helper", json(true)).is_string() ? s["helper"].get<std::string>() : "unavailable",
                          "rebuild with libseccomp (scripts/setup.sh installs libseccomp-dev) so that "
                          "ptxbench-sandbox-exec sits beside ptxbench"));
  return out;
}

}  // namespace ptxbench::cli
