// The JobQueue on Redis Streams for workers on many hosts: leases, heartbeats, results.
#include "service/queue/redis_job_queue.h"

#include <hiredis/hiredis.h>

#include "service/queue/redis_scripts.h"

namespace ptxbench {
namespace {

constexpr const char* kGroup = "workers";

QueueStatus failed(const RedisResult& r) { return QueueStatus::failure("job queue: " + r.error); }

long long integer(const redisReply* r) { return r && r->type == REDIS_REPLY_INTEGER ? r->integer : 0; }

std::string text(const redisReply* r) {
  if (!r || (r->type != REDIS_REPLY_STRING && r->type != REDIS_REPLY_STATUS)) return "";
  return std::string(r->str, r->len);
}

bool is_array(const redisReply* r, size_t at_least) {
  return r && r->type == REDIS_REPLY_ARRAY && r->elements >= at_least;
}

QueueStatus malformed(const std::string& what) {
  return QueueStatus::failure("job queue: Redis answered " + what + " in an unexpected shape");
}

}  // namespace

RedisJobQueue::RedisJobQueue(RedisEndpoint endpoint, RedisQueueOptions options)
    : endpoint_(std::move(endpoint)), options_(options), conn_(endpoint_, options_.connection) {
  if (options_.max_attempts < 1) options_.max_attempts = 1;
  for (const char* k : {"jobs", "results", "done", "counts", "leases"}) keys_.push_back(key(k));
  std::lock_guard lock(mu_);
  status_ = ensure_group();
}

std::string RedisJobQueue::key(const char* what) const { return "{" + endpoint_.stream + "}:" + what; }

QueueStatus RedisJobQueue::ensure_group() {
  RedisResult r = conn_.command({"XGROUP", "CREATE", keys_[0], kGroup, "0", "MKSTREAM"});
  if (r.ok() || r.error.find("BUSYGROUP") != std::string::npos) return {};
  return failed(r);
}

QueueStatus RedisJobQueue::script(const RedisScript& s, std::vector<std::string> args, RedisReplyPtr* reply) {
  args.insert(args.begin(), key("job:"));
  RedisResult r = conn_.eval(s, keys_, args);
  // NOGROUP: the stream was removed (a flushed or replaced Redis): the group again, then the script.
  if (r.kind == RedisErrorKind::reply_error && r.error.find("NOGROUP") != std::string::npos) {
    if (auto g = ensure_group(); !g.ok) return g;
    r = conn_.eval(s, keys_, args);
  }
  if (!r.ok()) return failed(r);
  *reply = std::move(r.reply);
  return {};
}

QueueStatus RedisJobQueue::enqueue(const std::string& id, const json& payload, bool* inserted) {
  std::lock_guard lock(mu_);
  RedisReplyPtr r;
  if (auto s = script(redis_scripts::enqueue, {id, payload.dump()}, &r); !s.ok) return s;
  if (inserted) *inserted = integer(r.get()) == 1;
  return {};
}

QueueStatus RedisJobQueue::lease(const std::string& owner, std::chrono::milliseconds ttl,
                                 std::optional<LeasedJob>* out) {
  out->reset();
  std::lock_guard lock(mu_);
  RedisReplyPtr r;
  if (auto s =
          script(redis_scripts::lease, {owner, std::to_string(ttl.count()), std::to_string(options_.max_attempts)}, &r);
      !s.ok)
    return s;
  if (r->type == REDIS_REPLY_NIL) return {};
  if (!is_array(r.get(), 4)) return malformed("a lease");
  LeasedJob job;
  job.id = text(r->element[0]);
  job.payload = json::parse(text(r->element[1]), nullptr, false);
  job.attempts = static_cast<int>(integer(r->element[2]));
  job.owner = owner;
  job.lease_expires_ms = integer(r->element[3]);
  if (job.payload.is_discarded())
    return QueueStatus::failure("job queue: job " + job.id + " has a payload that is not JSON");
  *out = std::move(job);
  return {};
}

QueueStatus RedisJobQueue::heartbeat(const std::string& id, const std::string& owner, std::chrono::milliseconds ttl,
                                     bool* held) {
  std::lock_guard lock(mu_);
  RedisReplyPtr r;
  if (auto s = script(redis_scripts::heartbeat, {id, owner, std::to_string(ttl.count())}, &r); !s.ok) return s;
  if (held) *held = integer(r.get()) == 1;
  return {};
}

QueueStatus RedisJobQueue::complete(const std::string& id, const std::string& owner, const json& result, bool* stored) {
  if (stored) *stored = false;
  std::lock_guard lock(mu_);
  RedisReplyPtr r;
  if (auto s = script(redis_scripts::complete, {id, owner, result.dump()}, &r); !s.ok) return s;
  if (stored) *stored = integer(r.get()) == 1;
  return {};
}

QueueStatus RedisJobQueue::fail(const std::string& id, const std::string& owner, const std::string& reason,
                                bool* requeued) {
  if (requeued) *requeued = false;
  std::lock_guard lock(mu_);
  RedisReplyPtr r;
  if (auto s = script(redis_scripts::fail, {id, owner, reason, std::to_string(options_.max_attempts)}, &r); !s.ok)
    return s;
  if (requeued) *requeued = integer(r.get()) == 1;
  return {};
}

QueueStatus RedisJobQueue::reclaim_expired(int* reclaimed) {
  std::lock_guard lock(mu_);
  RedisReplyPtr r;
  if (auto s = script(redis_scripts::reclaim, {std::to_string(options_.max_attempts)}, &r); !s.ok) return s;
  if (reclaimed) *reclaimed = static_cast<int>(integer(r.get()));
  return {};
}

QueueStatus RedisJobQueue::counts(QueueCounts* out) {
  std::lock_guard lock(mu_);
  RedisReplyPtr r;
  if (auto s = script(redis_scripts::counts, {}, &r); !s.ok) return s;
  if (!is_array(r.get(), 5)) return malformed("the counts");
  *out = {};
  out->queued = integer(r->element[0]);
  out->leased = integer(r->element[1]);
  out->done = integer(r->element[2]);
  out->infra_error = integer(r->element[3]);
  out->expired_leases = integer(r->element[4]);
  return {};
}

QueueStatus RedisJobQueue::outcome(const std::string& id, std::optional<JobOutcome>* out) {
  out->reset();
  std::lock_guard lock(mu_);
  RedisReplyPtr r;
  if (auto s = script(redis_scripts::outcome, {id}, &r); !s.ok) return s;
  if (r->type == REDIS_REPLY_NIL) return {};
  if (!is_array(r.get(), 6)) return malformed("an outcome");
  JobOutcome o;
  o.id = id;
  const std::string state = text(r->element[0]);
  bool known = false;
  for (JobState st : {JobState::queued, JobState::leased, JobState::done, JobState::infra_error})
    if (state == to_string(st)) o.state = st, known = true;
  if (!known) return QueueStatus::failure("job queue: job " + id + " has an unknown state '" + state + "'");
  o.reason = text(r->element[1]);
  o.attempts = static_cast<int>(integer(r->element[2]));
  json failures = json::parse(text(r->element[3]), nullptr, false);
  if (failures.is_array())
    for (const auto& f : failures)
      if (f.is_string()) o.failures.push_back(f.get<std::string>());
  if (integer(r->element[4]) == 1) o.result = json::parse(text(r->element[5]), nullptr, false);
  *out = std::move(o);
  return {};
}

QueueStatus RedisJobQueue::payload(const std::string& id, std::optional<json>* out) {
  out->reset();
  std::lock_guard lock(mu_);
  RedisResult r = conn_.command({"HGET", key("job:") + id, "payload"});
  if (!r.ok()) return failed(r);
  if (r.reply->type == REDIS_REPLY_NIL) return {};
  *out = json::parse(text(r.reply.get()), nullptr, false);
  return {};
}

QueueStatus RedisJobQueue::read_finished(std::string* cursor, std::chrono::milliseconds block,
                                         std::vector<std::string>* ids) {
  ids->clear();
  std::lock_guard lock(mu_);
  RedisResult r = conn_.command({"XREAD", "COUNT", "1000", "BLOCK", std::to_string(block.count()), "STREAMS", keys_[2],
                                 cursor->empty() ? "0" : *cursor});
  if (!r.ok()) return failed(r);
  if (r.reply->type == REDIS_REPLY_NIL) return {};  // nothing within `block`
  if (!is_array(r.reply.get(), 1) || !is_array(r.reply->element[0], 2)) return malformed("XREAD");
  const redisReply* entries = r.reply->element[0]->element[1];
  for (size_t i = 0; i < entries->elements; ++i) {
    const redisReply* e = entries->element[i];
    if (!is_array(e, 2)) return malformed("a results stream entry");
    *cursor = text(e->element[0]);
    const redisReply* fields = e->element[1];
    for (size_t f = 0; f + 1 < fields->elements; f += 2)
      if (text(fields->element[f]) == "job") ids->push_back(text(fields->element[f + 1]));
  }
  return {};
}

QueueStatus RedisJobQueue::finished_cursor(std::string* cursor) {
  std::lock_guard lock(mu_);
  RedisResult r = conn_.command({"XREVRANGE", keys_[2], "+", "-", "COUNT", "1"});
  if (!r.ok()) return failed(r);
  *cursor =
      is_array(r.reply.get(), 1) && is_array(r.reply->element[0], 1) ? text(r.reply->element[0]->element[0]) : "0";
  return {};
}

QueueStatus RedisJobQueue::publish_worker(const std::string& owner, const json& state, std::chrono::milliseconds ttl) {
  std::lock_guard lock(mu_);
  if (RedisResult r = conn_.command({"SET", key("worker:") + owner, state.dump(), "PX", std::to_string(ttl.count())});
      !r.ok())
    return failed(r);
  if (RedisResult r = conn_.command({"SADD", key("workers"), owner}); !r.ok()) return failed(r);
  return {};
}

QueueStatus RedisJobQueue::workers(std::vector<json>* out) {
  out->clear();
  std::lock_guard lock(mu_);
  RedisResult members = conn_.command({"SMEMBERS", key("workers")});
  if (!members.ok()) return failed(members);
  for (size_t i = 0; i < members.reply->elements; ++i) {
    const std::string owner = text(members.reply->element[i]);
    RedisResult got = conn_.command({"GET", key("worker:") + owner});
    if (!got.ok()) return failed(got);
    if (got.reply->type == REDIS_REPLY_NIL) {  // stopped publishing: gone
      if (RedisResult r = conn_.command({"SREM", key("workers"), owner}); !r.ok()) return failed(r);
      continue;
    }
    json j = json::parse(text(got.reply.get()), nullptr, false);
    if (j.is_object()) out->push_back(std::move(j));
  }
  return {};
}

long long RedisJobQueue::reconnects() const {
  std::lock_guard lock(mu_);
  return conn_.reconnects();
}

}  // namespace ptxbench
