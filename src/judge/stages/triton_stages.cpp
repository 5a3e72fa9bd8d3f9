// The CPU stages of a Triton candidate (compile/triton_driver.h): the build is the source scan
// (forbidden imports, harness internals, dynamic code: rule and line) and the compile-only run of
// the entry on the problem's first benchmark shape; the static checks are the PTX and SASS scans of
// the cubins Triton produced, the same scans a CUDA candidate's shared object gets.
#include <fstream>
#include <sstream>

#include "compile/static_checks.h"
#include "core/error.h"
#include "judge/stages/cpu_stages.h"
#include "judge/stages/sass_scan.h"
#include "problems/triton_abi.h"
#include "sandbox/capabilities.h"

namespace ptxbench {
namespace fs = std::filesystem;

StageStop run_triton_build(CpuStageRun& c) {
  const ProblemSpec& p = c.problem;
  EvaluationRecord& r = c.prepared.record;
  const auto abi = load_triton_abi(p);
  if (!abi)
    throw InputError("problem '" + p.name + "' has no Triton interface (problems/" + p.name + "/triton/abi.toml)");
  if (p.benchmark_shapes.empty())
    throw InputError("problem '" + p.name + "' lists no benchmark shape to compile a Triton candidate for");
  const TritonToolchain& tc = find_triton_toolchain(p.dir.parent_path());
  c.note("build: Triton " + (tc.triton_version.empty() ? std::string("(not found)") : tc.triton_version) + " for " +
         c.options.arch);
  TritonBuildOptions o;
  o.arch = c.options.arch;
  o.entry = p.entry;
  for (const auto& a : abi->arguments) o.parameters.push_back(a.name);
  o.parameters.push_back("stream");
  // Every benchmark shape (public; the hidden shapes stay with the GPU stages): a kernel that only
  // compiles for some of them, or specializes differently (e.g. on D), is seen here.
  json shapes = json::array();
  for (const Shape& shape : p.benchmark_shapes) {
    o.calls.push_back({{"arguments", abi->arguments_json(shape)}, {"scalars", abi->scalar_values(shape)}});
    shapes.push_back(shape);
  }
  o.display_name = c.options.display_name;
  TritonBuildResult& b = c.triton;
  b = build_triton_candidate(c.candidate, c.build_dir, tc, o);

  json diags = json::array();
  for (const auto& d : b.diagnostics)
    diags.push_back({{"file", d.file},
                     {"line", d.line},
                     {"column", d.column},
                     {"severity", d.severity},
                     {"message", d.message},
                     {"tool", d.tool}});
  json detail = {{"command", b.command}, {"diagnostics", diags},      {"log", b.log},    {"sandbox", b.sandbox},
                 {"language", "triton"}, {"toolchain", tc.to_json()}, {"shapes", shapes}};
  if (b.manifest.is_object() && b.manifest.contains("kernels")) {
    detail["kernels"] = b.manifest["kernels"];
    detail["launches"] = b.manifest.value("launches", 0);
  }
  if (b.scan.is_object() && b.scan.contains("jit_kernels")) detail["jit_kernels"] = b.scan["jit_kernels"];
  r.environment["sandbox"] = {{"host", sandbox::host_capabilities().to_json()}, {"compile", b.sandbox}};
  StageResult s;
  if (!b.infra_error.empty()) {
    s = failed_stage("build", Verdict::infra_error, b.infra_error, detail);
  } else if (!b.forbidden.empty()) {
    detail["forbidden"] = b.forbidden;
    detail["findings"] = b.findings;
    detail["rule"] = b.findings.empty() ? "source" : b.findings.front().value("rule", "source");
    s = failed_stage("build", Verdict::forbidden, first_reason(b.forbidden), detail);
  } else if (!b.ok) {
    std::string first = b.timed_out ? "the Triton build timed out" : "the Triton build failed";
    for (const auto& d : b.diagnostics)
      if (d.severity == "error" || d.severity == "fatal") {
        first = (d.file.empty() ? "" : d.file + ":" + std::to_string(d.line) + ": ") + d.message;
        break;
      }
    s = failed_stage("build", Verdict::compile_error, first, detail);
  } else {
    s = {"build", StageStatus::ok, 0, "compiled " + std::to_string(b.cubins.size()) + " Triton kernel(s)", detail};
  }
  s.seconds = b.seconds;
  r.add_stage(s);
  if (!b.ok) return "the build failed";
  // The GPU stages' preparation compiles and loads this copy (judge/stages/triton_gpu_prepare.h):
  // the same path in its build and in the worker.
  fs::copy_file(c.candidate, c.build_dir / "candidate.py", fs::copy_options::overwrite_existing);
  return {};
}

StageStop run_triton_static_checks(CpuStageRun& c) {
  const TritonBuildResult& b = c.triton;
  EvaluationRecord& r = c.prepared.record;
  c.note("static: PTX and SASS of the Triton kernels");
  const auto t0 = std::chrono::steady_clock::now();
  json detail;
  std::string ptx;
  for (const auto& f : b.ptx) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    ptx += ss.str();
  }
  detail["ptx_targets"] = ptx.empty() ? json::object() : json(scan_ptx(ptx, c.targets.ptx));
  if (auto cuobjdump = find_cuobjdump(); !cuobjdump.empty())
    c.prepared.sass = start_sass_scan(b.cubins, cuobjdump, c.targets);
  else detail["sass_error"] = "cuobjdump not found (install PyPI nvidia-cuda-cuobjdump: scripts/setup.sh)";
  // The forbidden-code checks of a Triton candidate are its build's source scan; nothing here can
  // find more (no host code is compiled).
  detail["forbidden"] = json::array();
  detail["findings"] = json::array();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.add_stage({"static", StageStatus::ok, secs, "no forbidden code", detail});
  return {};
}

}  // namespace ptxbench
