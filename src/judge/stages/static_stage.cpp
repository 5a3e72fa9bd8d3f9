// The static checks of the built candidate: the PTX target scan, the source scan, the imports
// (an allowlist) and the host syscall scan, any of which finds forbidden code; the SASS scan
// (sass_scan.h) starts here and runs on.
#include <chrono>
#include <fstream>
#include <sstream>

#include "compile/static_checks.h"
#include "core/error.h"
#include "judge/stages/cpu_stages.h"
#include "judge/stages/sass_scan.h"

namespace ptxbench {
namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

StageStop run_static_checks(CpuStageRun& c) {
  const BuildResult& b = c.build;
  EvaluationRecord& r = c.prepared.record;
  c.note("static: PTX, SASS and imports");
  auto t0 = std::chrono::steady_clock::now();
  json detail;
  std::vector<std::string> forbidden;
  json findings = json::array();  // {rule, message} per entry of `forbidden`: what found it
  auto found = [&](const char* rule, const std::string& reason) {
    forbidden.push_back(reason);
    findings.push_back({{"rule", rule}, {"message", reason}});
  };
  detail["ptx_targets"] = b.ptx.empty() ? json::object() : json(scan_ptx(read_file(b.ptx), c.targets.ptx));
  if (auto cuobjdump = find_cuobjdump(); !cuobjdump.empty())
    c.prepared.sass = start_sass_scan(b.shared_object, cuobjdump, c.targets);
  else detail["sass_error"] = "cuobjdump not found (install PyPI nvidia-cuda-cuobjdump: scripts/setup.sh)";
  for (auto& reason : scan_source(c.source)) found("source", reason);
  try {
    ImportReport imp = check_imports(b.shared_object, c.problem.entry);
    detail["needed"] = imp.needed;
    detail["undefined_symbols"] = imp.undefined.size();
    for (auto& reason : imp.forbidden) found("import", reason);
  } catch (const Error& e) {
    found("unreadable_object", std::string("unreadable shared object: ") + e.what());
  }
  std::string syscall_note;
  for (auto& reason : scan_host_syscalls(b.shared_object, &syscall_note)) found("host_syscall", reason);
  if (!syscall_note.empty()) detail["syscall_scan"] = syscall_note;
  detail["forbidden"] = forbidden;
  detail["findings"] = findings;
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!forbidden.empty()) {
    auto s = failed_stage("static", Verdict::forbidden, first_reason(forbidden), detail);
    s.seconds = secs;
    r.add_stage(s);
    return "the static checks failed";
  }
  r.add_stage({"static", StageStatus::ok, secs, "no forbidden code", detail});
  return {};
}

}  // namespace ptxbench
