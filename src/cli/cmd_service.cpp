// ptxbench service status | submit: what the GPU profiling service is doing (queue depth, lanes,
// GPU health, busy fraction, recent faults), and candidates handed to a running `serve`.
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <thread>

#include "cli/commands.h"
#include "core/content_hash.h"
#include "core/error.h"
#include "core/timestamp.h"
#include "problems/registry.h"
#include "report/summary.h"
#include "service/engine/evaluator_executor.h"
#include "service/engine_candidate_service.h"
#include "service/queue/redis_job_queue.h"
#include "service/queue/sqlite_job_queue.h"
#include "service/status_writer.h"
#include "store/workspace_db.h"

namespace ptxbench::cli {
namespace fs = std::filesystem;
namespace {

json read_json_file(const fs::path& p) {
  std::ifstream in(p);
  if (!in) return nullptr;
  json j = json::parse(in, nullptr, false);
  return j.is_discarded() ? json(nullptr) : j;
}

std::vector<json> last_faults(const fs::path& log, size_t n) {
  std::ifstream in(log);
  std::vector<json> all;
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line, nullptr, false);
    if (!j.is_discarded()) all.push_back(std::move(j));
  }
  if (all.size() > n) all.erase(all.begin(), all.end() - static_cast<long>(n));
  return all;
}

// GPUs (busy fractions), health (thermal screening, pauses) and lanes of one engine's snapshot.
void print_engine_state(const json& status) {
  const auto& nvml = status.value("nvml_busy", json::object());
  for (const auto& gpu : status.value("gpus", json::array())) {
    const std::string d = std::to_string(gpu.value("device", 0));
    std::printf("  GPU %s: busy %.1f%% (lanes holding it), timing %.1f%%, draining for timing %.1f%%", d.c_str(),
                100 * gpu.value("busy_fraction", 0.0), 100 * gpu.value("timed_fraction", 0.0),
                100 * gpu.value("draining_fraction", 0.0));
    if (nvml.contains(d)) std::printf(", NVML utilization %.1f%%", 100 * nvml[d].value("mean_utilization", 0.0));
    std::printf("\n");
  }
  for (const auto& h : status.value("health", json::array())) {
    std::cout << "  GPU " << h.value("device", 0)
              << " health: " << (h.value("healthy", false) ? "healthy" : "UNHEALTHY")
              << (h.value("out_of_service", false) ? ", OUT OF SERVICE: " + h.value("out_of_service_reason", "") : "")
              << (h.value("paused", false) && !h.value("out_of_service", false)
                      ? ", paused: " + h.value("pause_reason", "")
                      : "")
              << (h.value("timing_excluded", false)
                      ? ", excluded from timing: " + h.value("timing_exclusion_reason", "")
                      : "")
              << ", calibration " << h.value("reference_calibration_ms", 0.0) << " ms, restarts "
              << h.value("restarts", 0) << ", Xid events " << h.value("xid_events", 0) << " (hardware "
              << h.value("hardware_faults", 0) << ")"
              << (h.value("last_hardware_fault", "").empty() ? "" : ", last: " + h.value("last_hardware_fault", ""))
              << "; Xid " << h.value("xid_watch", "not watched") << "\n";
  }
  if (const auto& pool = status.value("reference_pool", json::object()); !pool.empty()) {
    if (!pool.value("enabled", true)) std::cout << "  reference pool: off (--no-cache)\n";
    else
      std::cout << "  reference pool: " << pool.value("sets", 0) << " input sets with references ("
                << pool.value("bytes", 0LL) / (1 << 20) << " MiB), served " << pool.value("served", 0LL)
                << " checks, made " << pool.value("added", 0LL) << ", retired " << pool.value("evicted", 0LL) << "\n";
  }
  const json lanes = status.value("lanes", json::object());  // items() of a temporary would dangle
  for (const auto& [lane, what] : lanes.items()) std::cout << "  " << lane << ": " << what.get<std::string>() << "\n";
}

void print_counts(const QueueCounts& c) {
  std::cout << "queue: " << c.queued << " queued, " << c.leased << " running (" << c.expired_leases
            << " expired leases), " << c.done << " done, " << c.infra_error << " infra_error\n";
}

json counts_json(const QueueCounts& c) {
  return {{"queued", c.queued},
          {"leased", c.leased},
          {"expired_leases", c.expired_leases},
          {"done", c.done},
          {"infra_error", c.infra_error}};
}

// A Redis queue: its counts and every worker that publishes its state there, from any host.
void run_remote_status(const std::string& url, bool as_json) {
  RedisJobQueue queue(parse_redis_url(url));
  if (!queue.status().ok) throw InputError(queue.status().error);
  QueueCounts c;
  std::vector<json> workers;
  if (auto s = queue.counts(&c); !s.ok) throw InputError(s.error);
  if (auto s = queue.workers(&workers); !s.ok) throw InputError(s.error);
  if (as_json) {
    std::cout << json{{"queue", counts_json(c)}, {"endpoint", queue.endpoint().url()}, {"workers", workers}}.dump(2)
              << "\n";
    return;
  }
  print_counts(c);
  std::cout << "workers on " << queue.endpoint().url() << ": " << workers.size() << "\n";
  for (const auto& w : workers) {
    const auto& counters = w.value("counters", json::object());
    std::cout << "worker " << w.value("owner", "?") << " on " << w.value("host", "?") << " (GPU "
              << w.value("gpu", json::object()).value("name", "?") << ", state of " << w.value("published_at", "?")
              << "): " << counters.value("completed", 0) << " completed, " << counters.value("in_flight", 0)
              << " in flight, " << counters.value("infra_faults", 0) << " infra faults\n";
    print_engine_state(w);
    for (const auto& f : w.value("recent_faults", json::array()))
      std::cout << "  fault " << f.value("at", "") << " GPU " << f.value("device", -1) << " " << f.value("kind", "")
                << " " << f.value("job", "") << ": " << f.value("reason", "") << "\n";
  }
}

