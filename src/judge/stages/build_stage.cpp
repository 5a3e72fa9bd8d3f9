// The build, in the sandbox. On the include path: a private folder holding only the problem's
// interface.h (not the problem folder: its spec lists the hidden shapes), the arch's knowledge
// pack (ptx.cuh) and the user's -I folders. Readable for relative includes: the candidate's
// folder (or only the file) and the read roots the caller trusts.
#include <filesystem>

#include "compile/candidate_options.h"
#include "core/arch.h"
#include "judge/stages/cpu_stages.h"
#include "sandbox/capabilities.h"

namespace ptxbench {
namespace fs = std::filesystem;

StageStop run_build(CpuStageRun& c) {
  const ProblemSpec& p = c.problem;
  const EvalOptions& o = c.options;
  EvaluationRecord& r = c.prepared.record;
  c.note("build: nvcc for " + o.arch);
  BuildOptions bo;
  bo.arch = o.arch;
  bo.display_name = o.display_name;
  const fs::path include = c.build_dir / "include";
  fs::create_directories(include);
  if (fs::is_regular_file(p.interface_header()))
    fs::copy_file(p.interface_header(), include / "interface.h", fs::copy_options::overwrite_existing);
  bo.include_dirs.push_back(include);
  const fs::path knowledge =
      o.knowledge_root.empty() ? p.dir.parent_path().parent_path() / "knowledge" : o.knowledge_root;
  const fs::path pack = knowledge / std::string(arch_info(o.arch).pack);
  if (fs::is_directory(pack)) bo.include_dirs.push_back(pack);
  for (const auto& d : o.include_dirs) bo.include_dirs.push_back(d);
  bo.readable.push_back(o.candidate_folder_readable ? fs::absolute(c.candidate).parent_path()
                                                    : fs::absolute(c.candidate));
  for (const auto& d : o.readable_roots) bo.readable.push_back(d);
  const CandidateOptions opted = parse_candidate_options(c.source);
  bo.extra_flags = opted.flags;
  BuildResult& b = c.build;
  if (opted.error.empty()) {
    b = build_candidate(c.candidate, c.build_dir, bo);
  } else {
    b.diagnostics.push_back({bo.display_name.empty() ? c.candidate.filename().string() : bo.display_name, 1, 0, "error",
                             opted.error, "options"});
    b.log = opted.error + "\n";
  }
  json diags = json::array();
  for (const auto& d : b.diagnostics)
    diags.push_back({{"file", d.file},
                     {"line", d.line},
                     {"column", d.column},
                     {"severity", d.severity},
                     {"message", d.message},
                     {"tool", d.tool}});
  json build_detail = {{"command", b.command},
                       {"diagnostics", diags},
                       {"log", b.log},
                       {"candidate_options", opted.flags},
                       {"sandbox", b.sandbox}};
  r.environment["sandbox"] = {{"host", sandbox::host_capabilities().to_json()}, {"compile", b.sandbox}};
  StageResult s;
  if (!b.infra_error.empty()) {
    s = failed_stage("build", Verdict::infra_error, b.infra_error, build_detail);
  } else if (!b.forbidden.empty()) {
    build_detail["forbidden"] = b.forbidden;
    build_detail["rule"] = "include";  // a file the build may not read (the dependency check)
    s = failed_stage("build", Verdict::forbidden, first_reason(b.forbidden), build_detail);
  } else if (!b.ok) {
    std::string first = b.timed_out ? "nvcc timed out" : "nvcc failed";
    for (const auto& d : b.diagnostics)
      if (d.severity == "error" || d.severity == "fatal") {
        first = (d.file.empty() ? "" : d.file + ":" + std::to_string(d.line) + ": ") + d.message;
        break;
      }
    s = failed_stage("build", Verdict::compile_error, first, build_detail);
  } else {
    s = {"build", StageStatus::ok, 0, "built " + b.shared_object.filename().string(), build_detail};
  }
  s.seconds = b.seconds;
  r.add_stage(s);
  if (!b.ok) return "the build failed";
  return {};
}

}  // namespace ptxbench
