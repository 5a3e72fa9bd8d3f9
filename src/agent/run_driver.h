// The MiniPTXAgent: runs (or resumes) one run. It opens the run in the store (the same config
// resumes it), seeds the judge cache from the stored turns, and runs every unfinished trajectory
// on its own thread (up to --parallel at once), so model calls overlap compilation and GPU work;
// then it records how the run ended. The GPU is reached only through the CandidateService.
#pragma once
#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "agent/clients/model_client.h"
#include "agent/run_config.h"
#include "agent/run_context.h"
#include "service/candidate_service.h"
#include "store/run_store.h"

namespace ptxbench {

struct RunOutcome {
  RunInfo run;            // as stored at the end
  std::string status;     // complete, stopped
  std::string stop_kind;  // limit, quota, infra_errors, client_error, store_error, interrupted ("" when complete)
  std::string stop_reason;
  int new_turns = 0;     // counted turns started in this invocation
  bool created = false;  // a new run (else resumed)
  bool store_failed = false;
  GpuDescription gpu;
};

struct RunDriverOptions {
  std::filesystem::path knowledge_root;
  std::filesystem::path workspace;
  std::ostream* progress_stream = nullptr;    // stderr by default
  bool interactive = false;                   // redraw the progress line in place (a terminal)
  const fixit::RepairNotes* notes = nullptr;  // loaded for config.repair_notes (its sha256 set in the config)
};

class RunDriver {
 public:
  // `problems` are the resolved specs named by config.problems.
  RunDriver(RunConfig config, std::vector<ProblemSpec> problems, ModelClient& client, CandidateService& service,
            RunStore& store, RunDriverOptions options);
  // Throws InputError when the run id exists with another configuration, Error when the store fails to open it.
  RunOutcome run();
  // Thread-safe; the first call wins. interrupt: also start no new judging (a signal).
  void request_stop(const std::string& reason, bool interrupt);

 private:
  RunConfig config_;
  std::vector<ProblemSpec> problems_;
  ModelClient& client_;
  CandidateService& service_;
  RunStore& store_;
  RunDriverOptions options_;
  std::mutex mutex_;
  RunContext* context_ = nullptr;  // while run() runs
  std::string pending_stop_;
  bool pending_interrupt_ = false;
};

// The provenance stored with a run: harness version and commit, nvcc, the GPU, renderer versions.
json run_provenance(const GpuDescription& gpu, const ModelClient& client);

}  // namespace ptxbench
