// ptxbench eval [--problem NAME] [FILE...]: build, check, run and time candidates; save records.
#include <spdlog/spdlog.h>

#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/engine_flags.h"
#include "core/error.h"
#include "problems/registry.h"
#include "report/summary.h"
#include "service/engine_candidate_service.h"
#include "service/evaluator.h"
#include "store/workspace_db.h"

namespace ptxbench::cli {
namespace {

struct EvalArgs {
  std::string problem = "gemm";
  std::vector<std::string> files;
  std::string arch = "sm_90a";
  bool json = false, no_gpu = false, no_sanitize = false, no_probe = false, no_timing = false, no_store = false,
       no_accounting = false;
  int device = 0;
  std::string worker;
  bool sequential = false;  // several files one after another, without the service's engine
  EngineFlags engine;
  std::vector<std::string> include_dirs;
};

void run_eval(const EvalArgs& a, const GlobalOptions& g, ExitCode& code) {
  ProblemRegistry registry(g.problems.empty() ? ProblemRegistry::default_root() : std::filesystem::path(g.problems));
  ProblemSpec spec = registry.load(a.problem);
  std::vector<std::string> files = a.files;
  if (files.empty()) {
    auto def = spec.dir / "reference" / "wgmma_tma.cu";
    if (!std::filesystem::exists(def)) throw InputError("no candidate file given and " + def.string() + " does not exist");
    spdlog::info("no candidate given: evaluating the reference {}", def.string());
    files.push_back(def.string());
  }
  for (const auto& f : files)
    if (!std::filesystem::is_regular_file(f)) throw InputError("candidate '" + f + "' does not exist or is not a file");

  EvalOptions opt;
  opt.arch = a.arch;
  opt.workspace = workspace_dir(g);
  opt.worker = a.worker;
  opt.use_gpu = !a.no_gpu;
  opt.sanitize = !a.no_sanitize;
  opt.probe = !a.no_probe;
  opt.timing = !a.no_timing;
  opt.accounting = !a.no_accounting;
  opt.device = a.device;
  for (const auto& d : a.include_dirs) opt.include_dirs.emplace_back(d);
  size_t index = 0;
  std::optional<WorkspaceDb> db;
  if (!a.no_store) {
    db.emplace(std::filesystem::path(opt.workspace) / "ptxbench.db");
    if (!db->status().ok) throw InputError("workspace database: " + db->status().error);
  }
  json all = json::array();
  int worst = 0;
  auto report = [&](EvaluationRecord r) {
    long long id = 0;
    if (db) {
      if (auto s = db->insert(r, &id); !s.ok) {
        // The record is printed below either way: it is never lost silently.
        spdlog::error("could not store the record: {}", s.error);
        worst = std::max(worst, exit_code_for(Verdict::infra_error));
      }
    }
    json j = to_json(r);
    if (db) j["id"] = id;
    all.push_back(j);
    if (!a.json) std::cout << format_summary(r) << (db ? "stored as evaluation " + std::to_string(id) + "\n" : "") << "\n";
    else spdlog::info("[{}/{}] verdict {}", index + 1, files.size(), to_string(r.verdict));
    worst = std::max(worst, exit_code_for(r.verdict));
  };
  if ((files.size() > 1 && !a.sequential && opt.use_gpu) || !a.engine.queue.empty() || a.engine.submit_only) {
    // Several files, or a queue given: through the service's engine (builds in parallel, GPU
    // sharing, timing alone), or, --submit-only, through the `serve` workers of a Redis queue.
    EngineServiceOptions so;
    so.eval = opt;
    so.engine = engine_options(a.engine);
    if (so.engine.devices == std::vector<int>{0}) so.engine.devices = {a.device};
    so.max_attempts = a.engine.max_attempts;
    so.queue = a.engine.queue;
    so.submit_only = a.engine.submit_only;
    EngineCandidateService service(so, [](const std::string& line) { spdlog::debug("{}", line); });
    std::vector<CandidateTicket> tickets;
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      tickets.push_back(service.submit({&spec, std::string(std::istreambuf_iterator<char>(in), {}), f}));
    }
    for (; index < files.size(); ++index) {
      EvaluationRecord r = tickets[index].wait().record;
      r.candidate_path = files[index];
      spdlog::info("[{}/{}] {}: {}", index + 1, files.size(), files[index], to_string(r.verdict));
      report(std::move(r));
    }
  } else {
    Evaluator ev(opt, [&](const std::string& line) { spdlog::info("[{}/{}] {}", index + 1, files.size(), line); });
    for (; index < files.size(); ++index) {
      spdlog::info("[{}/{}] {} on {}", index + 1, files.size(), files[index], spec.name);
      report(ev.evaluate(spec, files[index]));
    }
  }
  if (a.json) std::cout << (all.size() == 1 ? all[0] : all).dump(2) << "\n";
  code.value = worst;
}

}  // namespace

void add_eval_command(CLI::App& app, GlobalOptions& g, ExitCode& code) {
  auto a = std::make_shared<EvalArgs>();
  auto* cmd = app.add_subcommand("eval", "Judge candidate .cu files: build, static checks, sanitizers, correctness, "
                                         "executed target instructions, timing vs the library baseline");
  cmd->add_option("files", a->files, "Candidate .cu files (default: the problem's reference/wgmma_tma.cu)");
  cmd->add_option("-p,--problem", a->problem, "Problem name (see 'ptxbench problems')")->capture_default_str();
  cmd->add_option("--arch", a->arch, "Target architecture")->check(arch_validator())->capture_default_str();
  cmd->add_flag("--json", a->json, "Print the evaluation record(s) as JSON on stdout");
  cmd->add_flag("--no-gpu", a->no_gpu, "Build and run static checks only");
  cmd->add_flag("--no-sanitize", a->no_sanitize, "Skip compute-sanitizer");
  cmd->add_flag("--no-probe", a->no_probe, "Skip counting the executed target instructions");
  cmd->add_flag("--no-timing", a->no_timing, "Skip timing");
  cmd->add_flag("--no-store", a->no_store, "Do not save records in the workspace database");
  cmd->add_flag("--no-accounting", a->no_accounting,
                "Do not audit GPU activity or count instructions in-process (only to measure their effect on timing)");
  cmd->add_option("--device", a->device, "CUDA device index")->check(CLI::NonNegativeNumber);
  cmd->add_option("--worker", a->worker, "Path to ptxbench-worker (default: beside ptxbench)");
  cmd->add_flag("--sequential", a->sequential, "Several files one after another in this process, not through the service's engine");
  add_engine_flags(cmd, a->engine);
  cmd->add_option("-I,--include", a->include_dirs, "Extra include folder for candidates")->check(CLI::ExistingDirectory);
  cmd->footer("Exit codes: 0 correct, 1 bad input, 2 not run (no GPU), 10 compile_error, 11 forbidden, "
              "12 runtime_error, 13 sanitizer_error, 14 incorrect, 20 infra_error (worst over all files).");
  cmd->callback([a, &g, &code] { run_eval(*a, g, code); });
}

}  // namespace ptxbench::cli
