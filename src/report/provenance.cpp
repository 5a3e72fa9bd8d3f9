// What produced a result, in the fields every report prints, read from a run or a record.
#include "report/provenance.h"

namespace ptxbench::report {
namespace {

std::string text_of(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
  if (j.is_null()) return kNotRecorded;
  return j.dump();
}

void harness(const json& h, Provenance& p) {
  if (!h.is_object()) return;
  if (h.contains("version")) p.harness_version = text_of(h["version"]);
  if (h.contains("commit")) p.harness_commit = text_of(h["commit"]);
  if (h.contains("dirty")) p.harness_dirty = text_of(h["dirty"]);
}

// The driver from a worker hello (CUDA driver API version) and/or NVML's driver version string.
std::string driver_of(const json& hello, const json& gpu_state) {
  std::string nvml, cuda;
  if (gpu_state.is_object() && gpu_state.contains("driver") && gpu_state["driver"].is_string())
    nvml = gpu_state["driver"].get<std::string>();
  if (hello.is_object() && hello.contains("cuda_driver") && hello["cuda_driver"].is_number_integer())
    cuda = "CUDA " + cuda_version_text(hello["cuda_driver"].get<long long>());
  if (!nvml.empty() && !cuda.empty()) return nvml + " (" + cuda + ")";
  if (!nvml.empty()) return nvml;
  if (!cuda.empty()) return cuda;
  return kNotRecorded;
}

}  // namespace

std::string cuda_version_text(long long v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

Provenance from_run_provenance(const json& prov) {
  Provenance p;
  if (!prov.is_object()) return p;
  if (prov.contains("harness")) harness(prov["harness"], p);
  if (prov.contains("nvcc")) p.nvcc = text_of(prov["nvcc"]);
  if (prov.contains("seed_policy")) p.seed_policy = text_of(prov["seed_policy"]);
  if (prov.contains("gpu") && prov["gpu"].is_object()) {
    const json& g = prov["gpu"];
    const bool stages = g.value("gpu_stages", true);
    if (stages && g.contains("name") && g["name"].is_string() && !g["name"].get<std::string>().empty())
      p.gpu = g["name"].get<std::string>();
    else if (g.contains("reason") && g["reason"].is_string()) p.gpu = "none (" + g["reason"].get<std::string>() + ")";
    // NVML's driver version comes from the run's evaluations (environment.gpu_state_at_start), which
    // the loaders copy to "nvml_driver" when the run's own provenance has none.
    json state = g.value("state", json());
    if (prov.contains("nvml_driver")) state = {{"driver", prov["nvml_driver"]}};
    p.driver = driver_of(g.value("hello", json()), state);
  }
  if (prov.contains("driver")) p.driver = text_of(prov["driver"]);
  return p;
}

Provenance from_record_environment(const json& env, const std::string& record_gpu) {
  Provenance p;
  if (!record_gpu.empty()) p.gpu = record_gpu;
  if (!env.is_object()) return p;
  if (env.contains("harness")) harness(env["harness"], p);
  if (env.contains("nvcc_version")) p.nvcc = text_of(env["nvcc_version"]);
  if (env.contains("seed_policy")) p.seed_policy = text_of(env["seed_policy"]);
  p.driver = driver_of(env.value("gpu", json()), env.value("gpu_state_at_start", json()));
  if (p.gpu == kNotRecorded && env.contains("gpu") && env["gpu"].is_object() && env["gpu"].contains("gpu"))
    p.gpu = text_of(env["gpu"]["gpu"]);
  return p;
}

}  // namespace ptxbench::report
