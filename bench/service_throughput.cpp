// The GPU profiling service's throughput (the paper's Fig. 12 analog), every configuration side
// by side in one run over the same queue, each candidate judged in full. Queues (--queue):
//   refs           the references of the problems (naive and fast), failing candidates (wrong
//                  results, an out-of-bounds write, a forbidden library call, a compile error)
//   agent_mix      a queue shaped like an agent's turns (bench/agent_mix.json: its distribution and
//                  where it comes from): most fail to compile or are wrong, a few correct and slow or fast
//   verdict_sets   every candidate of the GPU tests' held-out and attack sets (tests/gpu/candidates/,
//                  attacks/, controls/) under the problem its test judges it for: run with
//                  configurations of different `order`s and --verdict-table, the verdicts side by side
// Configurations:
//   sequential     today's path: one Evaluator, one candidate at a time, one worker per stage
//   pipelining_off the engine, one candidate at a time through build and GPU stages
//   sharing_off    the engine, builds overlapping GPU work, one GPU lane (no sharing)
//   pause_off      all_on, but a timed stage drains the shared lanes instead of pausing them at
//                  their next call boundary (--no-pause; engine/gpu_gate.h)
//   caching_off    all_on, but nothing cached: the library timed alone for every candidate, and
//                  every check computing its own reference
//   all_on         the engine, builds overlapping GPU work, --lanes shared lanes, timing alone, the
//                  library's clean timings cached per (problem, shape, GPU), pooled input sets
//                  with their references for the fixed correctness shapes
//   hold_start     all_on, and a shared worker that cannot pause (sanitizers, smoke runs) does not
//                  start while a timed worker starts (EngineOptions::hold_unpausable_for_timed_start)
//   start_drain    all_on, but a timed worker still starting cannot pause: another's request waits
//                  for its start to end (EvalOptions::pausable_timed_start off, as before issue 47)
// Any configuration may end in :order=first|after_correctness|only_if_correct, where
// the sanitizers stand among the GPU stages (EvalOptions::sanitizer_order, judge/stages/sanitizer_order.h);
// sequential takes `first` (today's path) unless given one, the engine's configurations the
// judge's default (after_correctness). --base names the configuration the others are held against.
// Per configuration: wall time, evaluations per GPU-hour, NVML's GPU utilization (sampled every
// 100 ms; in the engine also split by the gate's state at each sample: a timed worker alone,
// shared stages only, no GPU stage), the gate's own busy fraction, the verdicts, and for every
// correct candidate its speedup against the sequential configuration's (the goal: within 1%).
//
//   service_throughput [--queue refs|agent_mix|verdict_sets] [--problems gemm,mha_fwd,...]
//   [--configs sequential,all_on,all_on/6,all_on:min_samples=10,all_on:order=first,...] [--base sequential]
//   [--lanes 3] [--verdict-table] [--only attacks/,controls/]
//                      [--repeat N] [--out bench-results/service_throughput.json]
// `all_on/6` is all_on with 6 shared lanes; `all_on:min_samples=10` is all_on with that timing rule
// (runner/timing.h) changed, its speedups still compared with the sequential run's default rules. `--repeat N` queues
// every candidate N times, each time as a new file (a comment line added: a distinct candidate by its hash, as an
// agent's next attempt is), the way a run of many candidates per problem fills the queue; the sequential configuration
// judges the first copy only (one candidate at a time, its rate does not depend on the queue's length) and every copy
// is compared with it.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "problems/registry.h"
#include "judge/candidate_files.h"
#include "service/engine_candidate_service.h"
#include "judge/evaluator.h"
#include "judge/infra_retry.h"
#include "judge/stages/sanitizer_order.h"
#include "service/health/nvml_library.h"
#include "service/library_timing_source.h"
#include "service/local_candidate_service.h"

using namespace ptxbench;
namespace fs = std::filesystem;

