// A JobQueue that forwards to another and appends one line per result it stored ("JOB OWNER\n",
// a single O_APPEND write, so lines from several processes never mix) to a log shared by the
// Redis fault tests' workers: a job that two workers both believe they stored shows up twice.
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "service/queue/job_queue.h"

namespace ptxbench::test {

class RecordingQueue final : public JobQueue {
 public:
  RecordingQueue(JobQueue& inner, const std::filesystem::path& log)
      : inner_(inner), fd_(::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644)) {}
  ~RecordingQueue() override { ::close(fd_); }
  RecordingQueue(const RecordingQueue&) = delete;
  RecordingQueue& operator=(const RecordingQueue&) = delete;

  QueueStatus enqueue(const std::string& id, const json& payload, bool* inserted) override {
    return inner_.enqueue(id, payload, inserted);
  }
  QueueStatus lease(const std::string& owner, std::chrono::milliseconds ttl, std::optional<LeasedJob>* out) override {
    return inner_.lease(owner, ttl, out);
  }
  QueueStatus heartbeat(const std::string& id, const std::string& owner, std::chrono::milliseconds ttl,
                        bool* held) override {
    return inner_.heartbeat(id, owner, ttl, held);
  }
  QueueStatus complete(const std::string& id, const std::string& owner, const json& result, bool* stored) override {
    bool s = false;
    QueueStatus st = inner_.complete(id, owner, result, &s);
    if (st.ok && s) {
      const std::string line = id + " " + owner + "\n";
      if (::write(fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
        return QueueStatus::failure("log write");
    }
    if (stored) *stored = s;
    return st;
  }
  QueueStatus fail(const std::string& id, const std::string& owner, const std::string& reason,
                   bool* requeued) override {
    return inner_.fail(id, owner, reason, requeued);
  }
  QueueStatus reclaim_expired(int* reclaimed) override { return inner_.reclaim_expired(reclaimed); }
  QueueStatus counts(QueueCounts* out) override { return inner_.counts(out); }
  QueueStatus outcome(const std::string& id, std::optional<JobOutcome>* out) override {
    return inner_.outcome(id, out);
  }
  QueueStatus payload(const std::string& id, std::optional<json>* out) override { return inner_.payload(id, out); }

 private:
  JobQueue& inner_;
  int fd_;
};

}  // namespace ptxbench::test
