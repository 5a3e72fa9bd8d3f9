// Compiles a Triton candidate's kernels again for every shape the workers will call, before its GPU stages.
#include "judge/stages/triton_gpu_prepare.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <future>

#include "compile/nvcc_driver.h"
#include "compile/static_checks.h"
#include "compile/triton_driver.h"
#include "compile/triton_shim.h"
#include "core/error.h"
#include "judge/stages/stage_results.h"
#include "judge/stages/worker_jobs.h"
#include "problems/triton_abi.h"

namespace ptxbench {
namespace fs = std::filesystem;
namespace {

// A folder holding a libcuda.so.1 to link Triton's launchers against: the driver's own where this
// host has one, else the toolkit's stub (a host without a GPU only builds, never runs, them).
fs::path libcuda_dir(const fs::path& scratch) {
  if (void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    link_map* map = nullptr;
    fs::path dir;
    if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name)
      dir = fs::weakly_canonical(map->l_name).parent_path();
    dlclose(h);
    if (!dir.empty()) return dir;
  }
  const fs::path nvcc = find_nvcc();
  const fs::path stub = (nvcc.empty() ? fs::path("/usr/local/cuda") : nvcc.parent_path().parent_path()) / "lib64" /
                        "stubs" / "libcuda.so";
  if (!fs::exists(stub)) fail("no libcuda.so.1 on this host and no CUDA stub at " + stub.string());
  const fs::path dir = scratch / "libcuda-stub";
  fs::create_directories(dir);
  std::error_code ec;
  fs::remove(dir / "libcuda.so.1", ec);
  fs::create_symlink(stub, dir / "libcuda.so.1");
  return dir;
}

// Every shape a worker of this evaluation calls the entry with, once each.
std::vector<Shape> all_shapes(const ProblemSpec& p, uint64_t seed) {
  std::vector<Shape> out;
  auto add = [&](const Shape& s) {
    if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  for (const auto& s : p.hidden_shapes) add(s);
  for (const auto& s : drawn_shapes(p, seed)) add(s);
  for (const auto& s : p.benchmark_shapes) add(s);
  add(p.sanitize_shape);
  add(p.probe_shape);
  return out;
}

}  // namespace

TritonGpuPreparation prepare_triton_for_gpu(const ProblemSpec& p, const EvalOptions& o, const fs::path& build_dir,
                                            uint64_t seed) {
  TritonGpuPreparation g;
  const auto t0 = std::chrono::steady_clock::now();
  auto finish = [&](StageResult s) {
    s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    g.stage = std::move(s);
    return g;
  };
  const TritonToolchain& tc = find_triton_toolchain(p.dir.parent_path());
  if (!tc.usable()) return finish(failed_stage("triton_gpu_build", Verdict::infra_error, tc.error));
  if (!tc.library_error.empty())
    return finish(failed_stage("triton_gpu_build", Verdict::infra_error, tc.library_error));
  const auto abi = load_triton_abi(p);
  if (!abi) throw InputError("problem '" + p.name + "' has no Triton interface");
  const fs::path candidate = build_dir / "candidate.py";
  if (!fs::is_regular_file(candidate))
    return finish(failed_stage("triton_gpu_build", Verdict::infra_error, "the build left no candidate.py"));
  const fs::path dir = build_dir / "gpu";
  fs::create_directories(dir);
  TritonBuildOptions b;
  b.arch = o.arch;
  b.entry = p.entry;
  for (const auto& a : abi->arguments) b.parameters.push_back(a.name);
  b.parameters.push_back("stream");
  json calls = json::array();
  const auto shapes = all_shapes(p, seed);
  for (const Shape& s : shapes)
    calls.push_back({{"arguments", abi->arguments_json(s)}, {"scalars", abi->scalar_values(s)}});
  b.calls = calls;
  b.display_name = "candidate.py";
  b.launchers_libcuda_dir = libcuda_dir(dir);
  TritonBuildResult r = build_triton_candidate(candidate, dir, tc, b);
  json detail = {{"shapes", shapes.size()}, {"command", r.command}, {"log", r.log.substr(0, 2000)}};
  if (!r.infra_error.empty())
    return finish(failed_stage("triton_gpu_build", Verdict::infra_error, r.infra_error, detail));
  if (!r.ok) {
    // The candidate compiled for the benchmark shapes (the build stage) but not for one of these.
    std::string first = "the Triton build for the hidden shapes failed";
    for (const auto& d : r.diagnostics)
      if (d.severity == "error" || d.severity == "fatal") {
        first = "on a hidden shape: " + (d.line ? "line " + std::to_string(d.line) + ": " : std::string()) + d.message;
        break;
      }
    return finish(
        failed_stage("triton_gpu_build", r.timed_out ? Verdict::compile_error : Verdict::runtime_error, first, detail));
  }
  g.shim = dir / "candidate_triton.so";
  if (std::string e = build_triton_shim(p.dir, p.entry, g.shim); !e.empty())
    return finish(failed_stage("triton_gpu_build", Verdict::infra_error, e, detail));
  json images = json::array();
  for (const auto& c : r.cubins) images.push_back(c.string());
  json path = json::array({tc.root.string()});
  for (const auto& e : tc.python_path) path.push_back(e);
  g.job = {{"python", {{"library", tc.python_library.string()}, {"home", tc.python_home}, {"path", path}}},
           {"images", images},
           {"session",
            {{"cache_dir", r.cache.string()},
             {"module", candidate.string()},
             {"entry", p.entry},
             {"calls", calls},
             {"capability", r.manifest.value("capability", json::array({9, 0}))},
             {"ptxas_version", r.manifest.value("ptxas_version", "")},
             {"libcuda_dir", b.launchers_libcuda_dir.string()},
             {"device", o.device}}}};
  g.readable = tc.python_prefixes;
  g.readable.push_back(tc.root);
  g.readable.push_back(build_dir);
  for (const auto& k : r.manifest.value("kernels", json::array())) {
    const auto boxes = k.value("descriptor_box_bytes", std::vector<double>{});
    if (boxes.empty()) continue;
    const std::string name = k.value("name", "");
    const double smallest = *std::min_element(boxes.begin(), boxes.end());
    json& m = g.device_tensor_maps[name];
    if (m.is_null()) m = {{"min_box_bytes", smallest}, {"maps", 0}, {"source", "triton_device_descriptors"}};
    m["min_box_bytes"] = std::min(m["min_box_bytes"].get<double>(), smallest);
    m["maps"] = m["maps"].get<size_t>() + boxes.size();
  }
  detail["device_tensor_maps"] = g.device_tensor_maps;
  if (const fs::path cuobjdump = find_cuobjdump(); !cuobjdump.empty()) {
    std::vector<std::future<std::pair<std::string, SassListing>>> parts;
    for (const auto& c : r.cubins)
      parts.push_back(std::async(std::launch::async, [c, cuobjdump] {
        return std::pair{c.filename().string(), parse_sass_functions(sass_text(c, cuobjdump))};
      }));
    try {
      for (auto& part : parts) {
        auto [file, listing] = part.get();
        for (auto& [kernel, instructions] : listing) g.image_listing[file + "/" + kernel] = std::move(instructions);
      }
    } catch (const Error& e) {
      detail["sass_error"] = e.what();  // the counts are then read by kernel name, as a CUDA candidate's
      g.image_listing.clear();
    }
  }
  detail["kernels"] = r.cubins.size();
  detail["launchers"] = r.manifest.value("launchers", 0);
  return finish({"triton_gpu_build", StageStatus::ok, 0,
                 "compiled " + std::to_string(r.cubins.size()) + " kernel(s) for " + std::to_string(shapes.size()) +
                     " shapes, and the launchers",
                 detail});
}

}  // namespace ptxbench
