// ptxbench fixit build --runs RUN... --recipe RECIPE [--teacher PROVIDER:MODEL]: turn runs' failing
//   turns into judged training records (resumable: the same command goes on where it stopped);
// ptxbench fixit export [--build ID | --recipe NAME] --format trl|sharegpt|openai|records [-o FILE]:
//   the records as chat JSON Lines for a trainer, and a dataset card beside them;
// ptxbench fixit stats [--build ID]... [--format ...] [--items]: the builds, their records and items.
// docs/fixit.md.
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>

#include "agent/clients/model_client.h"
#include "agent/run_config.h"
#include "cli/commands.h"
#include "cli/engine_flags.h"
#include "cli/stop_signals.h"
#include "core/error.h"
#include "fixit/builder.h"
#include "fixit/export.h"
#include "fixit/recipe.h"
#include "fixit/source_turns.h"
#include "problems/registry.h"
#include "problems/suite_spec.h"
#include "report/fixit_tables.h"
#include "report/printer.h"
#include "service/service_factory.h"
#include "store/fixit_store.h"

namespace ptxbench::cli {
namespace {
namespace fs = std::filesystem;

struct BuildArgs {
  std::vector<std::string> runs, teacher_args;
  std::string recipe, teacher, teacher_price, build_name, worker;
  int parallel = 8, max_infra_errors = 10, device = 0, compile_jobs = 0;
  bool no_teacher = false, local = false, json = false;
  bool no_gpu = false, no_sanitize = false, no_probe = false, no_timing = false;
  EngineFlags engine;
};

std::optional<TokenPrices> parse_prices(const std::string& s) {
  if (s.empty()) return std::nullopt;
  const auto comma = s.find(',');
  try {
    if (comma == std::string::npos) throw std::invalid_argument("no comma");
    TokenPrices p{std::stod(s.substr(0, comma)), std::stod(s.substr(comma + 1))};
    if (p.input_per_mtok < 0 || p.output_per_mtok < 0) throw std::invalid_argument("negative");
    return p;
  } catch (const std::exception&) {
    throw InputError("--teacher-price '" + s + "': expected INPUT,OUTPUT in USD per million tokens (e.g. 0.6,2.2)");
  }
}

void build_command(const BuildArgs& a, const GlobalOptions& g, ExitCode& code) {
  ProblemRegistry registry(problems_root(g));
  const fixit::Recipe recipe =
      fixit::RecipeRegistry(fixit::RecipeRegistry::default_root(registry.root())).load(a.recipe);
  const SuiteSpec suite = SuiteRegistry(SuiteRegistry::default_root(registry.root())).load(recipe.suite, registry);
  fixit::SuiteSplits splits{suite.name, suite.splits()};
  if (a.local && a.engine.names_a_queue())
    throw InputError(
        "fixit build: --local judges in this process, so --queue/--submit-only cannot apply: give one or the other");
  if (a.runs.empty())
    throw InputError("--runs: give at least one run (a run id, a `runs export` JSONL file, or a workspace)");

  const fs::path db = database_path(g, false);
  std::vector<fixit::SourceTurn> turns;
  for (const auto& spec : a.runs) {
    auto more = fixit::load_source_turns(spec, db);
    if (more.empty()) std::cerr << "[fixit] note: --runs " << spec << " holds no turn\n";
    for (auto& t : more) {
      // Teacher prompts, extraction and judging here are CUDA's: a Triton run's turns would be
      // judged as the wrong language, so they are refused, saying so.
      if (t.language != "cuda")
        throw InputError("--runs " + spec + ": run " + t.run + " is a " + t.language +
                         " run; fixit build takes CUDA runs only so far");
      turns.push_back(std::move(t));
    }
  }
  std::set<std::string> archs;
  for (const auto& t : turns) archs.insert(t.arch);
  if (archs.size() > 1) {
    std::string list;
    for (const auto& x : archs) list += (list.empty() ? "" : ", ") + x;
    throw InputError("the runs are of several archs (" + list + "): build the records of each arch apart");
  }
  const std::string arch = archs.empty() ? "sm_90a" : *archs.begin();
  std::vector<std::unique_ptr<ProblemSpec>> owned;
  std::map<std::string, const ProblemSpec*> problems;
  for (const auto& name : registry.names()) {
    owned.push_back(std::make_unique<ProblemSpec>(registry.load(name)));
    problems[name] = owned.back().get();
  }

  fixit::TeacherSetup teacher;
  teacher.spec = a.no_teacher ? "" : (a.teacher.empty() ? recipe.teacher : a.teacher);
  teacher.args = a.teacher.empty() ? recipe.teacher_args : json::object();
  for (const auto& kv : a.teacher_args) {  // as --model-arg: never a secret (keys by their variable's name)
    auto [k, v] = parse_model_arg(kv);
    teacher.args[k] = v;
  }
  for (const auto& [k, v] : teacher.args.items()) check_model_arg_name(k, "the teacher's options");
  teacher.prices = parse_prices(a.teacher_price);
  std::unique_ptr<ModelClient> client;
  if (!teacher.spec.empty()) {
    ClientConfig cc = parse_model_spec(teacher.spec);
    cc.args = teacher.args;
    client = make_client(cc);
    teacher.client = client.get();
  }

  ServiceFlags sf;
  sf.judge.arch = arch;
  sf.judge.workspace = workspace_dir(g);
  sf.judge.worker = a.worker;
  sf.judge.use_gpu = !a.no_gpu;
  sf.judge.sanitize = !a.no_sanitize;
  sf.judge.probe = !a.no_probe;
  sf.judge.timing = !a.no_timing;
  sf.judge.device = a.device;
  sf.engine = !a.local;  // the GPU profiling service's engine, in process (or --queue / --submit-only)
  sf.compile_jobs = a.compile_jobs;
  sf.engine_flags = a.engine;
  const ProgressFn quiet =
      g.verbose ? ProgressFn([](const std::string& l) { std::cerr << "  " << l << "\n"; }) : ProgressFn();
  std::unique_ptr<CandidateService> service = make_candidate_service(sf, quiet);

  FixitStore store(db);
  if (!store.status().ok) throw InputError("workspace database: " + store.status().error);
  fixit::BuildOptions bo;
  bo.sources = a.runs;
  bo.knowledge_root = registry.root().parent_path() / "knowledge";
  bo.build_name = a.build_name;
  bo.parallel = a.parallel;
  bo.max_infra_errors = a.max_infra_errors;
  bo.interactive = isatty(STDERR_FILENO);
  fixit::Builder builder(store, *service, recipe, splits, problems, teacher, bo, std::cerr);
  std::mutex m;
  StopSignals signals([&](const char* name) {
    std::lock_guard lock(m);
    builder.request_stop(std::string("interrupted by ") + name +
                         ": run the same command to resume (again to quit at once)");
  });
  const fixit::BuildOutcome out = builder.run(turns);
  if (a.json) {
    std::cout << out.to_json().dump(2) << "\n";
  } else {
    std::cout << "Fixit build " << out.build_id << " (" << recipe.name << ": " << recipe.title << "): " << out.status
              << "\n";
    std::cout << "  turns read " << out.turns_read << "; items";
    for (const auto& [k, v] : out.items) std::cout << " " << k << " " << v;
    std::cout << "\n  records " << out.records << " (" << out.records_in_dataset << " in the dataset; "
              << out.new_records << " new in this invocation); teacher calls " << out.teacher_calls << ", $"
              << out.teacher_cost_usd << "; " << out.seconds << " s"
              << (out.new_records ? " (" + std::to_string(out.seconds / double(out.new_records)) + " s per new record)"
                                  : "")
              << "\n";
    for (const auto& [k, v] : out.reasons) std::cout << "  " << v << " item(s): " << k << "\n";
    if (!out.gpu.gpu_stages) std::cout << "  NO GPU STAGE RAN: " << out.gpu.reason << "\n";
    if (!out.stop_reason.empty()) std::cout << "  stopped: " << out.stop_reason << "\n";
    std::cout << "  see `ptxbench fixit stats --build " << out.build_id
              << " --items`, export with `ptxbench fixit export --build " << out.build_id << " --format trl -o FILE`\n";
  }
  code.value = out.status == "complete" ? 0 : kExitRunStopped;
}

// --build ID, or the newest build of --recipe NAME, or the newest build.
FixitBuildRow pick_build(FixitStore& store, const std::string& build, const std::string& recipe) {
  if (!build.empty()) {
    FixitBuildRow b;
    if (auto s = store.get_build(build, &b); !s.ok) throw InputError(s.error + " (see `ptxbench fixit stats`)");
    return b;
  }
  std::vector<FixitBuildRow> builds;
  if (auto s = store.list_builds(&builds); !s.ok) throw InputError(s.error);
  for (const auto& b : builds)
    if (recipe.empty() || b.recipe_name == recipe) return b;
  throw InputError(recipe.empty() ? "the workspace holds no Fixit build (run `ptxbench fixit build` first)"
                                  : "no Fixit build of recipe '" + recipe + "' in the workspace");
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  if (!f || !(f << text)) throw InputError("cannot write " + path);
}

}  // namespace

void add_fixit_command(CLI::App& app, GlobalOptions& g, ExitCode& code) {
  auto* cmd =
      app.add_subcommand("fixit", "Fixit: turn runs' failures into judged training records, export them, count them");
  cmd->require_subcommand(1);

  auto b = std::make_shared<BuildArgs>();
  auto* build =
      cmd->add_subcommand("build", "Make Fixit records from runs' failing turns (every fix judged before it is kept)");
  build
      ->add_option("--runs", b->runs,
                   "Runs to learn from: run ids of the workspace, `runs export` JSONL files, or other "
                   "workspaces (DIR or DIR/ptxbench.db, optionally #RUN)")
      ->delimiter(',')
      ->required();
  build->add_option("--recipe", b->recipe, "Recipe: a name in recipes/ (s0..s6) or a path to a .toml file")->required();
  build->add_option("--teacher", b->teacher, "Teacher model PROVIDER:MODEL (default: the recipe's)");
  build->add_option("--teacher-arg", b->teacher_args,
                    "Teacher client option KEY=VALUE (repeatable; replaces the recipe's)");
  build->add_option("--teacher-price", b->teacher_price,
                    "INPUT,OUTPUT USD per million tokens, for the cost of teacher calls");
  build->add_flag("--no-teacher", b->no_teacher, "Fixes only from later turns of the same trajectory");
  build->add_option("--build-name", b->build_name, "Name the build (default: the recipe and a hash of its inputs)");
  build->add_option("--parallel", b->parallel, "Items in flight at once (teacher calls and judgments)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  build
      ->add_option("--max-infra-errors", b->max_infra_errors,
                   "Teacher or harness infra errors before this invocation stops")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  build->add_flag("--local", b->local,
                  "Judge with the in-process compile pool and one GPU lane instead of the service engine");
  build->add_flag("--no-gpu", b->no_gpu, "Build and check fixes statically only (items stay pending)");
  build->add_flag("--no-sanitize", b->no_sanitize, "Skip compute-sanitizer when judging fixes");
  build->add_flag("--no-probe", b->no_probe, "Skip counting the executed target instructions");
  build->add_flag("--no-timing", b->no_timing,
                  "Skip timing (no fix can then show target_executed, which the timed calls decide, or a speedup)");
  build->add_option("--device", b->device, "CUDA device index")->check(CLI::NonNegativeNumber);
  build->add_option("--compile-jobs", b->compile_jobs, "nvcc builds at once (default: one per core)");
  build->add_option("--worker", b->worker, "Path to ptxbench-worker (default: beside ptxbench)");
  build->add_flag("--json", b->json, "Print the outcome as JSON");
  add_engine_flags(build, b->engine);
  build->footer(
      "Exit codes: 0 complete, 1 bad input, 3 stopped with items pending (run the same command again), 20 store "
      "failure.");
  build->callback([b, &g, &code] { build_command(*b, g, code); });

  struct ExportArgs {
    std::string build, recipe, format = "trl", system = "full", out, card;
  };
  auto e = std::make_shared<ExportArgs>();
  auto* exp = cmd->add_subcommand(
      "export", "Write a build's records as chat JSON Lines (TRL, LLaMA-Factory, OpenAI) and a dataset card");
  exp->add_option("--build", e->build, "Build id (default: the newest build, or the newest of --recipe)");
  exp->add_option("--recipe", e->recipe, "The newest build of this recipe");
  exp->add_option("--format", e->format, "trl (prompt/completion), sharegpt, openai, or records (ptxbench.fixit/1)")
      ->capture_default_str();
  exp->add_option("--system", e->system, "full (the system text the model saw) or none")
      ->check(CLI::IsMember({"full", "none"}))
      ->capture_default_str();
  exp->add_option("-o,--out", e->out,
                  "Write the JSONL here (default stdout); the card goes beside it as FILE.card.md and .card.json");
  exp->add_option("--card", e->card, "Write the card to CARD.md and CARD.json (default: beside --out)");
  exp->callback([e, &g] {
    FixitStore store(database_path(g, true));
    if (!store.status().ok) throw InputError("workspace database: " + store.status().error);
    const FixitBuildRow picked = pick_build(store, e->build, e->recipe);
    fixit::ExportOptions o;
    o.format = fixit::parse_export_format(e->format);
    o.system = e->system == "full";
    std::vector<FixitRecordRow> rows;
    if (auto s = store.load_records(picked.id, &rows); !s.ok) throw InputError(s.error);
    std::ostringstream data;
    std::vector<json> kept;
    for (const auto& r : rows) {
      if (!r.in_dataset) continue;
      data << fixit::export_line(r.record, o).dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
      kept.push_back(r.record);
    }
    std::vector<FixitItemRow> items;
    if (auto s = store.load_items(picked.id, &items); !s.ok) throw InputError(s.error);
    json counts = {{"by_status", json::object()},
                   {"by_reason", json::object()},
                   {"excluded_by_post_balance", rows.size() - kept.size()}};
    for (const auto& i : items) {
      counts["by_status"][i.status] = counts["by_status"].value(i.status, 0) + 1;
      if (!i.reason.empty()) {
        const std::string k = i.reason.substr(0, i.reason.find(':'));
        counts["by_reason"][k] = counts["by_reason"].value(k, 0) + 1;
      }
    }
    json build_json = {{"id", picked.id}, {"config", picked.config}, {"status", picked.status}};
    const std::string file = e->out.empty() || e->out == "-" ? "(stdout)" : fs::path(e->out).filename().string();
    const json card = fixit::card_json({build_json, kept, counts, o, file});
    if (e->out.empty() || e->out == "-") std::cout << data.str();
    else write_text(e->out, data.str());
    const std::string card_base = !e->card.empty() ? e->card : e->out.empty() || e->out == "-" ? "" : e->out + ".card";
    if (!card_base.empty()) {
      write_text(card_base + ".md", fixit::card_markdown(card));
      write_text(card_base + ".json", card.dump(2) + "\n");
    }
    std::cerr << "[fixit] " << kept.size() << " records of build " << picked.id << " as " << e->format
              << (e->out.empty() || e->out == "-" ? "" : " in " + e->out)
              << (card_base.empty() ? "" : "; card " + card_base + ".md")
              << (picked.status != "complete"
                      ? " (the build is " + picked.status + ": run it again to finish its pending items)"
                      : "")
              << "\n";
  });

  struct StatsArgs {
    std::vector<std::string> builds, tables;
    std::string format = "table";
    bool items = false;
  };
  auto s = std::make_shared<StatsArgs>();
  auto* stats = cmd->add_subcommand(
      "stats", "Fixit builds, their records per problem, class, source and teacher, and their items");
  stats->add_option("--build", s->builds, "Only these builds (repeatable; default every build)");
  stats->add_option("-f,--format", s->format, report::format_list(false))->capture_default_str();
  stats->add_flag("--items", s->items, "Also the items per status and reason");
  stats->add_option("--table", s->tables, "Only this table (repeatable)");
  stats->callback([s, &g] {
    const auto printer = report::make_printer(s->format, false);
    FixitStore store(database_path(g, true));
    if (!store.status().ok) throw InputError("workspace database: " + store.status().error);
    report::Report r;
    r.format = "ptxbench.fixit-stats/1";  // printed as plain tables, not the metrics report's layout
    r.meta["title"] = "Fixit builds in " + workspace_dir(g);
    if (auto st = report::add_fixit_tables(store, s->builds, s->items, &r); !st.ok) throw InputError(st.error);
    const report::Report sel = report::select_tables(r, s->tables);
    std::cout << printer->print(sel, nullptr);
  });
}

}  // namespace ptxbench::cli
