#include "service/worker_client.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <random>
#include <sstream>

#include "core/error.h"

namespace ptxbench {

std::optional<json> WorkerRun::stage(const std::string& name) const {
  for (const auto& e : events)
    if (e.value("type", "") == "stage" && e.value("name", "") == name) return e;
  return std::nullopt;
}

std::vector<json> WorkerRun::of_type(const std::string& type) const {
  std::vector<json> out;
  for (const auto& e : events)
    if (e.value("type", "") == type) out.push_back(e);
  return out;
}

std::optional<json> WorkerRun::hello() const {
  auto h = of_type("hello");
  if (h.empty()) return std::nullopt;
  return h.front();
}

std::string WorkerRun::last_progress() const {
  for (auto it = events.rbegin(); it != events.rend(); ++it)
    if (it->value("type", "") == "progress") {
      std::string s = it->value("stage", "");
      if (it->contains("shape"))
        for (const auto& [k, v] : (*it)["shape"].items()) s += " " + k + "=" + v.dump();
      return s;
    }
  return {};
}

std::string WorkerRun::output_tail(size_t max_bytes) const {
  std::string all = process.out + (process.err.empty() ? "" : "\n[stderr]\n" + process.err);
  if (all.size() <= max_bytes) return all;
  return "[... " + std::to_string(all.size() - max_bytes) + " bytes dropped]\n" + all.substr(all.size() - max_bytes);
}

WorkerRun run_worker(const std::filesystem::path& worker, const json& job, const std::filesystem::path& job_dir,
                     const std::vector<std::string>& wrapper, std::chrono::seconds timeout,
                     const std::vector<std::string>& extra_args) {
  std::filesystem::create_directories(job_dir);
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  auto job_file = job_dir / ("job-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" +
                             std::to_string(rd()) + ".json");
  {
    int fd = open(job_file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) fail("cannot create job file " + job_file.string());
    std::string text = job.dump();
    bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    close(fd);
    if (!ok) fail("cannot write job file " + job_file.string());
  }
  std::vector<std::string> argv = wrapper;
  argv.push_back(worker.string());
  if (!job.is_null()) {
    argv.push_back("--job");
    argv.push_back(job_file.string());
  }
  for (const auto& a : extra_args) argv.push_back(a);
  argv.push_back("--result-fd");
  argv.push_back(std::to_string(kResultFd));

  ProcessOptions opt;
  opt.timeout = timeout;
  opt.result_fd = kResultFd;
  WorkerRun run;
  run.process = run_process(argv, opt);
  std::filesystem::remove(job_file);  // normally the worker already did

  std::stringstream ss(run.process.result);
  std::string line;
  while (std::getline(ss, line)) {
    if (line.empty()) continue;
    json e = json::parse(line, nullptr, false);
    if (e.is_discarded() || !e.is_object()) { run.malformed = true; continue; }
    if (e.value("type", "") == "fatal") run.fatal = e;
    if (e.value("type", "") == "done") run.done = true;
    run.events.push_back(std::move(e));
  }
  return run;
}

}  // namespace ptxbench
