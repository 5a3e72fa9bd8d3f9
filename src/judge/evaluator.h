// Judges one candidate through the pipeline of stages (judge/stages/pipeline.h: build and static
// checks on the CPU, then the GPU worker's stages) into its record; the first failing stage
// decides the verdict (judge/stages/verdict_decision.h).
#pragma once
#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/language.h"
#include "core/record.h"
#include "judge/gpu_lane_gate.h"
#include "problems/problem_spec.h"

namespace ptxbench {

class BaselineCache;
class LibraryTimingSource;
class ReferencePool;

// Where the sanitizers stand among a candidate's GPU stages (judge/stages/pipeline.cpp; names and
// the plan: judge/stages/sanitizer_order.h). The record's stages keep one order in every case
// (sanitize before integrity, stream discipline, correctness, target_run, timing), so the first
// failed stage decides as before.
enum class SanitizerOrder {
  // A smoke call, then memcheck, racecheck and synccheck, then the eval worker: every candidate
  // that runs gets all three sanitizers (the order before issue 47).
  first,
  // The eval worker first (no smoke call: its calls run under the normal time limits). A candidate
  // whose shared part passed gets all three sanitizers before it is timed; one that failed (but
  // did not hang) gets memcheck alone, so a memory error keeps the verdict it had; one that hung
  // gets none. After a sanitizer failure the smoke call runs, and its failure decides as it did.
  after_correctness,
  // The same, but a candidate that failed gets no sanitizer at all: its verdict is its failure.
  only_if_correct,
};

struct EvalOptions {
  std::string arch = "sm_90a";
  Language language = Language::cuda;  // how the candidate is built and checked (core/language.h)
  std::filesystem::path workspace;     // builds/, jobs/, the database
  std::filesystem::path worker;        // ptxbench-worker; empty: beside this executable
  bool use_gpu = true;                 // false: static stages only (--no-gpu)
  bool sanitize = true, probe = true, timing = true;
  SanitizerOrder sanitizer_order = SanitizerOrder::after_correctness;
  // The GPU activity audit and in-process counting (CUPTI). Off only to measure their own effect
  // on timing (bench/eval_stability --accounting-ab): the record then says nothing was audited.
  bool accounting = true;
  int device = 0;
  std::vector<std::filesystem::path> include_dirs;  // beyond interface.h and the arch's knowledge pack
  // Readable for the candidate's relative includes (not on the include path), beyond its own folder.
  std::vector<std::filesystem::path> readable_roots;
  // The candidate's own folder is readable to its build (a file on the command line and its
  // neighbours); false: only the file itself (the agent's candidates share a folder).
  bool candidate_folder_readable = true;
  std::string display_name;              // the candidate's name in compiler logs; empty: its file name
  std::filesystem::path knowledge_root;  // knowledge/ (packs per arch); empty: beside the problems
  json timing_config = json::object();   // see runner/timing.h
  std::optional<uint64_t> seed;          // fixed only for debugging; normally secret and fresh
  // Set by the service engine (one per GPU, shared by its lanes): every GPU stage holds shared
  // use of the GPU, and timing runs in a worker of its own holding exclusive use. Null: this
  // Evaluator owns the GPU (one sequential lane) and correctness and timing share one worker.
  GpuLaneGate* lane_gate = nullptr;
  // With a lane gate: the timed worker can be paused while it starts (until its first request for
  // the GPU alone), so another timed worker's request need not wait for its start to end (issue 47).
  bool pausable_timed_start = true;
  // With a lane gate: the library's clean timings reused across candidates on this GPU
  // (judge/caches/baseline_cache.h); null: timed alone for every candidate.
  BaselineCache* baseline_cache = nullptr;
  // The library's clean timings kept in the workspace across evaluations and runs
  // (judge/caches/library_timings.h): offered to the worker that times the library alone, which
  // re-validates a stored one with `library_check_samples` samples. Null: off (--no-cache).
  std::shared_ptr<LibraryTimingSource> library_timings;
  int library_check_samples = 5;
  // With a lane gate: input sets with their fp32 references shared by the correctness checks of
  // candidates on this GPU (judge/caches/reference_pool.h); null: every check computes its own.
  ReferencePool* reference_pool = nullptr;
  // Readable for the worker beyond its own folder and the candidate's: a Triton candidate's
  // interpreter and tools (set per evaluation by judge/stages/triton_gpu_prepare.h).
  std::vector<std::filesystem::path> worker_readable;
};

using ProgressFn = std::function<void(const std::string& line)>;

// A candidate after the CPU stages (build, static checks): what the GPU stages need. The SASS
// scan may still be running; finish() joins it.
struct PreparedCandidate {
  EvaluationRecord record;              // build and static stages recorded
  std::filesystem::path shared_object;  // empty when the build failed
  std::filesystem::path build_dir;      // removed by finish()
  bool ready_for_gpu = false;           // built and passed the static checks
  struct SassScan;
  std::shared_ptr<SassScan> sass;  // the cuobjdump scan (target_static), joined by finish()
};

class Evaluator {
 public:
  Evaluator(EvalOptions options, ProgressFn progress);
  // Never throws for a bad candidate: every failure becomes a verdict in the record. Throws
  // InputError only when the candidate file cannot be read.
  EvaluationRecord evaluate(const ProblemSpec& problem, const std::filesystem::path& candidate);

  // The same in two phases, so a pipeline can build one candidate (CPU-bound, any thread) while
  // another is on the GPU. prepare() never touches the GPU and may run on several threads at
  // once; judge() runs the GPU stages (or records why they are skipped) and returns the finished
  // record, one call at a time per Evaluator. `problem` must outlive the prepared candidate.
  // `source_folder`: where the candidate's file came from (CandidateJob's), when `candidate` is a
  // copy elsewhere: on the include path and readable, for its relative includes; ignored when absent.
  PreparedCandidate prepare(const ProblemSpec& problem, const std::filesystem::path& candidate,
                            const std::filesystem::path& source_folder = {});
  EvaluationRecord judge(const ProblemSpec& problem, PreparedCandidate prepared);

  // Why GPU stages are skipped (empty when a GPU is there). Asks the worker once.
  const std::string& gpu_unavailable_reason();

 private:
  void note(const std::string& s) {
    if (progress_) progress_(s);
  }

  EvalOptions opt_;
  ProgressFn progress_;
  std::atomic<unsigned> build_counter_{0};
  std::optional<std::string> gpu_reason_;
  json gpu_hello_;
};

}  // namespace ptxbench
