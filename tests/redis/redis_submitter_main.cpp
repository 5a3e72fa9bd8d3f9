// service_redis_submitter: the submitting host of the Redis fault tests (no GPU). Queues N jobs
// of the fault mix (idempotent ids, so a restarted submitter re-submits harmlessly), then reads
// the results stream and keeps one record per finished job in its own SQLite file (the way a
// run keeps its records), skipping jobs it already recorded. Exits 0 once all N are recorded.
//   service_redis_submitter --queue URL --jobs N --prefix P --db FILE [--ms N]
#include <sqlite3.h>

#include <iostream>
#include <set>

#include "fault_mix.h"
#include "service/queue/redis_job_queue.h"
#include "store/sqlite_statement.h"

using namespace ptxbench;

int main(int argc, char** argv) {
  std::string url, prefix = "job", db_path;
  int jobs = 0, ms = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--queue") url = v;
    else if (a == "--jobs") jobs = std::stoi(v);
    else if (a == "--prefix") prefix = v;
    else if (a == "--db") db_path = v;
    else if (a == "--ms") ms = std::stoi(v);
  }
  RedisJobQueue queue(parse_redis_url(url), {.max_attempts = 5});
  RedisJobQueue results(parse_redis_url(url), {.max_attempts = 5});  // its own connection for blocking reads
  if (!queue.status().ok || !results.status().ok) {
    std::cerr << queue.status().error << results.status().error << "\n";
    return 2;
  }
  sqlite3* db = nullptr;
  if (sqlite3_open(db_path.c_str(), &db) != SQLITE_OK) return 2;
  sqlite3_busy_timeout(db, 10000);
  sqlite3_exec(db,
               "CREATE TABLE IF NOT EXISTS records (job_id TEXT NOT NULL, state TEXT, result TEXT, attempts INTEGER)",
               nullptr, nullptr, nullptr);
  std::set<std::string> recorded;
  {
    sqlite::Statement st(db, "SELECT job_id FROM records");
    while (st.step() == SQLITE_ROW) recorded.insert(st.text(0));
  }
  for (int i = 0; i < jobs; ++i)
    if (auto s = queue.enqueue(prefix + "-" + std::to_string(i), test::payload_of(i, ms), nullptr); !s.ok) {
      std::cerr << s.error << "\n";
      return 3;
    }
  std::string cursor = "0";
  int mine = 0;
  for (const auto& id : recorded)
    if (id.rfind(prefix + "-", 0) == 0) ++mine;
  while (mine < jobs) {
    std::vector<std::string> ids;
    if (auto s = results.read_finished(&cursor, std::chrono::milliseconds(500), &ids); !s.ok) {
      std::cerr << s.error << "\n";
      continue;
    }
    for (const auto& id : ids) {
      if (id.rfind(prefix + "-", 0) != 0 || recorded.count(id)) continue;
      std::optional<JobOutcome> o;
      if (auto s = queue.outcome(id, &o); !s.ok || !o) {
        std::cerr << "outcome of " << id << ": " << s.error << "\n";
        return 4;
      }
      sqlite::Statement ins(db, "INSERT INTO records (job_id, state, result, attempts) VALUES (?, ?, ?, ?)");
      sqlite::Params(ins) << id << std::string(to_string(o->state)) << o->result.dump()
                          << static_cast<long long>(o->attempts);
      if (ins.step() != SQLITE_DONE) return 5;
      recorded.insert(id);
      ++mine;
    }
  }
  sqlite3_close(db);
  return 0;
}
