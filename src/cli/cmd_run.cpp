// ptxbench run --model PROVIDER:MODEL [--problems LIST|all] [--arch A] [--trajectories N] [--turns N]
//   [--knowledge LIST] [--config FILE] [--model-arg k=v]... [--suite NAME]: run (or resume) a model
// against the problems (or a suite's, each recorded with its split), turn by turn, recording
// everything in the workspace database.
#include <unistd.h>

#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

#include "agent/clients/model_client.h"
#include "agent/prompt_builder.h"
#include "agent/run_config.h"
#include "agent/run_driver.h"
#include "agent/run_identity.h"
#include "cli/commands.h"
#include "cli/engine_flags.h"
#include "cli/stop_signals.h"
#include "core/arch.h"
#include "core/error.h"
#include "fixit_core/repair_notes.h"
#include "judge/toolchain_info.h"
#include "problems/registry.h"
#include "problems/suite_spec.h"
#include "report/run_tables.h"
#include "service/service_factory.h"
#include "store/run_store.h"

namespace ptxbench::cli {
namespace {

struct RunFlags {
  std::string config_file, model, problems, suite, arch, language, knowledge, context_turns, run_name, worker;
  std::vector<std::string> model_args;
  int trajectories = 0, turns = 0, limit = 0, max_infra_errors = 0, parallel = 0, compile_jobs = 0, device = 0;
  double infra_retry_delay = 0;
  bool validate = false, rejudge = false, json = false;
  bool service = false;  // the GPU profiling service's engine in process (lanes, health probes)
  EngineFlags engine;
  bool no_gpu = false, no_sanitize = false, no_probe = false, no_timing = false, no_cache = false;
  std::string repair_notes;
  int notes_k = 3;
  bool with_fixed_kernel = false, notes_same_problem = false;
  std::map<std::string, CLI::Option*> given;  // option name -> option (count() > 0 when given)
  bool has(const std::string& name) const {
    auto it = given.find(name);
    return it != given.end() && it->second->count() > 0;
  }
};

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

RunConfig resolve_config(const RunFlags& f, const ProblemRegistry& registry) {
  RunConfig c;
  if (!f.config_file.empty()) {
    if (!std::filesystem::is_regular_file(f.config_file))
      throw InputError("--config " + f.config_file + ": no such file");
    c = load_run_config_file(f.config_file, c);
  }
  if (f.has("--model")) c.model = f.model;
  for (const auto& pair : f.model_args) {
    auto [k, v] = parse_model_arg(pair);
    c.model_args[k] = v;
  }
  if (f.has("--problems")) c.problems = split(f.problems);
  if (f.has("--suite")) c.suite = f.suite;
  if (f.has("--arch")) c.arch = f.arch;
  if (f.has("--language")) c.language = f.language;
  if (f.has("--trajectories")) c.trajectories = f.trajectories;
  if (f.has("--turns")) c.turns = f.turns;
  if (f.has("--knowledge")) c.knowledge = f.knowledge;
  if (f.has("--context-turns")) c.context_turns = parse_context_turns(f.context_turns);
  if (f.has("--limit")) c.limit = f.limit;
  if (f.has("--max-infra-errors")) c.max_infra_errors = f.max_infra_errors;
  if (f.has("--infra-retry-delay")) c.infra_retry_delay_s = f.infra_retry_delay;
  if (f.has("--parallel")) c.parallel = f.parallel;
  if (f.has("--compile-jobs")) c.compile_jobs = f.compile_jobs;
  if (f.has("--run-name")) c.run_name = f.run_name;
  if (f.rejudge) c.rejudge = true;
  if (f.no_gpu) c.use_gpu = false;
  if (f.no_sanitize) c.sanitize = false;
  if (f.no_probe) c.probe = false;
  if (f.no_timing) c.timing = false;
  if (f.has("--device")) c.device = f.device;
  if (f.has("--repair-notes")) c.repair_notes.source = f.repair_notes;
  if (f.has("--notes-k")) c.repair_notes.k = f.notes_k;
  if (f.with_fixed_kernel) c.repair_notes.with_fixed_kernel = true;
  if (f.notes_same_problem) c.repair_notes.same_problem = true;

  // Canonical forms, so the same settings always give the same run identity.
  arch_info(c.arch);
  c.knowledge = components_to_string(parse_components(c.knowledge));
  const bool all_problems = c.problems.size() == 1 && c.problems[0] == "all";
  if (!c.suite.empty()) {
    // The suite decides the problems, and says which are trained on and which held out.
    if (!all_problems)
      throw InputError("give --problems or --suite, not both (suite '" + c.suite + "' names its own problems)");
    const SuiteSpec suite = SuiteRegistry(SuiteRegistry::default_root(registry.root())).load(c.suite, registry);
    c.problems = suite.evaluated();
    c.splits = suite.splits();
  } else if (all_problems) {
    c.problems = registry.names();
  }
  for (const auto& p : c.problems) registry.load(p);  // an unknown name is an InputError listing the known ones
  validate_run_config(c);
  parse_model_spec(c.model);
  return c;
}

// The run's judge (its config's GPU stage switches) and service: --service, --queue or
// --submit-only for the service engine, else the in-process compile pool and one GPU lane.
ServiceFlags service_flags(const RunConfig& c, const RunFlags& f, const GlobalOptions& g) {
  ServiceFlags s;
  s.judge.arch = c.arch;
  s.judge.language = *language_from_string(c.language);
  s.judge.workspace = workspace_dir(g);
  s.judge.worker = f.worker;
  s.judge.use_gpu = c.use_gpu;
  s.judge.sanitize = c.sanitize;
  s.judge.probe = c.probe;
  s.judge.timing = c.timing;
  s.judge.device = c.device;
  s.judge.library_timing_cache = !f.no_cache;  // not the run's identity: how it is judged, not what
  s.engine = f.service || f.engine.names_a_queue();
  s.compile_jobs = c.compile_jobs;
  s.engine_flags = f.engine;
  // The engine runs on --devices; --device alone (with --service) names its one GPU, as for eval.
  if (f.has("--device") && f.engine.devices != std::vector<int>{0} && f.engine.devices != std::vector<int>{c.device})
    throw InputError("--device " + std::to_string(c.device) + " and --devices disagree: give one of them");
  s.device_picks_engine_gpu = true;
  return s;
}

int run_validate(const RunConfig& c, const std::vector<ProblemSpec>& specs, const std::filesystem::path& knowledge,
                 ModelClient& client, CandidateService& service, bool as_json) {
  json report = {{"run_id", run_id_for(c)}, {"config", c.to_json()}};
  bool ok = true;
  json prompts = json::array();
  PromptOptions po;
  po.arch = c.arch;
  po.language = *language_from_string(c.language);
  po.components = parse_components(c.knowledge);
  po.knowledge_root = knowledge;
  for (const auto& p : specs) {
    try {
      auto parts = build_prompt_parts(p, po);
      prompts.push_back({{"problem", p.name},
                         {"ok", true},
                         {"system_bytes", parts.system.size()},
                         {"problem_bytes", parts.problem.size()}});
    } catch (const InputError& e) {
      ok = false;
      prompts.push_back({{"problem", p.name}, {"ok", false}, {"error", e.what()}});
    }
  }
  report["prompts"] = prompts;
  ValidateResult v;
  try {
    v = client.validate();
  } catch (const std::exception& e) {
    v = {false, std::string("the client's validate() threw: ") + e.what()};
  }
  ok = ok && v.ok;
  report["model"] = {{"ok", v.ok}, {"message", v.message}};
  const std::string nvcc = nvcc_version();
  const bool nvcc_ok = nvcc.rfind("none", 0) != 0;
  ok = ok && nvcc_ok;
  report["nvcc"] = {{"ok", nvcc_ok}, {"version", nvcc}};
  const GpuDescription gpu = service.describe_gpu();
  report["gpu"] = {{"gpu_stages", gpu.gpu_stages}, {"gpu", gpu.gpu}, {"reason", gpu.reason}};
  report["ok"] = ok;
  if (as_json) {
    std::cout << report.dump(2) << "\n";
  } else {
    std::cout << "run " << run_id_for(c) << ": " << c.model << ", " << c.arch << ", " << specs.size()
              << " problem(s) x " << c.trajectories << " x " << c.turns << ", knowledge " << c.knowledge << "\n";
    for (const auto& p : prompts)
      std::cout << "  prompt " << p["problem"].get<std::string>() << ": "
                << (p["ok"].get<bool>() ? "ok (" + std::to_string(p["system_bytes"].get<size_t>()) + " + " +
                                              std::to_string(p["problem_bytes"].get<size_t>()) + " bytes)"
                                        : "ERROR " + p["error"].get<std::string>())
                << "\n";
    std::cout << "  model: " << (v.ok ? "ok" : "ERROR") << " - " << v.message << "\n";
    std::cout << "  nvcc: " << (nvcc_ok ? "ok" : "ERROR") << " - " << nvcc << "\n";
    std::cout << "  GPU: " << (gpu.gpu_stages ? gpu.gpu : "no GPU stage will run: " + gpu.reason) << "\n";
    std::cout << (ok ? "valid: nothing was generated or stored\n" : "NOT valid (see the errors above)\n");
  }
  return ok ? 0 : 1;
}

void run_command(const RunFlags& f, const GlobalOptions& g, ExitCode& code) {
  ProblemRegistry registry(problems_root(g));
  RunConfig config = resolve_config(f, registry);
  // Repair notes: loaded now, so their content's hash is part of the run's identity.
  std::unique_ptr<fixit::RepairNotes> notes;
  if (!config.repair_notes.source.empty()) {
    notes = fixit::load_repair_notes(config.repair_notes.source, database_path(g, false));
    config.repair_notes.sha256 = notes->sha256();
    std::cerr << "[ptxbench] repair notes: " << notes->size() << " from " << notes->source() << " (k "
              << config.repair_notes.k << (config.repair_notes.with_fixed_kernel ? ", with fixed kernels" : "")
              << (config.repair_notes.same_problem ? ", same problem allowed" : ", other problems only") << ")\n";
  }
  std::vector<ProblemSpec> specs;
  for (const auto& p : config.problems) specs.push_back(registry.load(p));
  for (const auto& s : specs)
    if (!s.targets_for(config.arch)) throw InputError("problem '" + s.name + "' defines no targets for " + config.arch);
  const auto knowledge = registry.root().parent_path() / "knowledge";

  ClientConfig cc = parse_model_spec(config.model);
  cc.args = config.model_args;
  std::unique_ptr<ModelClient> client = make_client(cc);

  // SIGINT/SIGTERM: the first stops the run gracefully, a second exits at once.
  RunDriver* driver_ptr = nullptr;
  std::mutex driver_mutex;
  StopSignals signals([&](const char* name) {
    std::lock_guard lock(driver_mutex);
    if (driver_ptr)
      driver_ptr->request_stop(
          std::string("interrupted by ") + name +
              ": no new model call or judgment starts; run the same command to resume (again to quit at once)",
          true);
  });
  const ProgressFn progress =
      g.verbose ? ProgressFn([](const std::string& l) { std::cerr << "  " << l << "\n"; }) : ProgressFn();
  std::unique_ptr<CandidateService> service_ptr = make_candidate_service(service_flags(config, f, g), progress);
  CandidateService& service = *service_ptr;

  if (f.validate) {
    code.value = run_validate(config, specs, knowledge, *client, service, f.json);
    return;
  }
  RunStore store(database_path(g, false));
  if (!store.status().ok) throw InputError("workspace database: " + store.status().error);
  RunDriverOptions o;
  o.knowledge_root = knowledge;
  o.workspace = workspace_dir(g);
  o.interactive = isatty(STDERR_FILENO);
  o.notes = notes.get();
  RunDriver driver(config, specs, *client, service, store, o);
  {
    std::lock_guard lock(driver_mutex);
    driver_ptr = &driver;
  }
  RunOutcome out = driver.run();
  {
    std::lock_guard lock(driver_mutex);
    driver_ptr = nullptr;
  }
  std::vector<TurnRow> turns;
  std::vector<TrajectoryRow> trajectories;
  auto s1 = store.load_turns(out.run.id, &turns);
  auto s2 = store.load_trajectories(out.run.id, &trajectories);
  if (!s1.ok || !s2.ok) throw Error("reading the run back: " + (s1.ok ? s2.error : s1.error));
  if (f.json) {
    json j = report::run_summary_json(out.run, turns, trajectories);
    j["invocation"] = {{"new_turns", out.new_turns},
                       {"created", out.created},
                       {"status", out.status},
                       {"stop_kind", out.stop_kind},
                       {"stop_reason", out.stop_reason}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << report::format_run_summary(out.run, turns, trajectories);
  }
  if (out.status != "complete")
    std::cerr << "[ptxbench] run " << out.run.id << " stopped: " << out.stop_reason
              << "\n[ptxbench] everything so far is stored; run the same command again to resume.\n";
  if (!out.gpu.gpu_stages) std::cerr << "[ptxbench] no GPU stage ran: " << out.gpu.reason << ".\n";
  code.value = out.store_failed ? kExitStoreFailure : out.status == "complete" ? 0 : kExitRunStopped;
}

}  // namespace

void add_run_command(CLI::App& app, GlobalOptions& g, ExitCode& code) {
  auto f = std::make_shared<RunFlags>();
  auto* cmd = app.add_subcommand("run",
                                 "Run a model against the problems for several trajectories of several turns, "
                                 "feeding each verdict back; record everything (re-running resumes)");
  auto opt = [&](CLI::Option* o) {
    f->given[o->get_name()] = o;
    return o;
  };
  opt(cmd->add_option(
      "--model", f->model,
      "PROVIDER:MODEL, e.g. openai:gpt-5, anthropic:claude-opus-4-8, replay:PATH (a JSONL export or "
      "workspace), files:DIR (DIR/<problem>/<trajectory>/<turn>.cu, numbered from 0; a missing <turn>.cu is a "
      "turn without code, a missing folder an error)"));
  cmd->add_option("--model-arg", f->model_args,
                  "Provider option KEY=VALUE (repeatable): base_url, temperature, max_tokens, max_completion_tokens, "
                  "reasoning_effort, seed, api_key_env; replay: run, latency_ms; files: latency_ms");
  cmd->add_option("--config", f->config_file, "Run config file (TOML); flags given here override it")
      ->check(CLI::ExistingFile);
  opt(cmd->add_option("--problems", f->problems, "Problem names, comma-separated, or all (default all)"));
  opt(cmd->add_option(
      "--suite", f->suite,
      "Run a suite's problems (suites/<name>.toml, e.g. paper, 4ops, 8ops; see 'ptxbench problems --suites'); "
      "each is recorded with its split (train / held-out). Not with --problems"));
  opt(cmd->add_option("--arch", f->arch, "Target architecture (default sm_90a)")->check(arch_validator()));
  opt(cmd->add_option(
             "--language", f->language,
             "The candidates' language: cuda (default) or triton (one Python file of @triton.jit kernels; the CPU "
             "stages only so far, with --no-gpu)")
          ->check(CLI::IsMember(language_names())));
  opt(cmd->add_option("--trajectories", f->trajectories, "Trajectories per problem (default 12)"));
  opt(cmd->add_option("--turns", f->turns, "Counted turns per trajectory (default 8)"));
  opt(cmd->add_option("--knowledge", f->knowledge,
                      "Knowledge components: params,ptx,contract, all or none (default all)"));
  opt(cmd->add_option("--context-turns", f->context_turns,
                      "Turns kept in full in each request (older ones as one line each), or all (default 3)"));
  opt(cmd->add_option("--limit", f->limit, "Stop after this many new turns in this invocation (resumable)"));
  opt(cmd->add_option(
      "--max-infra-errors", f->max_infra_errors,
      "Infrastructure errors tolerated (retried, never counted as turns) before the run stops (default 10)"));
  opt(cmd->add_option("--infra-retry-delay", f->infra_retry_delay,
                      "Seconds to wait before retrying after an infra error (default 5)"));
  opt(cmd->add_option("--parallel", f->parallel, "Trajectories in flight at once (default 0: all)"));
  opt(cmd->add_option("--compile-jobs", f->compile_jobs, "nvcc builds at once (default 0: one per core)"));
  opt(cmd->add_option("--run-name", f->run_name, "Name the run (default: derived from the model, arch and config)"));
  cmd->add_flag("--validate", f->validate,
                "Check the config, prompts, model keys and endpoint, nvcc and the GPU; generate nothing");
  cmd->add_flag("--rejudge", f->rejudge,
                "Judge identical candidates again (default: reuse the run's earlier judgment)");
  cmd->add_flag("--no-gpu", f->no_gpu, "Build and run static checks only");
  cmd->add_flag("--no-sanitize", f->no_sanitize, "Skip compute-sanitizer");
  cmd->add_flag("--no-probe", f->no_probe, "Skip counting the executed target instructions");
  cmd->add_flag("--no-timing", f->no_timing,
                "Skip timing (target_executed is then unknown: the timed calls decide it)");
  cmd->add_flag("--no-cache", f->no_cache,
                "No workload-state caching: the library's clean timings neither read from nor "
                "kept in the workspace, and none of the engine's in-memory caches");
  opt(cmd->add_option("--device", f->device, "CUDA device index")->check(CLI::NonNegativeNumber));
  cmd->add_option("--worker", f->worker, "Path to ptxbench-worker (default: beside ptxbench)");
  cmd->add_flag("--json", f->json, "Print the final summary (or the --validate report) as JSON on stdout");
  cmd->add_flag("--service", f->service,
                "Judge through the GPU profiling service's engine in process: GPU sharing "
                "(--lanes), an exclusive timing lane per GPU (--devices), health probes");
  opt(cmd->add_option("--repair-notes", f->repair_notes,
                      "Repair notes in the feedback after a failing turn: a Fixit build id of the workspace, or a "
                      "`fixit export --format records` file"));
  opt(cmd->add_option("--notes-k", f->notes_k, "Repair notes shown per failing turn (default 3)"));
  cmd->add_flag("--with-fixed-kernel", f->with_fixed_kernel, "Show each note's fixed kernel too");
  cmd->add_flag(
      "--notes-same-problem", f->notes_same_problem,
      "Allow notes of the problem being solved (the in-distribution condition; default: other problems only)");
  add_engine_flags(cmd, f->engine);
  cmd->footer(
      "Re-running the same command resumes the run: no turn is repeated or lost (a reply stored but not judged is "
      "judged without calling the model). The run is identified by the model, its arguments, the arch, the knowledge, "
      "the problems (and the suite), --context-turns and the GPU stage switches; --trajectories/--turns may grow on "
      "resume.\n"
      "Exit codes: 0 complete, 1 bad input, 3 stopped before finishing (--limit, quota, infra errors, a signal; "
      "resumable), 20 the store failed.");
  cmd->callback([f, &g, &code] { run_command(*f, g, code); });
}

}  // namespace ptxbench::cli
