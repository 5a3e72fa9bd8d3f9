// The serving process's end of an eval worker's reference pool socket: references put and handed out.
#include "judge/reference_session.h"

#include <sys/socket.h>

#include "core/error.h"

namespace ptxbench {
namespace {

constexpr size_t kMaxReferenceBytes = size_t(16) << 30;
constexpr int kMaxViolations = 16;  // then the listener stops reading (the worker's gets then fail)

std::string set_name(const std::string& shape, uint64_t seed) { return shape + " seed " + std::to_string(seed); }

}  // namespace

ReferenceSession::ReferenceSession(std::vector<ReferencePlan> plan, MadeFn made) : on_made_(std::move(made)) {
  for (auto& p : plan) {
    fresh_allowed_[p.shape] += p.fresh;
    for (auto& s : p.pooled) sets_[{p.shape, s.seed}] = {std::move(s), false};
  }
  auto [parent, child] = seqpacket_pair();
  parent_ = std::move(parent), child_ = std::move(child);
  listener_ = std::thread([this] { listen(); });
}

ReferenceSession::~ReferenceSession() { finish(); }

void ReferenceSession::finish() {
  {
    std::lock_guard lock(mu_);
    if (finished_) return;
    finished_ = true;
  }
  ::shutdown(parent_.get(), SHUT_RDWR);  // wakes the listener's recvmsg
  if (listener_.joinable()) listener_.join();
}

json ReferenceSession::violation(const std::string& what) {
  violations_.push_back(what);
  ++refused_;
  return {{"ok", false}, {"why", what}};
}

void ReferenceSession::listen() {
  for (;;) {
    std::optional<ReceivedMessage> m;
    json reply;
    int reply_fd = -1;
    try {
      m = receive_message(parent_.get());
      if (!m) return;  // the worker ended, or finish()
      std::lock_guard lock(mu_);
      reply = handle(m->message, std::move(m->fd), reply_fd);
    } catch (const std::exception& e) {
      std::lock_guard lock(mu_);
      if (finished_) return;
      reply = violation(std::string("a malformed message on the reference pool socket: ") + e.what());
    }
    try {
      send_message(parent_.get(), reply, reply_fd);
    } catch (const std::exception&) {
      return;  // the worker is gone
    }
    std::lock_guard lock(mu_);
    if (int(violations_.size()) >= kMaxViolations) {
      ::shutdown(parent_.get(), SHUT_RDWR);  // the worker's next request ends at once
      return;
    }
  }
}

json ReferenceSession::handle(const json& m, UniqueFd fd, int& reply_fd) {
  const std::string op = m.value("op", "");
  const auto shape_it = m.find("shape");
  const auto seed_it = m.find("seed");
  const bool named =
      shape_it != m.end() && shape_it->is_string() && seed_it != m.end() && seed_it->is_number_unsigned();
  if (op == "seal") {
    if (sealed_) return violation("a second seal, after the candidate loaded");
    sealed_ = true;
    return {{"ok", true}};
  }
  if (op == "put") {
    if (sealed_) return violation("a reference put after the candidate loaded");
    if (!named || !m.contains("bytes") || !m.at("bytes").is_number_unsigned())
      return {{"ok", false}, {"why", "a put needs shape, seed and bytes"}};
    const std::string shape = *shape_it;
    const uint64_t seed = *seed_it;
    const size_t bytes = m.at("bytes");
    auto allowed = fresh_allowed_.find(shape);
    if (allowed == fresh_allowed_.end() || allowed->second <= 0)
      return {{"ok", false}, {"why", "no fresh set is left for " + shape}};
    if (!fd) return {{"ok", false}, {"why", "a put without its memory file"}};
    if (bytes > kMaxReferenceBytes) return {{"ok", false}, {"why", "a reference over 16 GiB"}};
    if (const std::string why = why_not_sealed(fd.get(), bytes); !why.empty()) return {{"ok", false}, {"why", why}};
    if (sets_.count({shape, seed})) return {{"ok", false}, {"why", "a set of this job already has that seed"}};
    --allowed->second;
    PooledSet made{seed, std::make_shared<const UniqueFd>(std::move(fd)), bytes};
    made_.push_back({shape, made});
    if (on_made_) on_made_(shape, made, m.value("reference_seconds", -1.0));
    sets_[{shape, seed}] = {std::move(made), false};
    return {{"ok", true}};
  }
  if (op == "get") {
    if (!named) return violation("a get that names no shape and seed");
    const std::string shape = *shape_it;
    const uint64_t seed = *seed_it;
    if (!sealed_) return violation("a reference asked for before the candidate loaded (" + set_name(shape, seed) + ")");
    auto it = sets_.find({shape, seed});
    if (it == sets_.end())
      return violation("a reference asked for that is no set of this job (" + set_name(shape, seed) + ")");
    if (it->second.handed_out)
      return violation("the reference of " + set_name(shape, seed) +
                       " was asked for twice: something in the worker besides the harness took it");
    it->second.handed_out = true;
    ++handed_out_;
    reply_fd = it->second.set.file->get();
    return {{"ok", true}, {"bytes", it->second.set.bytes}};
  }
  return violation("an unknown request on the reference pool socket: '" + op + "'");
}

std::vector<std::string> ReferenceSession::violations() const {
  std::lock_guard lock(mu_);
  return violations_;
}

std::vector<std::pair<std::string, PooledSet>> ReferenceSession::made() const {
  std::lock_guard lock(mu_);
  return made_;
}

json ReferenceSession::summary() const {
  std::lock_guard lock(mu_);
  size_t pooled = sets_.size() - made_.size();
  return {{"pooled", pooled},
          {"made", made_.size()},
          {"handed_out", handed_out_},
          {"refused", refused_},
          {"violations", violations_}};
}

}  // namespace ptxbench