void run_status(const GlobalOptions& g, bool as_json, const std::string& queue_url) {
  if (!queue_url.empty()) return run_remote_status(queue_url, as_json);
  const fs::path ws = workspace_dir(g);
  SqliteJobQueue queue(database_path(g, true));
  if (!queue.status().ok) throw InputError(queue.status().error);
  QueueCounts c;
  if (auto s = queue.counts(&c); !s.ok) throw InputError(s.error);
  json status = read_json_file(service_status_file(ws));
  const bool running = status.is_object() && kill(status.value("pid", 0), 0) == 0;
  json out = {{"queue", counts_json(c)},
              {"serving", running},
              {"service", status},
              {"recent_faults", last_faults(service_fault_log(ws), 10)}};
  if (as_json) {
    std::cout << out.dump(2) << "\n";
    return;
  }
  print_counts(c);
  if (!status.is_object()) {
    std::cout << "service: never ran in this workspace\n";
  } else {
    std::cout << "service: " << (running ? "running" : "not running") << " (pid " << status.value("pid", 0)
              << ", status of " << status.value("written_at", "?") << ")\n";
    print_engine_state(status);
  }
  for (const auto& f : out["recent_faults"])
    std::cout << "  fault " << f.value("at", "") << " GPU " << f.value("device", -1) << " " << f.value("kind", "")
              << " " << f.value("job", "") << ": " << f.value("reason", "") << "\n";
}

struct SubmitArgs {
  std::string problem = "gemm";
  std::vector<std::string> files;
  bool json = false, no_wait = false;
};

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw InputError("cannot read candidate '" + p.string() + "'");
  return {std::istreambuf_iterator<char>(in), {}};
}

void run_submit(const SubmitArgs& a, const GlobalOptions& g, ExitCode& code) {
  ProblemRegistry registry(problems_root(g));
  const ProblemSpec spec = registry.load(a.problem);
  const fs::path db_path = fs::path(workspace_dir(g)) / "ptxbench.db";
  SqliteJobQueue queue(db_path);
  if (!queue.status().ok) throw InputError(queue.status().error);
  const std::string session = "submit-" + utc_timestamp_ms() + "-" + std::to_string(getpid());
  std::vector<std::string> ids;
  for (size_t i = 0; i < a.files.size(); ++i) {
    const std::string source = read_all(a.files[i]);
    ids.push_back(session + "/" + std::to_string(i) + "/" + content_sha256(source).substr(0, 16));
    if (auto s = queue.enqueue(ids.back(),
                               candidate_payload(spec.name, source, a.files[i], fs::absolute(a.files[i]).parent_path()),
                               nullptr);
        !s.ok)
      throw InputError(s.error);
    spdlog::info("queued {} as {}", a.files[i], ids.back());
  }
  if (a.no_wait) return;
  WorkspaceDb db(db_path);
  json all = json::array();
  int worst = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    std::optional<JobOutcome> o;
    for (;;) {
      if (auto s = queue.outcome(ids[i], &o); !s.ok) throw InputError(s.error);
      if (o && (o->state == JobState::done || o->state == JobState::infra_error)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    EvaluationRecord r;
    if (o->state == JobState::done) {
      r = record_from_json(o->result.at("record"));
    } else {
      r.problem = spec.name, r.verdict = Verdict::infra_error, r.reason = o->reason, r.created_at = utc_timestamp();
    }
    long long id = 0;
    if (auto s = db.insert(r, &id); !s.ok) spdlog::error("could not store the record: {}", s.error);
    if (a.json) all.push_back(to_json(r));
    else std::cout << a.files[i] << "\n" << report::format_summary(r) << "stored as evaluation " << id << "\n\n";
    worst = std::max(worst, exit_code_for(r.verdict));
  }
  if (a.json) std::cout << all.dump(2) << "\n";
  code.value = worst;
}

}  // namespace

void add_service_command(CLI::App& app, GlobalOptions& g, ExitCode& code) {
  auto* cmd = app.add_subcommand("service", "The GPU profiling service: status, submit");
  cmd->require_subcommand(1);
  auto as_json = std::make_shared<bool>(false);
  auto queue_url = std::make_shared<std::string>();
  auto* status = cmd->add_subcommand("status", "Queue depth, lanes, GPU health, busy fraction, recent faults");
  status->add_flag("--json", *as_json, "As JSON");
  status->add_option("--queue", *queue_url,
                     "A Redis queue (redis://HOST:PORT/[DB][?stream=NAME]): its depth and every "
                     "`serve` worker publishing there, on any host");
  status->callback([as_json, queue_url, &g] { run_status(g, *as_json, *queue_url); });
  auto a = std::make_shared<SubmitArgs>();
  auto* submit =
      cmd->add_subcommand("submit", "Queue candidates for a running `ptxbench serve` and wait for their records");
  submit->add_option("files", a->files, "Candidate .cu files")->required()->check(CLI::ExistingFile);
  submit->add_option("-p,--problem", a->problem, "Problem name")->capture_default_str();
  submit->add_flag("--json", a->json, "Print the records as JSON");
  submit->add_flag("--no-wait", a->no_wait, "Queue them and return");
  submit->callback([a, &g, &code] { run_submit(*a, g, code); });
}

}  // namespace ptxbench::cli
