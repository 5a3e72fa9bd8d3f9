// Opens the job queue --queue names: the workspace's SQLite lease table or a Redis Streams queue.
#include "service/queue/queue_factory.h"

#include "core/error.h"
#include "service/queue/redis_job_queue.h"
#include "service/queue/sqlite_job_queue.h"

namespace ptxbench {

std::unique_ptr<JobQueue> open_job_queue(const QueueChoice& choice) {
  if (choice.spec.empty() || choice.spec == "sqlite") {
    auto q =
        std::make_unique<SqliteJobQueue>(choice.sqlite_db, SqliteQueueOptions{.max_attempts = choice.max_attempts});
    if (!q->status().ok)
      throw InputError("the service's job queue (" + choice.sqlite_db.string() + "): " + q->status().error);
    return q;
  }
  if (!is_redis_url(choice.spec))
    throw InputError("--queue '" + choice.spec +
                     "': expected redis://HOST:PORT/[DB][?stream=NAME] (or nothing for the "
                     "workspace's SQLite queue)");
  RedisQueueOptions o{.max_attempts = choice.max_attempts};
  o.connection.retry_budget = choice.redis_retry_budget;
  auto q = std::make_unique<RedisJobQueue>(parse_redis_url(choice.spec), o);
  if (!q->status().ok) throw InputError("the service's job queue: " + q->status().error);
  return q;
}

std::string describe_queue(const QueueChoice& choice) {
  if (choice.spec.empty() || choice.spec == "sqlite") return "sqlite " + choice.sqlite_db.string();
  return is_redis_url(choice.spec) ? parse_redis_url(choice.spec).url() : choice.spec;
}

}  // namespace ptxbench
