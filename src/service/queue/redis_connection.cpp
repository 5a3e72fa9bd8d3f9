// One hiredis connection that survives a dropped connection, retrying a command with backoff.
#include "service/queue/redis_connection.h"

#include <hiredis/hiredis.h>

#include <cstdio>
#include <thread>

namespace ptxbench {
namespace {

timeval to_timeval(std::chrono::milliseconds ms) {
  return {static_cast<time_t>(ms.count() / 1000), static_cast<suseconds_t>((ms.count() % 1000) * 1000)};
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Reply errors that go away on their own: Redis loading its dataset, a script running too long.
bool transient_reply_error(const std::string& e) {
  return starts_with(e, "LOADING") || starts_with(e, "BUSY ") || starts_with(e, "TRYAGAIN") ||
         starts_with(e, "MASTERDOWN");
}

}  // namespace

void RedisReplyDeleter::operator()(redisReply* r) const { freeReplyObject(r); }

RedisConnection::RedisConnection(RedisEndpoint endpoint, RedisConnectOptions options)
    : endpoint_(std::move(endpoint)), options_(options) {}

RedisConnection::~RedisConnection() { drop(); }

void RedisConnection::drop() {
  if (ctx_) redisFree(ctx_);
  ctx_ = nullptr;
  script_sha_.clear();  // a restarted server has an empty script cache
}

bool RedisConnection::connect(std::string* error) {
  drop();
  ctx_ = redisConnectWithTimeout(endpoint_.host.c_str(), endpoint_.port, to_timeval(options_.connect_timeout));
  if (!ctx_ || ctx_->err) {
    *error = ctx_ ? ctx_->errstr : "cannot allocate a hiredis context";
    drop();
    return false;
  }
  redisSetTimeout(ctx_, to_timeval(options_.command_timeout));
  redisEnableKeepAlive(ctx_);
  if (endpoint_.db != 0) {
    RedisReplyPtr r(static_cast<redisReply*>(redisCommand(ctx_, "SELECT %d", endpoint_.db)));
    if (!r || r->type == REDIS_REPLY_ERROR) {
      *error = r ? "SELECT " + std::to_string(endpoint_.db) + ": " + r->str : ctx_->errstr;
      drop();
      return false;
    }
  }
  return true;
}

RedisReplyPtr RedisConnection::attempt(const std::vector<std::string>& args, std::string* error, bool* transient) {
  *transient = true;
  if (!ctx_ && !connect(error)) return nullptr;
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const auto& a : args) argv.push_back(a.data()), lens.push_back(a.size());
  RedisReplyPtr r(
      static_cast<redisReply*>(redisCommandArgv(ctx_, static_cast<int>(argv.size()), argv.data(), lens.data())));
  if (!r) {
    *error = ctx_->errstr[0] ? ctx_->errstr : "the connection dropped";
    drop();  // hiredis contexts are unusable after an I/O error
    return nullptr;
  }
  if (r->type == REDIS_REPLY_ERROR) {
    *error = std::string(r->str, r->len);
    *transient = transient_reply_error(*error);
    if (*transient) return nullptr;
  }
  return r;
}

RedisResult RedisConnection::command(const std::vector<std::string>& args) {
  const auto start = std::chrono::steady_clock::now();
  auto backoff = options_.backoff_initial;
  std::string error;
  for (int attempts = 1;; ++attempts) {
    bool transient = false;
    const bool had_connection = ctx_ != nullptr;
    RedisReplyPtr r = attempt(args, &error, &transient);
    if (r && r->type != REDIS_REPLY_ERROR) return {RedisErrorKind::none, "", std::move(r)};
    if (!transient)
      return {RedisErrorKind::reply_error, args.front() + " on " + endpoint_.url() + ": " + error, std::move(r)};
    if (!had_connection || !ctx_) ++reconnects_;
    const auto spent = std::chrono::steady_clock::now() - start;
    if (spent + backoff > options_.retry_budget) {
      char tried[96];
      std::snprintf(tried, sizeof tried, " (%d attempt(s) over %.1f s)", attempts,
                    std::chrono::duration<double>(spent).count());
      return {RedisErrorKind::unreachable, "Redis at " + endpoint_.url() + " is unreachable: " + error + tried,
              nullptr};
    }
    std::this_thread::sleep_for(backoff);
    backoff = std::min(options_.backoff_max, backoff * 2);
  }
}

RedisResult RedisConnection::eval(const RedisScript& script, const std::vector<std::string>& keys,
                                  const std::vector<std::string>& args) {
  for (int round = 0; round < 3; ++round) {
    auto it = script_sha_.find(script.name);
    if (it == script_sha_.end()) {
      RedisResult loaded = command({"SCRIPT", "LOAD", script.source});
      if (!loaded.ok()) return loaded;
      if (loaded.reply->type != REDIS_REPLY_STRING)
        return {RedisErrorKind::reply_error, "SCRIPT LOAD of " + script.name + " answered no SHA1", nullptr};
      it = script_sha_.emplace(script.name, std::string(loaded.reply->str, loaded.reply->len)).first;
    }
    std::vector<std::string> argv = {"EVALSHA", it->second, std::to_string(keys.size())};
    argv.insert(argv.end(), keys.begin(), keys.end());
    argv.insert(argv.end(), args.begin(), args.end());
    RedisResult r = command(argv);
    // NOSCRIPT: Redis restarted (or SCRIPT FLUSH) since the script was loaded on this connection.
    if (r.kind == RedisErrorKind::reply_error && r.error.find("NOSCRIPT") != std::string::npos) {
      script_sha_.erase(script.name);
      continue;
    }
    if (!r.ok()) r.error = script.name + ": " + r.error;
    return r;
  }
  return {RedisErrorKind::reply_error, script.name + ": Redis keeps answering NOSCRIPT", nullptr};
}

}  // namespace ptxbench
