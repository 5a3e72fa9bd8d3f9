// The backend behind --queue: empty (the default) opens the workspace's SQLite lease table, for
// one host; redis://HOST:PORT/[DB][?stream=NAME] the Redis Streams queue shared by hosts. Throws
// InputError for a malformed URL and for a backend that cannot be opened (Redis unreachable,
// the database unwritable), saying which.
#pragma once
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "service/queue/job_queue.h"

namespace ptxbench {

struct QueueChoice {
  std::string spec{};                 // the --queue value
  std::filesystem::path sqlite_db{};  // the SQLite file when spec is empty
  int max_attempts = 3;
  std::chrono::milliseconds redis_retry_budget{30000};  // reconnecting before "unreachable"
};

std::unique_ptr<JobQueue> open_job_queue(const QueueChoice& choice);
// For messages and status: the SQLite file, or the Redis URL in canonical form.
std::string describe_queue(const QueueChoice& choice);

}  // namespace ptxbench