namespace {

struct Item {
  std::string problem, label, source;
  std::string expect;  // the verdict its queue says it should get ("" when it says none)
  fs::path folder{};   // where its relative includes resolve (the test candidates' headers), or none
};

struct ConfigResult {
  std::string name;
  bool sequential = false;  // judged the first copy of each candidate only, one at a time
  std::string order;        // where the sanitizers stood (EvalOptions::sanitizer_order)
  double wall_s = 0, nvml_busy = -1, gate_busy = -1, gate_timed = -1, gate_draining = -1;
  long long exclusive_grants = 0;
  json pause = json::object();        // the gate's paused grants, fallbacks to a drain, untrusted windows
  json draining_on = json::object();  // what the drains waited on (engine/gpu_gate.h), in seconds
  double held_back_s = 0;
  long long cache_hits = 0;
  int sequential_reruns = 0;                 // infra_error verdicts of the sequential run, run again
  json reference_pool = json::object();      // judge/caches/reference_pool.h stats at the end
  json busy_by_gate_state = json::object();  // BusySampler::by_gate_state
  std::vector<EvaluationRecord> records;
};

std::string read(const fs::path& p) {
  std::ifstream in(p);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What the GPU's lane gate said at a sample: no GPU stage held it, only shared stages, or a timed
// worker had it alone.
enum class GateState { none, shared, alone };
constexpr const char* kGateStateNames[] = {"no_gpu_stage", "shared", "alone"};

// Samples NVML's utilization of one GPU every 100 ms while it lives; once watching a gate, each
// sample is also counted under the gate's state then (where the busy fraction is lost).
class BusySampler {
 public:
  explicit BusySampler(int device) : device_(device), thread_([this] { loop(); }) {}
  ~BusySampler() { stop(); }
  // `state` is called from the sampling thread until watch({}) returns.
  void watch(std::function<GateState()> state) {
    std::lock_guard lock(mu_);
    state_ = std::move(state);
  }
  double stop() {
    if (!done_.exchange(true)) thread_.join();
    return n_ ? sum_ / n_ / 100.0 : -1;
  }
  // Per gate state: its share of the watched samples and NVML's busy fraction within it.
  json by_gate_state() const {
    long long watched = 0;
    for (const auto& b : by_state_) watched += b.n;
    json out = json::object();
    if (watched == 0) return out;
    for (size_t i = 0; i < by_state_.size(); ++i)
      out[kGateStateNames[i]] = {{"wall_fraction", double(by_state_[i].n) / watched},
                                 {"nvml_busy", by_state_[i].n ? by_state_[i].sum / by_state_[i].n / 100.0 : -1.0}};
    return out;
  }

 private:
  struct Bucket {
    long long n = 0;
    double sum = 0;
  };
  void loop() {
    while (!done_) {
      if (auto u = NvmlLibrary::instance().gpu_utilization_percent(device_)) {
        sum_ += *u, ++n_;
        std::lock_guard lock(mu_);
        if (state_) {
          Bucket& b = by_state_[size_t(state_())];
          b.sum += *u, ++b.n;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  unsigned device_;
  std::atomic<bool> done_{false};
  double sum_ = 0;
  long long n_ = 0;
  std::mutex mu_;
  std::function<GateState()> state_;
  std::array<Bucket, 3> by_state_{};
  std::thread thread_;
};

// A candidate is one file: a causal reference's '#include "../../<twin>/reference/X.cu"' is
// replaced by the twin's text (as scripts/self_contained_reference.sh does for the agent).
std::string self_contained(const fs::path& file) {
  std::stringstream in(read(file)), out;
  const std::string prefix = "#include \"../../";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0 && line.size() > prefix.size() + 1 && line.back() == '"')
      out << read(file.parent_path() / line.substr(10, line.size() - 11)) << "\n";
    else out << line << "\n";
  }
  return out.str();
}

// The queue `repeat` times; copy k > 1 of a candidate is a new file (its label ends in #k).
std::vector<Item> repeated(const std::vector<Item>& queue, int repeat) {
  std::vector<Item> items = queue;
  for (int k = 2; k <= repeat; ++k)
    for (const auto& it : queue)
      items.push_back({it.problem, it.label + "#" + std::to_string(k),
                       it.source + "\n// queue copy " + std::to_string(k) + ": the same candidate as a new file\n",
                       it.expect, it.folder});
  return items;
}

// The sum over every library plan a timed worker built (cuDNN graphs, cuBLASLt heuristics), from
// the baseline's description in its timing stage.
double library_plan_seconds(const json& baseline) {
  // Named copies: a range-for over `value(...).items()` iterates a temporary already destroyed.
  const json plans = baseline.value("plans", json::object()),
             plan_seconds = baseline.value("plan_seconds", json::object());
  double s = 0;
  for (const auto& [label, p] : plans.items())
    if (p.is_object()) s += p.value("build_seconds", 0.0);
  for (const auto& [label, v] : plan_seconds.items())
    if (v.is_number()) s += v.get<double>();
  return s;
}

// The judge's options over `ws`, emptied first: each configuration (and the library warm-up) starts
// from a fresh workspace.
EvalOptions fresh_workspace_options(const fs::path& ws, int device) {
  fs::remove_all(ws);
  fs::create_directories(ws);
  EvalOptions eval;
  eval.workspace = ws;
  eval.worker = locate_worker();
  eval.device = device;
  return eval;
}

std::vector<Item> mixed_queue(const ProblemRegistry& reg, const std::vector<std::string>& problems,
                              const fs::path& source_dir) {
  std::vector<Item> items;
  for (const auto& p : problems)
    for (const char* ref : {"naive", "wgmma_tma"}) {
      const fs::path f = reg.root() / p / "reference" / (std::string(ref) + ".cu");
      if (fs::exists(f)) items.push_back({p, p + "/" + ref, self_contained(f), "correct"});
    }
  const fs::path bad = source_dir / "tests" / "gpu" / "candidates";
  for (const auto& [f, expect] :
       {std::pair{"wrong_result.cu", "incorrect"}, std::pair{"oob_write.cu", "sanitizer_error"},
        std::pair{"calls_cublas.cu", "forbidden"}})
    if (fs::exists(bad / f)) items.push_back({"gemm", std::string("gemm/") + f, read(bad / f), expect});
  items.push_back({"gemm", "gemm/compile_error", "#include <cuda_runtime.h>\nthis is not CUDA;\n", "compile_error"});
  return items;
}

// A generated failing turn of bench/agent_mix.json ("make"), from a reference (`from`, made self-contained)
// where it needs one: the kinds of mistakes a model's turn makes.
std::string made_candidate(const std::string& kind, const ProblemSpec& spec, const std::string& from) {
  if (kind == "syntax")  // a front-end error: a declaration left half written
    return from + "\nstatic const int ptxbench_tile_count = ;\n";
  if (kind == "undefined_helper")  // a helper named wrongly (as scripts/fixit_h200.sh's turns)
    return from + "\nstatic __device__ void ptxbench_unused_helper() { wgmma_fence_sync_aligned(); }\n";
  if (kind == "ptxas")  // inline PTX that ptxas refuses (an instruction that does not exist)
    return from +
           "\n__global__ void ptxbench_fence_helper() { asm volatile(\"wgmma.fence.sync.aligned.all;\" ::: "
           "\"memory\"); }\n";
  if (kind == "conflicting_entry")  // the entry point defined again with another parameter list
    return from + "\nextern \"C\" cudaError_t " + spec.entry +
           "(int n) { return n ? cudaErrorInvalidValue : cudaSuccess; }\n";
  if (kind == "type_error")  // a value of the wrong type
    return from + "\nstatic const __nv_bfloat16 ptxbench_scale = \"0.125\";\n";
  if (kind == "trap" && spec.name == "mha_bwd")  // a first try that traps on the device
    return R"(#include "interface.h"
// A first try that traps on the device (an illegal instruction at run time).
__global__ void mha_bwd_stub(float* dq) { asm volatile("trap;"); if (dq) dq[threadIdx.x] = 0.f; }
extern "C" cudaError_t ptxbench_mha_bwd(const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*,
                                        const __nv_bfloat16*, const __nv_bfloat16*, const float*, __nv_bfloat16* dQ,
                                        __nv_bfloat16*, __nv_bfloat16*, int, int, int, int, void*, size_t,
                                        cudaStream_t stream) {
  mha_bwd_stub<<<1, 32, 0, stream>>>(reinterpret_cast<float*>(dQ));
  return cudaGetLastError();
}
)";
  if (kind == "null_write" && spec.name == "gemm")  // a pointer never set: a write through null
    return R"(#include "interface.h"
// A first try whose output pointer was never set: every thread writes through null.
__global__ void gemm_stub(__nv_bfloat16* C, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) C[i] = __float2bfloat16(1.0f);
}
extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*, int M, int N, int,
                                     cudaStream_t stream) {
  __nv_bfloat16* out = nullptr;
  gemm_stub<<<(M * N + 255) / 256, 256, 0, stream>>>(out, M * N);
  return cudaGetLastError();
}
)";
  throw std::runtime_error("bench/agent_mix.json: no generated candidate '" + kind + "' for " + spec.name);
}

