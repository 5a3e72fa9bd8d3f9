// Agent pipeline benchmark: the wall time of T trajectories x N turns on one problem (default the
// paper's 12 x 8 on GEMM) with a scripted model of fixed latency and the real evaluator, run
//   sequential: one trajectory at a time, one nvcc at a time: model -> build -> GPU, strictly in turn;
//   pipelined:  every trajectory in flight, the compile pool on every core, one GPU lane;
//   engine:     every trajectory in flight through the service engine (`ptxbench run --service`):
//               the CPU pool, --lanes shared GPU lanes, timing alone with the shared workers paused;
// against the lower bound max(model chain, GPU lane): a trajectory's N model calls cannot overlap
// each other (N x latency), and the single GPU lane cannot do less than the sum of the GPU stages;
// and against the dependency-aware bound, where each trajectory's chain also holds its own builds
// and GPU stages (a turn's next model call waits for its verdict). With the sequential mode in the
// same run, the bound takes each turn's build and judgment as they took alone (nothing beside them),
// and for the engine the GPU's floor is every timed stage's exclusive seconds plus the rest of the
// GPU work spread over the shared lanes. And against the lockstep bound: the scripted model answers
// every trajectory alike, so each turn's candidates reach the GPU together.
// Every turn's candidate is the reference kernel with a unique comment, so each one is judged.
//
//   agent_pipeline [--trajectories 12] [--turns 8] [--latency-ms 2000] [--problem gemm]
//                  [--candidate FILE] [--modes sequential,pipelined,engine] [--compile-jobs N] [--lanes 3]
//                  [--no-sanitize] [--no-probe] [--no-timing] [--out bench-results/agent_pipeline.json]
//
// On a machine without a usable GPU the GPU stages are skipped: it then measures how model calls
// overlap compilation only, and says so in its output.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "agent/run_driver.h"
#include "problems/registry.h"
#include "service/engine_candidate_service.h"
#include "service/service_factory.h"
#include "store/run_store.h"
#include "support/scripted_client.h"

using namespace ptxbench;
namespace fs = std::filesystem;

