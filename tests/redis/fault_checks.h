// What the Redis fault tests check once a run is over: every job ended (0 lost), one stored
// result per done job in Redis and one record per job at the submitter (0 duplicated), no job
// that two workers both stored, and each job's verdict what its place in the fault mix says.
#pragma once
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <map>
#include <sstream>

#include "fault_mix.h"
#include "service/queue/redis_job_queue.h"

namespace ptxbench::test {

struct RunTally {
  std::map<std::string, JobOutcome> outcomes;
  std::map<std::string, int> stored_by;  // job -> lines in the workers' stored log
  std::map<std::string, std::vector<std::string>> storing_owners;
};

inline std::map<std::string, std::pair<int, std::string>> submitter_records(const std::filesystem::path& db) {
  std::map<std::string, std::pair<int, std::string>> out;  // job -> (rows, last result)
  sqlite3* h = nullptr;
  if (sqlite3_open(db.c_str(), &h) != SQLITE_OK) return out;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "SELECT job_id, result FROM records", -1, &st, nullptr);
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    auto& r = out[reinterpret_cast<const char*>(sqlite3_column_text(st, 0))];
    ++r.first;
    r.second = reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

inline RunTally check_every_job_accounted(RedisJobQueue& q, const std::string& prefix, int jobs,
                                          const std::filesystem::path& submitter_db,
                                          const std::filesystem::path& stored_log) {
  RunTally t;
  std::ifstream log(stored_log);
  for (std::string line; std::getline(log, line);) {
    std::istringstream ss(line);
    std::string id, owner;
    ss >> id >> owner;
    ++t.stored_by[id];
    t.storing_owners[id].push_back(owner);
  }
  const auto records = submitter_records(submitter_db);
  QueueCounts c;
  EXPECT_TRUE(q.counts(&c).ok);
  EXPECT_EQ(c.queued, 0);
  EXPECT_EQ(c.leased, 0);
  EXPECT_EQ(c.done + c.infra_error, jobs) << "jobs lost or invented";
  for (int i = 0; i < jobs; ++i) {
    const std::string id = prefix + "-" + std::to_string(i);
    std::optional<JobOutcome> o;
    EXPECT_TRUE(q.outcome(id, &o).ok);
    if (!o) {
      ADD_FAILURE() << id << " was lost";
      continue;
    }
    EXPECT_TRUE(o->state == JobState::done || o->state == JobState::infra_error) << id << " is " << to_string(o->state);
    const int stored = t.stored_by.count(id) ? t.stored_by[id] : 0;
    EXPECT_LE(stored, 1) << id << " was stored by " << stored << " workers";
    auto r = records.find(id);
    if (r == records.end()) {
      ADD_FAILURE() << id << " has no record at the submitter";
    } else {
      EXPECT_EQ(r->second.first, 1) << id << " has " << r->second.first << " records at the submitter";
      EXPECT_EQ(json::parse(r->second.second, nullptr, false), o->result) << id << ": the submitter's record differs";
    }
    const json result = o->result.is_object() ? o->result : json::object();  // infra_error: no result
    if (o->state == JobState::done) {
      EXPECT_EQ(result.value("job", ""), id) << "a result stored under another job's id";
    }
    EXPECT_FALSE(result.value("overlap", false)) << id << ": a shared stage ran while the GPU was timing";
    // A fault plays on a job's first attempt only: a result of a later attempt (the first was
    // interrupted by a kill or a stall) is a clean run.
    const std::string fault =
        result.value("attempt", 1) > 1 && fault_of(i) != "compile_error" && fault_of(i) != "oom_always" ? ""
                                                                                                        : fault_of(i);
    const std::string verdict = result.value("verdict", "");
    if (fault == "oom_always") {
      EXPECT_EQ(o->state, JobState::infra_error) << id;
      bool oom = false;
      for (const auto& f : o->failures) oom = oom || f.find("out of memory") != std::string::npos;
      EXPECT_TRUE(oom) << id << ": " << o->reason;  // the last failure may be a kill's expired lease
    } else if (o->state != JobState::done) {
      ADD_FAILURE() << id << " (" << fault << ") ended " << to_string(o->state) << ": " << o->reason;
    } else if (fault == "compile_error") {
      EXPECT_EQ(verdict, "compile_error") << id;
    } else if (fault == "wrong") {
      EXPECT_EQ(verdict, "incorrect") << id;
    } else if (fault == "hang") {
      EXPECT_EQ(verdict, "runtime_error") << id;
    } else {
      EXPECT_EQ(verdict, "correct") << id << " (" << (fault.empty() ? "clean" : fault) << ")";
    }
    t.outcomes[id] = *o;
  }
  EXPECT_EQ(records.size(), static_cast<size_t>(jobs));
  return t;
}

}  // namespace ptxbench::test