// bench/agent_mix.json's items, each a file of its own (its number in a comment).
std::vector<Item> agent_mix_queue(const ProblemRegistry& reg, const fs::path& source_dir) {
  const fs::path file = source_dir / "bench" / "agent_mix.json";
  const json mix = json::parse(read(file));
  std::vector<Item> items;
  for (const json& it : mix.at("items")) {
    const std::string problem = it.at("problem");
    const ProblemSpec spec = reg.load(problem);
    const std::string expect = it.value("expect", "");
    std::string source, label;
    if (it.contains("file")) {
      const fs::path f = source_dir / it.at("file").get<std::string>();
      source = self_contained(f);
      label = problem + "/" + f.stem().string();
    } else {
      const std::string kind = it.at("make");
      const std::string from = it.contains("from") ? self_contained(source_dir / it.at("from").get<std::string>()) : "";
      source = made_candidate(kind, spec, from);
      label = problem + "/" + kind;
    }
    label += "@" + std::to_string(items.size());
    items.push_back({problem, label,
                     source + "\n// agent mix turn " + std::to_string(items.size()) + " (" + expect + ")\n", expect});
  }
  return items;
}

// The problem a GPU test judges a candidate of tests/gpu/candidates for (by its name).
std::string problem_of_test_candidate(const std::string& name) {
  auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
  if (starts("gemm_fp8_")) return "gemm_fp8";
  if (starts("gemm_bias_gelu_")) return "gemm_bias_gelu";
  if (starts("gqa_fwd_")) return "gqa_fwd";
  if (starts("gqa_bwd_")) return "gqa_bwd";
  if (starts("attention_bwd_")) return "mha_bwd";
  if (starts("attention_causal_")) return "mha_fwd_causal";
  if (starts("attention_")) return "mha_fwd";
  return "gemm";
}

// Every candidate of the GPU tests' sets (the top folder: failing ones; attacks/; controls/).
std::vector<Item> verdict_sets_queue(const fs::path& source_dir) {
  std::vector<Item> items;
  const fs::path root = source_dir / "tests" / "gpu" / "candidates";
  for (const char* sub : {"", "attacks", "controls"}) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(root / sub))
      if (e.is_regular_file() && e.path().extension() == ".cu") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      const std::string name = f.stem().string();
      items.push_back({problem_of_test_candidate(name), (std::string(sub).empty() ? "" : std::string(sub) + "/") + name,
                       read(f), "", fs::absolute(f.parent_path())});
    }
  }
  return items;
}

// One --configs entry: KIND[/LANES][:KEY=NUMBER...][:order=ORDER]. all_on/6 is all_on with 6 shared lanes;
// all_on:min_samples=10 is all_on with that timing rule (runner/timing.h's TimingConfig) changed,
// to see what a rule costs against the sequential run's speedups under the default rules;
// all_on:order=first puts the sanitizers first again (EvalOptions::sanitizer_order).
struct ConfigSpec {
  std::string name, kind;
  int lanes = 0;
  bool lanes_given = false;
  std::optional<SanitizerOrder> order;
  json timing_config = json::object();
};