namespace {

struct ModeResult {
  std::string mode;
  double wall_s = 0, model_s = 0, prepare_s = 0, gpu_s = 0;
  double exclusive_s = 0;  // the timed stages' seconds with the GPU alone (the engine's gate)
  json gate;               // the engine's: where its GPU's seconds went (service/engine/gpu_gate.h)
  int turns = 0, parallel = 0, compile_jobs = 0, lanes = 1;
  std::map<std::string, int> states;
};

std::string read(const fs::path& p) {
  std::ifstream in(p);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string fmt(double v, const char* f = "%.1f") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// The seconds a timed stage held the GPU alone, from its record (0 without the engine's gate).
double exclusive_seconds(const EvaluationRecord& r) {
  for (const auto& s : r.stages)
    if (s.name == "timing") return s.detail.value("exclusive_held_seconds", 0.0);
  return 0;
}

// The engine's GPU over the run, in seconds: open, any GPU stage held it, a timed worker alone,
// the drains before a timed worker (split by what they waited on, service/engine/gpu_gate.h).
json gate_seconds(const EngineCandidateService& service) {
  const json snap = service.snapshot();
  if (!snap.contains("gpus") || snap["gpus"].empty()) return json::object();
  const json& g = snap["gpus"][0];
  return {{"seconds", g.value("seconds", json::object())},
          {"draining_seconds", g.value("draining_seconds", json::object())},
          {"held_back_seconds", g.value("held_back_seconds", 0.0)},
          {"exclusive_grants", g.value("exclusive_grants", 0)},
          {"paused_grants", g.value("paused_grants", 0)}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Agent pipeline benchmark: sequential vs pipelined wall time against max(model chain, GPU lane)"};
  int trajectories = 12, turns = 8, latency_ms = 2000, compile_jobs = 0, lanes = 3;
  std::string problem = "gemm", candidate, modes = "sequential,pipelined", out = "bench-results/agent_pipeline.json";
  bool no_sanitize = false, no_probe = false, no_timing = false;
  app.add_option("--trajectories", trajectories)->check(CLI::PositiveNumber);
  app.add_option("--turns", turns)->check(CLI::PositiveNumber);
  app.add_option("--latency-ms", latency_ms, "The scripted model's latency per call")->check(CLI::NonNegativeNumber);
  app.add_option("--problem", problem);
  app.add_option("--candidate", candidate, "Kernel every turn returns (default: the problem's reference/wgmma_tma.cu)");
  app.add_option("--modes", modes, "Comma-separated: sequential, pipelined, engine");
  app.add_option("--compile-jobs", compile_jobs, "Compile pool size when pipelined (default: one per core)");
  app.add_option("--lanes", lanes, "Shared GPU lanes in the engine mode")->check(CLI::PositiveNumber);
  app.add_flag("--no-sanitize", no_sanitize);
  app.add_flag("--no-probe", no_probe);
  app.add_flag("--no-timing", no_timing);
  app.add_option("--out", out, "JSON results file");
  CLI11_PARSE(app, argc, argv);
  std::vector<std::string> wanted;
  std::stringstream mode_list(modes);
  for (std::string m; std::getline(mode_list, m, ',');)
    if (!m.empty()) {
      if (m != "sequential" && m != "pipelined" && m != "engine") {
        std::cerr << "agent_pipeline: --modes: unknown mode '" << m << "' (sequential, pipelined, engine)\n";
        return 1;
      }
      wanted.push_back(m);
    }
  if (wanted.empty()) {
    std::cerr << "agent_pipeline: --modes names no mode (sequential, pipelined, engine)\n";
    return 1;
  }

  const fs::path root = fs::exists("problems") ? fs::absolute("problems") : ProblemRegistry::default_root();
  ProblemRegistry registry(root);
  const ProblemSpec spec = registry.load(problem);
  const std::string source = read(candidate.empty() ? spec.dir / "reference/wgmma_tma.cu" : fs::path(candidate));
  const fs::path scratch = fs::temp_directory_path() / ("ptxbench-agent-pipeline-" + std::to_string(::getpid()));

  std::vector<ModeResult> results;
  GpuDescription gpu;
  for (const std::string mode : {"sequential", "pipelined", "engine"}) {
    if (std::find(wanted.begin(), wanted.end(), mode) == wanted.end()) continue;
    const bool sequential = mode == "sequential", engine = mode == "engine";
    const fs::path ws = scratch / mode;
    fs::remove_all(ws);
    fs::create_directories(ws);
    test::ScriptedClient client(
        [&](const ChatRequest& r) {
          return test::cuda_reply("// trajectory " + std::to_string(r.at.trajectory) + " turn " +
                                  std::to_string(r.at.turn) + "\n" + source);
        },
        std::chrono::milliseconds(latency_ms));
    // Each mode's service as the commands make it (service/service_factory.h).
    ServiceFlags sf;
    sf.judge.workspace = ws;
    sf.judge.sanitize = !no_sanitize;
    sf.judge.probe = !no_probe;
    sf.judge.timing = !no_timing;
    sf.compile_jobs = sequential ? 1 : compile_jobs;
    sf.engine = engine;
    sf.engine_flags.lanes = lanes;
    auto service = make_candidate_service(sf, {});
    gpu = service->describe_gpu();
    RunStore store(ws / "ptxbench.db");
    if (!store.status().ok) {
      std::cerr << "agent_pipeline: " << store.status().error << "\n";
      return 20;
    }
    const int jobs = engine ? engine_service_options(sf).engine.cpu_jobs : local_service_options(sf).compile_jobs;
    const int used_jobs = jobs > 0 ? jobs : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    RunConfig c;
    c.model = "scripted:latency-" + std::to_string(latency_ms) + "ms";
    c.problems = {spec.name};
    c.trajectories = trajectories;
    c.turns = turns;
    c.parallel = sequential ? 1 : 0;
    c.compile_jobs = used_jobs;
    c.sanitize = sf.judge.sanitize;
    c.probe = sf.judge.probe;
    c.timing = sf.judge.timing;
    c.run_name = mode;
    RunDriverOptions o;
    o.knowledge_root = root.parent_path() / "knowledge";
    o.workspace = ws;
    std::cerr << "[agent_pipeline] " << mode << ": " << trajectories << " x " << turns << " turns, model latency "
              << latency_ms << " ms, compile jobs " << used_jobs
              << (engine ? ", " + std::to_string(lanes) + " shared GPU lanes" : std::string()) << "\n";
    const auto t0 = std::chrono::steady_clock::now();
    const RunOutcome outcome = RunDriver(c, {spec}, client, *service, store, o).run();
    ModeResult m;
    m.mode = mode;
    m.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m.parallel = sequential ? 1 : trajectories;
    m.compile_jobs = used_jobs;
    m.lanes = engine ? lanes : 1;
    std::vector<TurnRow> rows;
    if (!store.load_turns(outcome.run.id, &rows).ok || outcome.status != "complete") {
      std::cerr << "agent_pipeline: the " << mode << " run did not complete: " << outcome.stop_reason << "\n";
      return 20;
    }
    for (const auto& t : rows) {
      ++m.turns;
      ++m.states[t.state];
      m.model_s += t.model_seconds;
      m.prepare_s += t.prepare_seconds;
      m.gpu_s += t.gpu_seconds;
      EvaluationRecord r;
      if (t.evaluation_id && store.evaluation(*t.evaluation_id, &r).ok) m.exclusive_s += exclusive_seconds(r);
    }
    if (const auto* e = dynamic_cast<const EngineCandidateService*>(service.get())) m.gate = gate_seconds(*e);
    results.push_back(m);
  }
  fs::remove_all(scratch);

  // The mode the bounds are for: the last one run. Each turn's build and judgment as they took
  // alone come from the sequential mode when it ran (nothing beside them there), else from it.
  const ModeResult& last = results.back();
  const ModeResult* alone = &last;
  for (const auto& m : results)
    if (m.mode == "sequential") alone = &m;
  const double per_turn = 1.0 / std::max(1, alone->turns);
  const double turns_total = static_cast<double>(trajectories) * turns;
  const double prepare_alone = alone->prepare_s * per_turn * turns_total;
  const double gpu_alone = alone->gpu_s * per_turn * turns_total;
  // The bound: a trajectory's model calls are a chain; the GPU lane serializes every GPU stage. With
  // shared lanes, only the timed stages' exclusive seconds serialize, and the rest of the GPU work
  // spreads over the lanes at best.
  const double model_chain = turns * latency_ms / 1000.0;
  const double exclusive = last.lanes > 1 ? last.exclusive_s : 0;
  const double gpu_lane = last.lanes > 1 ? exclusive + std::max(0.0, gpu_alone - exclusive) / last.lanes : gpu_alone;
  const double bound = std::max(model_chain, gpu_lane);
  std::cout << "agent pipeline: " << spec.name << ", " << trajectories << " trajectories x " << turns
            << " turns, model latency " << latency_ms << " ms, "
            << (gpu.gpu_stages ? "GPU " + gpu.gpu : "NO GPU STAGES (" + gpu.reason + ")") << "\n";
  if (!gpu.gpu_stages)
    std::cout
        << "without GPU stages this measures only how model calls overlap compilation (the GPU lane records skips)\n";
  std::cout
      << "\nmode        wall s   vs bound   model s (sum)   build+static s (sum)   GPU s (sum)   exclusive s (sum)"
         "   compile jobs   lanes\n";
  for (const auto& m : results)
    std::cout << (m.mode + std::string(12 - m.mode.size(), ' ')) << fmt(m.wall_s) << "     "
              << fmt(m.wall_s / bound, "%.2fx") << "      " << fmt(m.model_s) << "            " << fmt(m.prepare_s)
              << "                  " << fmt(m.gpu_s) << "         " << fmt(m.exclusive_s) << "                "
              << m.compile_jobs << "              " << m.lanes << "\n";
  std::cout << "\nbound = max(model chain " << fmt(model_chain) << " s = " << turns << " x " << latency_ms
            << " ms, GPU lane " << fmt(gpu_lane) << " s) = " << fmt(bound) << " s; goal: " << last.mode
            << " within 10% of it\n";
  if (last.lanes > 1)
    std::cout << "GPU lane = exclusive " << fmt(exclusive) << " s + (GPU work " << fmt(gpu_alone)
              << " s - exclusive) / " << last.lanes << " lanes, the GPU work as " << alone->mode << " judged it\n";
  // Not in the bound, but a floor too when nvcc dominates (few cores, fast GPU stages).
  const double compile_pool = prepare_alone / std::max(1, last.compile_jobs);
  std::cout << "compile pool floor: " << fmt(prepare_alone) << " s of build + static checks over " << last.compile_jobs
            << " jobs = " << fmt(compile_pool) << " s\n";
  // A turn's next model call needs its verdict, so each trajectory's chain also holds its own builds
  // and GPU stages: the mean chain (model + build + GPU per trajectory) is a floor no pipeline beats.
  // It exceeds the model chain when builds and judgments are not small next to the model's latency.
  const double turn_chain = model_chain + (prepare_alone + gpu_alone) / trajectories;
  const double dependent_bound = std::max({turn_chain, gpu_lane, compile_pool});
  std::cout << "dependency-aware bound = max(mean trajectory chain " << fmt(turn_chain)
            << " s of model + build + GPU, GPU lane " << fmt(gpu_lane) << " s, compile pool " << fmt(compile_pool)
            << " s) = " << fmt(dependent_bound) << " s; " << last.mode << " at "
            << fmt(last.wall_s / dependent_bound, "%.2fx") << " of it (goal: within 1.10x)\n";
  if (alone != &last)
    std::cout << "(each turn's build and judgment as the sequential run took them, nothing beside them)\n";
  // The scripted model answers every trajectory after the same latency and every turn builds the
  // same kernel, so the trajectories' candidates reach the GPU together each turn. A turn then takes
  // at least: the model, a build, and on the GPU the shared parts side by side (lanes at a time),
  // then every exclusive part in turn (nothing beside them); on one lane, every judgment in turn.
  const double build_turn = prepare_alone / turns_total, judge_turn = gpu_alone / turns_total;
  const double exclusive_turn = last.lanes > 1 ? exclusive / turns_total : 0;
  const double waves = std::ceil(double(trajectories) / last.lanes);
  const double gpu_turn = last.lanes > 1 ? waves * (judge_turn - exclusive_turn) + trajectories * exclusive_turn
                                         : trajectories * judge_turn;
  const double lockstep_bound = turns * (latency_ms / 1000.0 + build_turn + gpu_turn);
  std::cout << "lockstep bound (the turns' candidates reach the GPU together) = " << turns << " x ("
            << fmt(latency_ms / 1000.0, "%.2f") << " s model + " << fmt(build_turn, "%.2f") << " s build + "
            << fmt(gpu_turn, "%.2f") << " s GPU) = " << fmt(lockstep_bound) << " s; " << last.mode << " at "
            << fmt(last.wall_s / lockstep_bound, "%.2fx") << " of it\n";
  if (!gpu.gpu_stages)
    std::cout << "(no GPU stages: the GPU lane's time is the wait for each candidate's cuobjdump SASS scan)\n";
  // Where the engine's GPU seconds went: what separates its wall from the lockstep bound.
  for (const auto& m : results) {
    if (m.gate.empty()) continue;
    const json sec = m.gate.value("seconds", json::object()), dr = m.gate.value("draining_seconds", json::object());
    const double open = sec.value("open", 0.0), held = sec.value("held", 0.0);
    std::cout << m.mode << "'s GPU over " << fmt(open) << " s: a GPU stage held it " << fmt(held)
              << " s (a timed worker alone " << fmt(sec.value("timed_alone", 0.0)) << " s, draining for one "
              << fmt(dr.value("all", 0.0)) << " s: on a timed worker starting " << fmt(dr.value("on_timed_start", 0.0))
              << ", on work that cannot pause " << fmt(dr.value("on_unpausable", 0.0)) << ", on pause acks "
              << fmt(dr.value("on_pause", 0.0)) << "), no GPU stage " << fmt(open - held) << " s; "
              << m.gate.value("paused_grants", 0) << " of " << m.gate.value("exclusive_grants", 0)
              << " timed grants paused shared workers\n";
  }

  json j = {{"problem", spec.name},
            {"trajectories", trajectories},
            {"turns", turns},
            {"latency_ms", latency_ms},
            {"gpu", gpu.gpu},
            {"gpu_stages", gpu.gpu_stages},
            {"gpu_reason", gpu.reason},
            {"bound_s", bound},
            {"bound_mode", last.mode},
            {"alone_from", alone->mode},
            {"model_chain_s", model_chain},
            {"gpu_lane_s", gpu_lane},
            {"exclusive_s", exclusive},
            {"compile_pool_floor_s", compile_pool},
            {"trajectory_chain_s", turn_chain},
            {"dependency_aware_bound_s", dependent_bound},
            {"wall_over_dependency_aware_bound", last.wall_s / dependent_bound},
            {"lockstep_bound_s", lockstep_bound},
            {"wall_over_lockstep_bound", last.wall_s / lockstep_bound},
            {"stages", {{"sanitize", !no_sanitize}, {"probe", !no_probe}, {"timing", !no_timing}}}};
  json modes_json = json::array();
  for (const auto& m : results)
    modes_json.push_back({{"mode", m.mode},
                          {"wall_s", m.wall_s},
                          {"wall_over_bound", m.wall_s / bound},
                          {"model_s_sum", m.model_s},
                          {"prepare_s_sum", m.prepare_s},
                          {"gpu_s_sum", m.gpu_s},
                          {"exclusive_s_sum", m.exclusive_s},
                          {"turns", m.turns},
                          {"compile_jobs", m.compile_jobs},
                          {"lanes", m.lanes},
                          {"trajectories_in_flight", m.parallel},
                          {"states", m.states},
                          {"gate", m.gate}});
  j["modes"] = modes_json;
  if (!out.empty()) {
    if (fs::path(out).has_parent_path()) fs::create_directories(fs::path(out).parent_path());
    std::ofstream(out) << j.dump(2) << "\n";
    std::cout << "wrote " << out << "\n";
  }
  return 0;
}
