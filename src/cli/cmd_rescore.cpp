// ptxbench rescore RUN: judge a run's stored candidates again (e.g. on a GPU host, for a run
// recorded elsewhere) without calling the model.
#include <unistd.h>

#include <iostream>

#include "agent/rescorer.h"
#include "agent/run_progress.h"
#include "cli/commands.h"
#include "core/language.h"
#include "core/error.h"
#include "problems/registry.h"
#include "report/run_tables.h"
#include "service/service_factory.h"
#include "store/run_lock.h"
#include "store/run_store.h"

namespace ptxbench::cli {
namespace {

struct RescoreArgs {
  std::string run, worker;
  int compile_jobs = 0, device = 0;
  bool no_gpu = false, no_sanitize = false, no_probe = false, no_timing = false, json = false;
};

void rescore_command(const RescoreArgs& a, const GlobalOptions& g, ExitCode& code) {
  RunStore store(database_path(g, true));
  if (!store.status().ok) throw InputError(store.status().error);
  RunInfo run;
  if (auto s = store.get_run(a.run, &run); !s.ok) throw InputError(s.error);
  RunLock lock(workspace_dir(g), run.id);
  if (!lock.held()) throw InputError(lock.error());
  ProblemRegistry registry(problems_root(g));
  std::vector<ProblemSpec> specs;
  for (const auto& p : run.problems) specs.push_back(registry.load(p));

  // The run's own evaluation switches, unless a flag here turns a stage off.
  const json ev = run.config.value("evaluation", json::object());
  ServiceFlags sf;  // the in-process compile pool and one GPU lane
  sf.judge.arch = run.arch;
  // The run's language (a run from before Triton is CUDA): its candidates are judged as they were.
  const std::string language = run.config.value("language", std::string("cuda"));
  if (!language_from_string(language))
    throw InputError("run " + run.id + ": unknown language '" + language + "' in its config");
  sf.judge.language = *language_from_string(language);
  sf.judge.workspace = workspace_dir(g);
  sf.judge.worker = a.worker;
  sf.judge.use_gpu = !a.no_gpu;
  sf.judge.sanitize = ev.value("sanitize", true) && !a.no_sanitize;
  sf.judge.probe = ev.value("probe", true) && !a.no_probe;
  sf.judge.timing = ev.value("timing", true) && !a.no_timing;
  sf.judge.device = a.device;
  sf.compile_jobs = a.compile_jobs;
  const std::unique_ptr<CandidateService> service_ptr = make_candidate_service(sf, {});
  CandidateService& service = *service_ptr;
  const GpuDescription gpu = service.describe_gpu();

  std::vector<TurnRow> turns;
  if (auto s = store.load_turns(run.id, &turns); !s.ok) throw InputError(s.error);
  RunProgress progress(run.id + " rescore", 0, static_cast<int>(turns.size()), std::cerr, isatty(STDERR_FILENO),
                       [&service] { return service.load(); });
  progress.message(gpu.gpu_stages ? "rescoring on " + gpu.gpu : "NO GPU STAGE WILL RUN: " + gpu.reason);
  RescoreOutcome out = rescore_run(store, run.id, specs, service, progress);
  progress.finish();
  if (auto s = store.add_event({0, run.id, "", "rescore",
                                std::to_string(out.candidates) + " candidates judged again on " + gpu.gpu + ", " +
                                    std::to_string(out.turns) + " turns updated, " + std::to_string(out.infra_errors) +
                                    " infra errors",
                                "", -1, -1});
      !s.ok)
    std::cerr << "[ptxbench] could not store the rescore event: " << s.error << "\n";

  turns.clear();
  std::vector<TrajectoryRow> trajectories;
  if (auto s = store.load_turns(run.id, &turns); !s.ok) throw InputError(s.error);
  if (auto s = store.load_trajectories(run.id, &trajectories); !s.ok) throw InputError(s.error);
  if (a.json) {
    json j = report::run_summary_json(run, turns, trajectories);
    j["rescore"] = {{"candidates", out.candidates},
                    {"turns", out.turns},
                    {"pending_skipped", out.pending_skipped},
                    {"infra_errors", out.infra_errors},
                    {"changed", out.changed},
                    {"errors", out.errors},
                    {"gpu", gpu.gpu},
                    {"gpu_stages", gpu.gpu_stages},
                    {"reason", gpu.reason}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "rescored " << out.candidates << " distinct candidates (" << out.turns << " turns) of run " << run.id
              << (gpu.gpu_stages ? " on " + gpu.gpu : "; no GPU stage ran: " + gpu.reason) << "\n";
    for (const auto& [change, n] : out.changed) std::cout << "  " << change << ": " << n << " turns\n";
    if (out.pending_skipped)
      std::cout << "  " << out.pending_skipped << " turns not judged yet were left for the run to resume\n";
    std::cout << "\n" << report::format_run_summary(run, turns, trajectories);
  }
  code.value = !out.errors.empty() ? kExitStoreFailure : out.infra_errors ? kExitRunStopped : 0;
}

}  // namespace

void add_rescore_command(CLI::App& app, GlobalOptions& g, ExitCode& code) {
  auto a = std::make_shared<RescoreArgs>();
  auto* cmd = app.add_subcommand("rescore", "Judge a run's stored candidates again without calling the model");
  cmd->add_option("run", a->run, "Run id (see 'ptxbench runs list')")->required();
  cmd->add_flag("--no-gpu", a->no_gpu, "Build and run static checks only");
  cmd->add_flag("--no-sanitize", a->no_sanitize, "Skip compute-sanitizer");
  cmd->add_flag("--no-probe", a->no_probe, "Skip counting the executed target instructions");
  cmd->add_flag("--no-timing", a->no_timing,
                "Skip timing (target_executed is then unknown: the timed calls decide it)");
  cmd->add_option("--compile-jobs", a->compile_jobs, "nvcc builds at once (default 0: one per core)");
  cmd->add_option("--device", a->device, "CUDA device index")->check(CLI::NonNegativeNumber);
  cmd->add_option("--worker", a->worker, "Path to ptxbench-worker (default: beside ptxbench)");
  cmd->add_flag("--json", a->json, "JSON output");
  cmd->footer(
      "Every turn with that candidate gets the new evaluation; the feedback the model saw is kept. "
      "Exit codes: 0 done, 1 bad input, 3 some candidates hit infra errors (their old judgment kept), 20 store "
      "failure.");
  cmd->callback([a, &g, &code] { rescore_command(*a, g, code); });
}

}  // namespace ptxbench::cli
