// ptxbench eval [-p NAME] [FILE...]: build, check, run and time candidates; save records.
// With --json, one record per line (JSONL) as each evaluation finishes, always the same shape
// (the record, plus "id": the stored evaluation's id or null, and "store_error": null or why).
#include <spdlog/spdlog.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "cli/commands.h"
#include "cli/engine_flags.h"
#include "cli/problem_inference.h"
#include "core/bytes.h"
#include "core/error.h"
#include "judge/infra_retry.h"
#include "problems/registry.h"
#include "problems/triton_abi.h"
#include "report/summary.h"
#include "sandbox/capabilities.h"
#include "service/service_factory.h"
#include "store/workspace_db.h"

namespace ptxbench::cli {
namespace fs = std::filesystem;
namespace {

struct EvalArgs {
  std::string problem;
  std::vector<std::string> files;
  std::string arch = "sm_90a";
  std::string language;  // empty: by the files' extension (.py: triton)
  bool json = false, no_gpu = false, no_sanitize = false, no_probe = false, no_timing = false, no_store = false,
       no_accounting = false, no_cache = false;
  int library_check_samples = 5;
  int device = 0;
  std::string worker;
  bool sequential = false;  // several files one after another, without the service's engine
  EngineFlags engine;
  std::vector<std::string> include_dirs, read_roots;
};

// A workspace the builds (and the database) can go in: an InputError saying why not.
void require_writable(const fs::path& ws) {
  std::error_code ec;
  fs::create_directories(ws, ec);
  if (ec) throw InputError("workspace '" + ws.string() + "' cannot be created: " + ec.message());
  std::string probe = (ws / ".write-test-XXXXXX").string();
  const int fd = mkstemp(probe.data());
  if (fd < 0) throw InputError("workspace '" + ws.string() + "' is not writable: " + std::strerror(errno));
  close(fd);
  unlink(probe.c_str());
}

// With --no-store the builds go to a private temporary folder: the workspace is not touched.
struct TempWorkspace {
  fs::path path;
  TempWorkspace() {
    std::string t = (fs::temp_directory_path() / "ptxbench-eval-XXXXXX").string();
    if (!mkdtemp(t.data()))
      throw InputError(std::string("cannot create a temporary workspace: ") + std::strerror(errno));
    path = t;
  }
  ~TempWorkspace() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void log_details(const EvaluationRecord& r) {
  if (const auto* b = r.stage("build")) spdlog::debug("build command: {}", b->detail.value("command", ""));
  for (const auto& s : r.stages)
    spdlog::debug("stage {}: {} ({:.2f} s) {}", s.name, to_string(s.status), s.seconds, s.message);
  if (r.environment.contains("sandbox")) spdlog::debug("sandbox: {}", r.environment["sandbox"].dump());
}

void run_eval(const EvalArgs& a, const GlobalOptions& g, ExitCode& code) {
  ProblemRegistry registry(problems_root(g));
  std::vector<std::string> files = a.files;
  if (files.empty()) {
    auto def = registry.load(a.problem.empty() ? "gemm" : a.problem).dir / "reference" / "wgmma_tma.cu";
    if (!fs::exists(def)) throw InputError("no candidate file given and " + def.string() + " does not exist");
    spdlog::info("no candidate given: evaluating the reference {}", def.string());
    files.push_back(def.string());
  }
  std::vector<ProblemSpec> specs;
  for (const auto& f : files) {
    const std::string source = read_file_bytes(f, "candidate");
    specs.push_back(registry.load(a.problem.empty() ? infer_problem(f, source, registry) : a.problem));
  }
  // One language per invocation: named, or the same extension on every file.
  Language language = Language::cuda;
  if (!a.language.empty()) {
    language = *language_from_string(a.language);
  } else {
    language = language_of_file(files.front());
    for (const auto& f : files)
      if (language_of_file(f) != language)
        throw InputError(
            "the files mix Triton (.py) and CUDA candidates: judge each language in its own eval, or pass --language");
  }
  if (language == Language::triton) {
    if (a.engine.names_a_queue())
      throw InputError("--language triton does not go through the engine's queue yet: drop --queue/--submit-only");
    for (const auto& s : specs)
      if (!load_triton_abi(s))
        throw InputError("problem '" + s.name + "' has no Triton interface (problems/" + s.name + "/triton/abi.toml)");
  }

  std::optional<TempWorkspace> temp;
  ServiceFlags sf;
  JudgeFlags& opt = sf.judge;
  if (a.no_store) {
    temp.emplace();
    opt.workspace = temp->path;
  } else {
    opt.workspace = workspace_dir(g);
    require_writable(opt.workspace);
  }
  opt.arch = a.arch;
  opt.language = language;
  opt.worker = a.worker;
  opt.use_gpu = !a.no_gpu;
  opt.sanitize = !a.no_sanitize;
  opt.probe = !a.no_probe;
  opt.timing = !a.no_timing;
  opt.accounting = !a.no_accounting;
  opt.library_timing_cache = !a.no_cache;
  opt.library_check_samples = a.library_check_samples;
  opt.device = a.device;
  for (const auto& d : a.include_dirs) opt.include_dirs.emplace_back(fs::absolute(d));
  // Files named on the command line are the user's: besides their own folder, the references of
  // every problem are readable to them (test candidates and the causal references include those).
  for (const auto& n : registry.names()) opt.readable_roots.push_back(fs::absolute(registry.root() / n / "reference"));
  for (const auto& d : a.read_roots) opt.readable_roots.emplace_back(fs::absolute(d));
  // Several files, or a queue given: through the service's engine (builds in parallel, GPU
  // sharing, timing alone), or, --submit-only, through the `serve` workers of a Redis queue.
  sf.engine = (files.size() > 1 && !a.sequential && opt.use_gpu) || a.engine.names_a_queue();
  sf.engine_flags = a.engine;
  spdlog::debug("sandbox on this host: {}", sandbox::host_capabilities().to_json().dump());
  size_t index = 0;
  std::optional<WorkspaceDb> db;
  if (!a.no_store) {
    db.emplace(fs::path(opt.workspace) / "ptxbench.db");
    if (!db->status().ok) throw InputError("workspace database: " + db->status().error);
  }
  int worst = 0;
  auto report = [&](EvaluationRecord r) {
    log_details(r);
    std::optional<long long> id;
    std::optional<std::string> store_error;
    if (db) {
      long long stored = 0;
      if (auto s = db->insert(r, &stored); s.ok) {
        id = stored;
      } else {
        // The record is printed below either way: never lost silently.
        store_error = s.error;
        spdlog::error("could not store the evaluation of {}: {}", files[index], s.error);
        worst = std::max(worst, kExitStoreFailure);
      }
    }
    if (a.json) {
      json j = to_json(r);
      j["id"] = id ? json(*id) : json(nullptr);
      j["store_error"] = store_error ? json(*store_error) : json(nullptr);
      std::cout << j.dump() << std::endl;  // one line per record, flushed as it finishes
      spdlog::info("[{}/{}] verdict {}", index + 1, files.size(), to_string(r.verdict));
    } else {
      std::cout << report::format_summary(r);
      if (id) std::cout << "stored as evaluation " << *id << "\n";
      else if (store_error) std::cout << "NOT STORED: " << *store_error << "\n";
      std::cout << std::endl;
    }
    worst = std::max(worst, exit_code_for(r.verdict));
  };
  if (sf.engine) {
    auto service = make_candidate_service(sf, [](const std::string& line) { spdlog::debug("{}", line); });
    std::vector<CandidateTicket> tickets;
    for (size_t i = 0; i < files.size(); ++i)
      tickets.push_back(service->submit(
          {&specs[i], read_file_bytes(files[i], "candidate"), files[i], {}, fs::absolute(files[i]).parent_path()}));
    for (; index < files.size(); ++index) {
      EvaluationRecord r = tickets[index].wait().record;
      r.candidate_path = files[index];
      spdlog::info("[{}/{}] {}: {}", index + 1, files.size(), files[index], to_string(r.verdict));
      report(std::move(r));
    }
  } else {
    auto judge =
        make_judge(opt, [&](const std::string& line) { spdlog::info("[{}/{}] {}", index + 1, files.size(), line); });
    for (; index < files.size(); ++index) {
      spdlog::info("[{}/{}] {} on {}", index + 1, files.size(), files[index], specs[index].name);
      // An infra_error is never the candidate's: judged again, up to --max-attempts runs in all.
      report(evaluate_with_infra_retries([&] { return judge->evaluate(specs[index], files[index]); },
                                         a.engine.max_attempts,
                                         [&](int attempt, const std::string& why) {
                                           spdlog::warn("[{}/{}] infra_error ({}): attempt {} of {}", index + 1,
                                                        files.size(), why, attempt, a.engine.max_attempts);
                                         }));
    }
  }
  code.value = worst;
}

}  // namespace

void add_eval_command(CLI::App& app, GlobalOptions& g, ExitCode& code) {
  auto a = std::make_shared<EvalArgs>();
  auto* cmd = app.add_subcommand("eval",
                                 "Judge candidate .cu files: build, static checks, sanitizers, correctness, "
                                 "executed target instructions, timing vs the library baseline");
  cmd->add_option("files", a->files, "Candidate .cu files (default: the problem's reference/wgmma_tma.cu)");
  cmd->add_option("-p,--problem", a->problem,
                  "Problem name (see 'ptxbench problems'); default: the problem whose folder holds the file, or whose "
                  "entry point it defines");
  cmd->add_option("--arch", a->arch, "Target architecture")->check(arch_validator())->capture_default_str();
  cmd->add_option(
         "--language", a->language,
         "The candidates' language: cuda (CUDA C++ with PTX) or triton (one Python file with @triton.jit kernels; "
         "judged by the same stages); default: by the files' extension, .py is triton")
      ->check(CLI::IsMember(language_names()));
  cmd->add_flag("--json", a->json, "Print each evaluation record on stdout as one JSON line, as it finishes");
  cmd->add_flag("--no-gpu", a->no_gpu, "Build and run static checks only");
  cmd->add_flag("--no-sanitize", a->no_sanitize, "Skip compute-sanitizer");
  cmd->add_flag("--no-probe", a->no_probe, "Skip counting the executed target instructions");
  cmd->add_flag("--no-timing", a->no_timing,
                "Skip timing (target_executed is then unknown: the timed calls decide it)");
  cmd->add_flag("--no-store", a->no_store, "Do not save records (the workspace is not touched)");
  cmd->add_flag("--no-accounting", a->no_accounting,
                "Do not audit GPU activity or count instructions in-process (only to measure their effect on timing)");
  cmd->add_flag("--no-cache", a->no_cache,
                "No workload-state caching: the library's clean timings neither read from nor kept in the workspace "
                "(docs/library-timing-cache.md), and none of the engine's in-memory caches");
  cmd->add_option("--library-check-samples", a->library_check_samples,
                  "Samples of the short check that re-validates a stored clean timing of the library (default 5)")
      ->check(CLI::Range(1, 200));
  cmd->add_option("--device", a->device, "CUDA device index")->check(CLI::NonNegativeNumber);
  cmd->add_option("--worker", a->worker, "Path to ptxbench-worker (default: beside ptxbench)");
  // One folder per -I: `-I DIR file.cu` gives DIR to -I and file.cu to the files.
  cmd->add_option("-I,--include", a->include_dirs, "Extra include folder for candidates (repeatable)")
      ->check(CLI::ExistingDirectory)
      ->allow_extra_args(false);
  cmd->add_option("--read-root", a->read_roots,
                  "A folder the candidates' relative includes may read, not on the include path (repeatable)")
      ->check(CLI::ExistingDirectory)
      ->allow_extra_args(false);
  cmd->add_flag("--sequential", a->sequential,
                "Several files one after another in this process, not through the service's engine");
  add_engine_flags(cmd, a->engine);
  cmd->footer(
      "Exit codes: 0 correct, 1 bad input, 2 not run (no GPU), 10 compile_error, 11 forbidden, "
      "12 runtime_error, 13 sanitizer_error, 14 incorrect, 20 infra_error or a record not stored (worst over all "
      "files).");
  cmd->callback([a, &g, &code] { run_eval(*a, g, code); });
}

}  // namespace ptxbench::cli