ConfigSpec parse_config(const std::string& name, int default_lanes) {
  static const std::set<std::string> kKinds{"sequential", "pipelining_off", "sharing_off", "caching_off",
                                            "pause_off",  "all_on",         "hold_start",  "start_drain"};
  // The numeric TimingConfig keys (with_baseline would time without speedups).
  static const std::set<std::string> kTimingKeys{"warmup_calls",           "min_samples",       "max_samples",
                                                 "target_median_error",    "max_seconds",       "slow_min_samples",
                                                 "slow_candidate_seconds", "clean_min_samples", "clean_max_seconds",
                                                 "library_ahead"};
  // Switches (0 off, 1 on) among them.
  static const std::set<std::string> kTimingSwitches{"library_ahead"};
  ConfigSpec c;
  c.name = name;
  const std::string base = name.substr(0, name.find(':'));
  for (size_t at = name.find(':'); at != std::string::npos;) {
    const size_t next = name.find(':', at + 1);
    const std::string kv = name.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
    const size_t eq = kv.find('=');
    const std::string key = eq == std::string::npos ? kv : kv.substr(0, eq);
    if (key == "order") {
      c.order = sanitizer_order_from_string(eq == std::string::npos ? "" : kv.substr(eq + 1));
      if (!c.order)
        throw std::runtime_error("configuration '" + name +
                                 "': write :order=first, :order=after_correctness or :order=only_if_correct, not '" +
                                 kv + "'");
      at = next;
      continue;
    }
    if (!kTimingKeys.count(key)) {
      std::string known;
      for (const auto& k : kTimingKeys) known += (known.empty() ? "" : ", ") + k;
      throw std::runtime_error("configuration '" + name + "': '" + key + "' is not a timing rule (one of " + known +
                               ")");
    }
    double v = 0;
    size_t used = 0;
    try {
      v = std::stod(kv.substr(eq + 1), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    const bool in_range = kTimingSwitches.count(key) ? (v == 0 || v == 1) : v > 0;
    if (eq == std::string::npos || used == 0 || used != kv.size() - eq - 1 || !in_range)
      throw std::runtime_error("configuration '" + name + "': write :" + key + "=" +
                               (kTimingSwitches.count(key) ? "0 or 1" : "NUMBER with a number above 0") + ", not '" +
                               kv + "'");
    if (v == std::floor(v)) c.timing_config[key] = static_cast<long long>(v);
    else c.timing_config[key] = v;
    at = next;
  }
  c.kind = base.substr(0, base.find('/'));
  if (!kKinds.count(c.kind))
    throw std::runtime_error(
        "unknown configuration '" + name +
        "' (sequential, pipelining_off, sharing_off, caching_off, pause_off, all_on, hold_start, start_drain, or "
        "one of the last five /LANES)");
  if (!c.timing_config.empty() && c.kind == "sequential")
    throw std::runtime_error("configuration '" + name + "': the sequential run keeps the default timing rules");
  c.lanes = default_lanes;
  if (c.kind != base) {
    c.lanes_given = true;
    try {
      c.lanes = std::stoi(base.substr(c.kind.size() + 1));
    } catch (const std::exception&) {
      c.lanes = 0;
    }
    if (c.lanes < 1 || c.kind == "sequential")
      throw std::runtime_error("configuration '" + name +
                               "': write CONFIG/LANES with a lane count of at least 1 "
                               "(sequential takes none)");
  }
  return c;
}

// The table (when asked), and every correct candidate's speedup against the sequential
// configuration's. Written after every configuration too, so a run cut short by a time limit
// still leaves the configurations it finished.
void write_report(const std::vector<ConfigResult>& results, const std::vector<Item>& items, size_t distinct,
                  const std::string& queue_name, const std::string& base_name, bool verdict_table,
                  const std::string& out, bool print_table) {
  const ConfigResult* base = nullptr;
  for (const auto& r : results)
    if (r.name == base_name) base = &r;
  json j = {{"queue", queue_name},
            {"base", base_name},
            {"candidates", items.size()},
            {"distinct_candidates", distinct},
            {"gpu", results.empty() || results[0].records.empty() ? "" : results[0].records[0].gpu},
            {"caching",
             "the library's clean timings, and input sets with references for the fixed correctness shapes "
             "(judge/caches/reference_pool.h); caching_off turns both off"},
            {"configs", json::array()}};
  if (print_table)
    std::printf("%-15s %8s %12s %10s %10s %8s %8s %8s %s\n", "config", "wall s", "evals/GPU-h", "NVML busy",
                "gate busy", "x seq", "alone s", "drain s",
                "verdicts / max |speedup diff| vs sequential; pooled checks; reference+check s");
  for (const auto& r : results) {
    const double per_hour = r.wall_s > 0 ? r.records.size() * 3600.0 / r.wall_s : 0;
    int same = 0, as_expected = 0, expected = 0;
    double worst_diff = 0;
    json cands = json::array(), verdict_counts = json::object();
    for (size_t i = 0; i < r.records.size(); ++i) {
      const auto& rec = r.records[i];
      json c = {{"label", items[i].label},
                {"verdict", to_string(rec.verdict)},
                {"reason", rec.reason},
                {"speedup", rec.speedup_geomean.value_or(0)}};
      const std::string verdict(to_string(rec.verdict));
      verdict_counts[verdict] = verdict_counts.value(verdict, 0) + 1;
      if (!items[i].expect.empty()) {
        c["expected"] = items[i].expect;
        ++expected;
        as_expected += items[i].expect == verdict;
      }
      // The whole record where the verdict may be the service's doing, to see why.
      const size_t bi = i % distinct;  // the sequential run judged the first copy of each
      if (rec.verdict == Verdict::forbidden || rec.verdict == Verdict::infra_error ||
          (base && bi < base->records.size() && base->records[bi].verdict != rec.verdict))
        c["record"] = to_json(rec);
      if (base && bi < base->records.size()) {
        const auto& b = base->records[bi];
        same += b.verdict == rec.verdict;
        if (b.speedup_geomean && rec.speedup_geomean && *b.speedup_geomean > 0) {
          const double d = *rec.speedup_geomean / *b.speedup_geomean - 1;
          c["speedup_vs_sequential"] = d;
          worst_diff = std::max(worst_diff, std::fabs(d));
        }
      }
      cands.push_back(c);
    }
    // Where the time went: every stage's seconds summed over the candidates (a worker's seconds
    // include its waits: the timed worker's for exclusive use). The GPU's seconds alone (the gate's
    // exclusive fraction of the wall time) bound how fast any configuration can be.
    json stage_seconds = json::object();
    for (const auto& rec : r.records)
      for (const auto& st : rec.stages) stage_seconds[st.name] = stage_seconds.value(st.name, 0.0) + st.seconds;
    // Evaluations per hour against the sequential run's (the same ratio as its wall time over this
    // one's when both judged the same queue).
    const double base_per_hour = base && base->wall_s > 0 ? base->records.size() * 3600.0 / base->wall_s : 0;
    const double ratio = base_per_hour > 0 ? per_hour / base_per_hour : 0;
    // Within the timing: the sample loops' wall time, the secretly counted sample's share of it
    // (instrumented code; a naive kernel runs it hundreds of times slower), and the candidates
    // timed without one (their counted calls ran no target instruction).
    // The timed workers' waits for exclusive use, and the library plans they built.
    // Within the sample loops: the timed calls themselves (both sides) and the harness's GPU work
    // around them (fresh inputs, poison, flush; regenerated inputs and the timed check), each
    // shape's median per sample times its samples.
    double sampling_s = 0, counted_s = 0, exclusive_wait_s = 0, plan_s = 0, held_s = 0, settle_s = 0, cache_wait_s = 0;
    double timed_calls_s = 0, harness_gpu_s = 0, host_gap_s = 0;
    // Besides the sample loops, what the timed workers did while they could hold the GPU alone: the
    // library's clean timings, the set-up of every shape but the first (buffers, inputs, warm-up
    // calls), the library timed alone again after a drift.
    double clean_s = 0, later_set_up_s = 0, drift_retiming_s = 0, exit_s = 0, final_audit_s = 0;
    // The same window as the workers measured it (runner/worker_context.h, alone_since): the clean
    // timings' share (their later shapes' set-up too), the candidate's load when the clean timings
    // kept the GPU, every shape's set-up that ran alone; and what none of the parts accounts for.
    double clean_alone_s = 0, load_alone_s = 0, set_up_alone_s = 0, window_rest_s = 0;
    int no_counted_sample = 0;
    for (const auto& rec : r.records)
      if (const StageResult* t = rec.stage("timing")) {
        double parts = 0;
        for (const auto& b : t->detail.value("baseline_alone", json::array())) {
          clean_s += b.value("seconds", 0.0);
          clean_alone_s += b.value("alone_seconds", 0.0), parts += b.value("alone_seconds", 0.0);
        }
        drift_retiming_s += t->detail.value("baseline_drift_seconds", 0.0);
        parts += t->detail.value("baseline_drift_seconds", 0.0) + t->detail.value("final_audit_seconds", 0.0) +
                 t->detail.value("exit_after_done_seconds", 0.0);
        bool first = true;
        for (const auto& shape : t->detail.value("shapes", json::array())) {
          if (!first) later_set_up_s += shape.value("set_up_seconds", 0.0);
          first = false;
          load_alone_s += shape.value("alone_since_clean_timings_seconds", 0.0);
          set_up_alone_s += shape.value("set_up_alone_seconds", 0.0);
          parts += shape.value("alone_since_clean_timings_seconds", 0.0) + shape.value("set_up_alone_seconds", 0.0) +
                   shape.value("wall_seconds", 0.0);
          sampling_s += shape.value("wall_seconds", 0.0), counted_s += shape.value("counted_sample_seconds", 0.0);
          int samples = 0;
          for (const char* side : {"candidate", "baseline"})
            if (const json st = shape.value(side, json::object()); st.is_object())
              timed_calls_s += st.value("total_ms", 0.0) / 1e3, samples += st.value("samples", 0);
          const json h = shape.value("harness_gpu_ms", json::object());
          // The totals where the worker reports them (the medians times the samples before).
          if (h.contains("after_call_total_ms"))
            harness_gpu_s += (h.value("before_call_total_ms", 0.0) + h.value("after_call_total_ms", 0.0)) / 1e3;
          else
            harness_gpu_s +=
                samples * (h.value("before_call_median_ms", 0.0) + h.value("after_call_median_ms", 0.0)) / 1e3;
          host_gap_s += h.value("host_gap_total_ms", 0.0) / 1e3;
        }
        no_counted_sample += t->detail.contains("counted_timed_sample");
        exclusive_wait_s += t->detail.value("exclusive_wait_seconds", 0.0);
        held_s += t->detail.value("exclusive_held_seconds", 0.0);
        if (t->detail.contains("exclusive_held_seconds"))
          window_rest_s += t->detail.value("exclusive_held_seconds", 0.0) - parts;
        exit_s += t->detail.value("exit_after_done_seconds", 0.0);
        final_audit_s += t->detail.value("final_audit_seconds", 0.0);
        settle_s += t->detail.value("exclusive_settle_seconds", 0.0);
        cache_wait_s += t->detail.value("baseline_cache_wait_seconds", 0.0);
        if (t->detail.contains("baseline")) plan_s += library_plan_seconds(t->detail.at("baseline"));
      }
    // Within the correctness checks: the candidates' calls, and the harness's regenerated inputs,
    // references (computed, or handed over by the service's pool) and full checks; the checks whose
    // reference came from the pool, and the time its workers spent making the pool's sets before
    // their candidates loaded.
    double check_call_s = 0, reference_s = 0, pooled_handover_s = 0, pool_making_s = 0;
    int pooled_checks = 0, checks = 0;
    for (const auto& rec : r.records) {
      if (const StageResult* c = rec.stage("correctness"))
        for (const auto& check : c->detail.value("checks", json::array())) {
          const json sec = check.value("seconds", json::object());
          check_call_s += sec.value("call", 0.0), reference_s += sec.value("reference_and_check", 0.0);
          pooled_handover_s += sec.value("pooled_reference", 0.0);
          pooled_checks += check.value("reference", "").rfind("pooled", 0) == 0;
          ++checks;
        }
      if (const auto pool = rec.environment.find("reference_pool");
          pool != rec.environment.end() && pool->contains("worker"))
        pool_making_s += pool->at("worker").value("seconds", 0.0);
    }
    // Candidates whose calls went uncounted (their SASS held nothing to count: why_no_counted_calls).
    int calls_not_counted = 0;
    for (const auto& rec : r.records)
      if (const StageResult* t = rec.stage("target_run"); t && t->detail.is_object())
        calls_not_counted += t->detail.value("counted", true) == false;
    const double alone_s = r.gate_timed >= 0 ? r.gate_timed * r.wall_s : 0;
    auto percent = [](double fraction) {  // a fraction the configuration does not measure is n/a
      char out[16];
      if (fraction < 0) return std::string("n/a");
      std::snprintf(out, sizeof out, "%.1f%%", 100 * fraction);
      return std::string(out);
    };
    const double drain_s = r.gate_draining >= 0 ? r.gate_draining * r.wall_s : 0;
    if (print_table)
      std::printf("%-15s %8.1f %12.1f %10s %10s %8.2f %8.1f %8.1f %d/%zu same, %.2f%%; %d/%d pooled; %.1f s\n",
                  r.name.c_str(), r.wall_s, per_hour, percent(r.nvml_busy).c_str(), percent(r.gate_busy).c_str(), ratio,
                  alone_s, drain_s, same, r.records.size(), 100 * worst_diff, pooled_checks, checks, reference_s);
    j["configs"].push_back({{"name", r.name},
                            {"sanitizer_order", r.order},
                            {"verdict_counts", verdict_counts},
                            {"verdicts_as_the_queue_expects", expected ? json(as_expected) : json()},
                            {"wall_s", r.wall_s},
                            {"evaluations_per_gpu_hour", per_hour},
                            {"nvml_busy_fraction", r.nvml_busy},
                            {"nvml_busy_by_gate_state", r.busy_by_gate_state},
                            {"gate_busy_fraction", r.gate_busy},
                            {"gate_exclusive_fraction", r.gate_timed},
                            {"gpu_alone_seconds", alone_s},
                            {"gate_draining_fraction", r.gate_draining},
                            {"gpu_draining_seconds", drain_s},
                            {"gpu_draining_seconds_on", r.draining_on},
                            {"unpausable_held_back_seconds", r.held_back_s},
                            {"exclusive_grants", r.exclusive_grants},
                            {"pause", r.pause},
                            {"exclusive_wait_seconds", exclusive_wait_s},
                            {"library_plan_seconds", plan_s},
                            {"timed_workers_exclusive_seconds", held_s},
                            {"exclusive_settle_seconds", settle_s},
                            {"timed_sampling_seconds", sampling_s},
                            {"timed_calls_seconds", timed_calls_s},
                            {"sampling_harness_gpu_seconds", harness_gpu_s},
                            {"sampling_host_gap_seconds", host_gap_s},
                            {"counted_sample_seconds", counted_s},
                            {"clean_baseline_seconds", clean_s},
                            {"later_shapes_set_up_seconds", later_set_up_s},
                            {"clean_timings_alone_seconds", clean_alone_s},
                            {"load_alone_seconds", load_alone_s},
                            {"set_up_alone_seconds", set_up_alone_s},
                            {"exclusive_window_rest_seconds", window_rest_s},
                            {"timed_worker_exit_seconds", exit_s},
                            {"timed_worker_final_audit_seconds", final_audit_s},
                            {"baseline_drift_retiming_seconds", drift_retiming_s},
                            {"timed_without_counted_sample", no_counted_sample},
                            {"calls_not_counted", calls_not_counted},
                            {"correctness_call_seconds", check_call_s},
                            {"correctness_reference_and_check_seconds", reference_s},
                            {"correctness_checks", checks},
                            {"correctness_checks_with_pooled_reference", pooled_checks},
                            {"pooled_reference_handover_seconds", pooled_handover_s},
                            {"reference_pool_making_seconds", pool_making_s},
                            {"reference_pool", r.reference_pool},
                            {"baseline_cache_hits", r.cache_hits},
                            {"baseline_cache_wait_seconds", cache_wait_s},
                            {"sequential_infra_reruns", r.sequential_reruns},
                            {"throughput_vs_sequential", ratio},
                            {"verdicts_same_as_sequential", same},
                            {"max_abs_speedup_diff_vs_sequential", worst_diff},
                            {"stage_seconds", stage_seconds},
                            {"candidates", cands}});
  }
  // The verdicts each configuration gave, by verdict, and against what the queue expects.
  if (print_table)
    for (const auto& c : j["configs"]) {
      std::printf("%-15s sanitizers %s; verdicts:", c.value("name", "").c_str(),
                  c.value("sanitizer_order", "").c_str());
      for (const auto& [v, n] : c["verdict_counts"].items()) std::printf(" %s %d", v.c_str(), n.get<int>());
      if (c["verdicts_as_the_queue_expects"].is_number())
        std::printf("; %d/%zu as the queue expects", c["verdicts_as_the_queue_expects"].get<int>(), distinct);
      std::printf("\n");
    }
  // Candidate by candidate, every configuration's verdict side by side (the first copy of each).
  if (print_table && verdict_table && !results.empty()) {
    std::printf("\n%-52s", "candidate");
    for (const auto& r : results) std::printf(" %-20.20s", r.name.c_str());
    std::printf("\n");
    int differing = 0;
    for (size_t i = 0; i < distinct; ++i) {
      std::set<std::string> seen;
      std::printf("%-52.52s", items[i].label.c_str());
      for (const auto& r : results) {
        const std::string v = i < r.records.size() ? std::string(to_string(r.records[i].verdict)) : "-";
        seen.insert(v);
        std::printf(" %-20s", v.c_str());
      }
      differing += seen.size() > 1;
      std::printf("%s\n", seen.size() > 1 ? "  <- differs" : "");
    }
    std::printf("%d of %zu candidates with differing verdicts\n\n", differing, distinct);
  }
  // Where NVML's busy fraction is lost: its share of the wall time and NVML's figure within each
  // state of the gate (a GPU stage alone, only shared ones, none: builds and start-up).
  if (print_table)
    for (const auto& r : results) {
      if (r.busy_by_gate_state.empty()) continue;
      std::printf("%-15s NVML busy by gate state:", r.name.c_str());
      for (const auto& [state, v] : r.busy_by_gate_state.items())
        std::printf("  %s %.1f%% of the wall at %.1f%%", state.c_str(), 100 * v.value("wall_fraction", 0.0),
                    100 * std::max(0.0, v.value("nvml_busy", 0.0)));
      std::printf("\n");
    }
  // What the drains waited on: timed workers still starting, shared workers that cannot pause, or
  // only the pausable ones' acknowledgements (engine/gpu_gate.h).
  if (print_table)
    for (const auto& r : results) {
      if (r.draining_on.empty()) continue;
      std::printf(
          "%-15s drains waited %.1f s: on a timed worker starting %.1f s, on workers that cannot pause %.1f s, "
          "on pause acknowledgements %.1f s; workers that cannot pause held back %.1f s; grants %lld, with paused "
          "workers %lld (timed workers' starts paused %lld), fallbacks to a drain %lld, untrusted windows %lld\n",
          r.name.c_str(), r.draining_on.value("all", 0.0), r.draining_on.value("on_timed_start", 0.0),
          r.draining_on.value("on_unpausable", 0.0), r.draining_on.value("on_pause", 0.0), r.held_back_s,
          r.exclusive_grants, r.pause.value("paused_grants", 0LL), r.pause.value("paused_timed_starts", 0LL),
          r.pause.value("pause_fallbacks", 0LL), r.pause.value("untrusted_windows", 0LL));
    }
  // Where the sample loops' time goes: the timed calls, the harness's GPU work around them, and the
  // rest (the host between samples, NVML reads, the counted sample's instrumented call).
  if (print_table)
    for (const auto& c : j["configs"])
      std::printf(
          "%-15s timed workers held the GPU alone %.1f s: sample loops %.1f s (timed calls %.1f s, harness GPU work "
          "%.1f s, GPU idle for the host %.2f s, counted samples %.1f s); library clean timings %.1f s alone (%.1f s "
          "of samples); the candidates' loads while kept alone %.1f s; the shapes' set-up alone %.1f s; library "
          "re-timed after a drift %.1f s; the workers' last audits %.2f s; their exits after their results %.2f s; "
          "the rest of the window %.2f s\n",
          c.value("name", "").c_str(), c.value("timed_workers_exclusive_seconds", 0.0),
          c.value("timed_sampling_seconds", 0.0), c.value("timed_calls_seconds", 0.0),
          c.value("sampling_harness_gpu_seconds", 0.0), c.value("sampling_host_gap_seconds", 0.0),
          c.value("counted_sample_seconds", 0.0), c.value("clean_timings_alone_seconds", 0.0),
          c.value("clean_baseline_seconds", 0.0), c.value("load_alone_seconds", 0.0),
          c.value("set_up_alone_seconds", 0.0), c.value("baseline_drift_retiming_seconds", 0.0),
          c.value("timed_worker_final_audit_seconds", 0.0), c.value("timed_worker_exit_seconds", 0.0),
          c.value("exclusive_window_rest_seconds", 0.0));
  fs::create_directories(fs::path(out).parent_path());
  std::ofstream(out) << j.dump(2) << "\n";
  // Every record in full beside the table, one JSON line each, to see where any time went.
  std::ofstream lines(fs::path(out).replace_extension(".records.jsonl"));
  for (const auto& r : results)
    for (size_t i = 0; i < r.records.size(); ++i)
      lines << json{{"config", r.name},
                    {"label", items[r.sequential ? i % distinct : i].label},
                    {"record", to_json(r.records[i])}}
                   .dump()
            << "\n";
  if (print_table) std::cerr << "written " << out << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Service throughput: evaluations per GPU-hour and busy fraction, configurations side by side"};
  std::vector<std::string> problems{"gemm", "mha_fwd", "mha_fwd_causal", "mha_bwd", "mha_bwd_causal"};
  std::vector<std::string> configs{"sequential", "pipelining_off", "sharing_off", "caching_off", "all_on"};
  int lanes = 3, device = 0, repeat = 1;
  std::string out = "bench-results/service_throughput.json", workspace_root = "bench-results/service_workspaces";
  // The failing candidates: from the checkout it runs in (a device machine's copy), else the build's.
  std::string source_dir = fs::exists("tests/gpu/candidates") ? "." : PTXBENCH_SOURCE_DIR;
  std::string queue_name = "refs", base_name = "sequential";
  bool verdict_table = false;
  app.add_option("--queue", queue_name,
                 "refs (the problems' references and four failing GEMMs), agent_mix (bench/agent_mix.json) or "
                 "verdict_sets (every candidate of tests/gpu/candidates)")
      ->check(CLI::IsMember({"refs", "agent_mix", "verdict_sets"}));
  app.add_option("--base", base_name, "The configuration the others are held against (verdicts, speedups, x seq)");
  app.add_flag("--verdict-table", verdict_table, "Print every candidate's verdict in every configuration");
  std::vector<std::string> only;
  app.add_option("--only", only, "Keep only the candidates whose label starts with one of these (e.g. attacks/)")
      ->delimiter(',');
  app.add_option("--problems", problems, "Problems whose references make the refs queue")->delimiter(',');
  app.add_option("--configs", configs, "Configurations, in order")->delimiter(',');
  app.add_option("--lanes", lanes, "Shared lanes in all_on, pause_off and caching_off (all_on/N: N lanes)");
  app.add_option("--repeat", repeat, "Queue every candidate this many times, each copy a new file")
      ->check(CLI::Range(1, 20));
  app.add_option("--device", device, "CUDA device");
  app.add_option("--out", out, "JSON results");
  app.add_option("--workspaces", workspace_root, "A fresh workspace per configuration under here");
  // Off by default: every configuration then times the library alone in full, as a fresh workspace does.
  std::string library_timings_db;
  bool warm_library_timings = false;
  app.add_option("--library-timings", library_timings_db,
                 "Every configuration keeps the library's clean timings in this database, as one workspace keeps "
                 "them across runs (docs/library-timing-cache.md); a stored timing is re-validated by a short check");
  app.add_flag("--warm-library-timings", warm_library_timings,
               "Before the configurations, judge one reference per problem (no sanitizers) so that the database "
               "holds every timed shape's library timing: each configuration then meets it as a later run would");
  CLI11_PARSE(app, argc, argv);
  if (warm_library_timings && library_timings_db.empty()) {
    std::cerr << "service_throughput: --warm-library-timings needs --library-timings FILE\n";
    return 2;
  }

  ProblemRegistry reg(ProblemRegistry::default_root());
  std::vector<Item> queue;
  try {
    queue = queue_name == "agent_mix"      ? agent_mix_queue(reg, source_dir)
            : queue_name == "verdict_sets" ? verdict_sets_queue(source_dir)
                                           : mixed_queue(reg, problems, source_dir);
  } catch (const std::exception& e) {
    std::cerr << "service_throughput: " << e.what() << "\n";
    return 2;
  }
  if (!only.empty())
    std::erase_if(queue, [&](const Item& it) {
      return std::none_of(only.begin(), only.end(), [&](const std::string& p) { return it.label.rfind(p, 0) == 0; });
    });
  if (queue.empty()) {
    std::cerr << "service_throughput: no candidate left in the queue (--only)\n";
    return 2;
  }
  std::map<std::string, ProblemSpec> specs;
  for (const auto& it : queue)
    if (!specs.count(it.problem)) specs.emplace(it.problem, reg.load(it.problem));
  const std::vector<Item> items = repeated(queue, repeat);
  std::cerr << "service_throughput: queue " << queue_name << ", " << items.size() << " candidates (" << queue.size()
            << " distinct), configurations:";
  for (const auto& c : configs) std::cerr << " " << c;
  std::cerr << "\n";

  // Every configuration is read before any runs: a typo in the last is not found minutes later.
  std::vector<ConfigSpec> specs_to_run;
  try {
    for (const auto& name : configs) specs_to_run.push_back(parse_config(name, lanes));
  } catch (const std::exception& e) {
    std::cerr << "service_throughput: " << e.what() << "\n";
    return 2;
  }
  std::shared_ptr<LibraryTimingSource> library_timings;
  if (!library_timings_db.empty()) {
    fs::create_directories(fs::absolute(library_timings_db).parent_path());
    library_timings = workspace_library_timings(library_timings_db);
  }
  if (warm_library_timings) {
    const fs::path ws = fs::path(workspace_root) / "library_warm_up";
    EvalOptions eval = fresh_workspace_options(ws, device);
    eval.sanitize = false;
    eval.library_timings = library_timings;
    Evaluator ev(eval, {});
    std::set<std::string> done;
    const auto t0 = std::chrono::steady_clock::now();
    for (const auto& it : queue) {
      if (it.label.find("wgmma") == std::string::npos || !done.insert(it.problem).second) continue;
      const fs::path f = ws / (it.problem + ".cu");
      std::ofstream(f) << it.source;
      const EvaluationRecord rec = ev.evaluate(specs.at(it.problem), f);
      std::cerr << "  library warm-up " << it.label << ": " << to_string(rec.verdict) << "\n";
    }
    std::cerr << "service_throughput: library timings warmed in "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s\n";
  }
  std::vector<ConfigResult> results;
  for (const auto& spec : specs_to_run) {
    const std::string& name = spec.name;
    const std::string& kind = spec.kind;
    const int config_lanes = spec.lanes;
    const json& timing_config = spec.timing_config;
    fs::path ws = fs::path(workspace_root) / kind;
    if (spec.lanes_given) ws = fs::path(workspace_root) / (kind + "_lanes" + std::to_string(config_lanes));
    for (const auto& [k, v] : timing_config.items()) ws += "_" + k + "_" + v.dump();
    if (spec.order) ws += "_order_" + to_string(*spec.order);
    EvalOptions eval = fresh_workspace_options(ws, device);
    eval.timing_config = timing_config;
    // The sequential run is today's path unless told otherwise: the sanitizers first.
    eval.sanitizer_order = spec.order             ? *spec.order
                           : kind == "sequential" ? SanitizerOrder::first
                                                  : eval.sanitizer_order;
    // caching_off keeps nothing across evaluations, as `--no-cache` does.
    if (kind != "caching_off") eval.library_timings = library_timings;
    ConfigResult r;
    r.name = name;
    r.sequential = kind == "sequential";
    r.order = to_string(eval.sanitizer_order);
    const auto t0 = std::chrono::steady_clock::now();
    BusySampler busy(device);
    if (kind == "sequential") {
      Evaluator ev(eval, {});
      for (const auto& it : queue) {
        const fs::path f = ws / (std::to_string(r.records.size()) + ".cu");
        std::ofstream(f) << it.source;
        // An infra_error (a harness fault, the GPU's speed drifting under a timing) runs again, up to
        // twice, as the service re-queues one: the baseline's verdicts are then the candidates'.
        EvaluationRecord rec = evaluate_with_infra_retries(
            [&] { return ev.judge(specs.at(it.problem), ev.prepare(specs.at(it.problem), f, it.folder)); }, 3,
            [&](int, const std::string& why) {
              std::cerr << "  " << name << " " << it.label << ": infra_error (" << why << "), run again\n";
              ++r.sequential_reruns;
            });
        r.records.push_back(std::move(rec));
        std::cerr << "  " << name << " " << it.label << ": " << to_string(r.records.back().verdict) << " ("
                  << r.records.back().reason << ")\n";
      }
    } else {
      EngineServiceOptions so;
      so.eval = eval;
      so.engine.devices = {device};
      so.engine.cpu_jobs = std::max(2u, std::thread::hardware_concurrency());
      so.engine.shared_lanes = kind == "all_on" || kind == "caching_off" || kind == "pause_off" ||
                                       kind == "hold_start" || kind == "start_drain"
                                   ? config_lanes
                                   : 1;
      so.eval.pausable_timed_start = kind != "start_drain";
      so.engine.hold_unpausable_for_timed_start = kind == "hold_start";
      if (kind == "pause_off") so.engine.shared_pause_timeout = std::chrono::milliseconds(0);
      so.engine.pipelining = kind != "pipelining_off";
      so.cache_baselines = kind != "caching_off";
      EngineCandidateService service(so, {});
      busy.watch([&service] {
        const json g = service.snapshot()["gpus"][0];
        return g.value("timing", false)         ? GateState::alone
               : g.value("shared_users", 0) > 0 ? GateState::shared
                                                : GateState::none;
      });
      std::vector<CandidateTicket> tickets;
      for (const auto& it : items)
        tickets.push_back(service.submit({&specs.at(it.problem), it.source, it.label, "", it.folder}));
      for (size_t i = 0; i < tickets.size(); ++i) {
        r.records.push_back(tickets[i].wait().record);
        std::cerr << "  " << name << " " << items[i].label << ": " << to_string(r.records.back().verdict) << " ("
                  << r.records.back().reason << ")\n";
      }
      const json snap = service.snapshot();
      if (!snap["gpus"].empty()) {
        r.gate_busy = snap["gpus"][0].value("busy_fraction", -1.0);
        r.gate_timed = snap["gpus"][0].value("timed_fraction", -1.0);
        r.gate_draining = snap["gpus"][0].value("draining_fraction", -1.0);
        r.draining_on = snap["gpus"][0].value("draining_seconds", json::object());
        r.held_back_s = snap["gpus"][0].value("held_back_seconds", 0.0);
        r.exclusive_grants = snap["gpus"][0].value("exclusive_grants", 0LL);
        for (const char* k : {"paused_grants", "pause_fallbacks", "untrusted_windows", "paused_timed_starts"})
          r.pause[k] = snap["gpus"][0].value(k, 0LL);
      }
      r.cache_hits = snap["baseline_cache"].value("hits", 0LL);
      r.reference_pool = snap.value("reference_pool", json::object());
      busy.watch({});
    }
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.nvml_busy = busy.stop();
    r.busy_by_gate_state = busy.by_gate_state();
    results.push_back(std::move(r));
    write_report(results, items, queue.size(), queue_name, base_name, verdict_table, out, /*print_table=*/false);
    std::cerr << "service_throughput: " << results.back().name << " done in " << results.back().wall_s << " s\n";
  }

  write_report(results, items, queue.size(), queue_name, base_name, verdict_table, out, /*print_table=*/true);
  return 0;
}
