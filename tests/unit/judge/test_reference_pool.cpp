// The service's pool of input sets with references (judge/caches/reference_pool.h) and one worker's
// session on it (reference_session.h), driven from the worker's end of the socket as the harness
// and as candidate code would drive it.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "core/error.h"
#include "core/fd_messages.h"
#include "judge/caches/reference_pool.h"
#include "judge/reference_session.h"

namespace ptxbench {
namespace {

void fill_with(void* data, size_t bytes, void* ctx) { std::memset(data, *static_cast<int*>(ctx), bytes); }

UniqueFd sealed_file(size_t bytes, int value) { return sealed_memory_file("test", bytes, fill_with, &value); }

PooledSet set_of(uint64_t seed, size_t bytes, int value = 7) {
  return {seed, std::make_shared<const UniqueFd>(sealed_file(bytes, value)), bytes};
}

TEST(ReferencePool, NoCandidateGetsASetItUsedItsMakerIncluded) {
  ReferencePool pool;
  pool.add(0, "gemm", "{M:128}", set_of(1, 64), "maker");
  EXPECT_TRUE(pool.take(0, "gemm", "{M:128}", "maker", 2).empty());
  auto b = pool.take(0, "gemm", "{M:128}", "b", 2);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].seed, 1u);
  EXPECT_TRUE(pool.take(0, "gemm", "{M:128}", "b", 2).empty()) << "the same candidate again: never the same inputs";
  EXPECT_EQ(pool.take(0, "gemm", "{M:128}", "c", 2).size(), 1u);
  EXPECT_TRUE(pool.take(0, "gemm", "{M:256}", "d", 2).empty()) << "another shape";
  EXPECT_TRUE(pool.take(1, "gemm", "{M:128}", "d", 2).empty()) << "another GPU";
  EXPECT_TRUE(pool.take(0, "attention", "{M:128}", "d", 2).empty()) << "another scope";
  EXPECT_EQ(pool.stats().at("served"), 2);
}

TEST(ReferencePool, ASetIsRetiredAfterItsUses) {
  ReferencePool pool({.max_uses = 3});
  pool.add(0, "s", "x", set_of(1, 8), "maker");  // the maker's check is its first use
  EXPECT_EQ(pool.take(0, "s", "x", "b", 1).size(), 1u);
  EXPECT_EQ(pool.take(0, "s", "x", "c", 1).size(), 1u);
  EXPECT_TRUE(pool.take(0, "s", "x", "d", 1).empty());
  EXPECT_EQ(pool.stats().at("sets"), 0);
  EXPECT_EQ(pool.stats().at("evicted"), 1);
}

TEST(ReferencePool, ASetIsRetiredWhenOld) {
  ReferencePool pool({.ttl = std::chrono::seconds(0)});
  pool.add(0, "s", "x", set_of(1, 8), "maker");
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(pool.take(0, "s", "x", "b", 1).empty());
  EXPECT_EQ(pool.stats().at("bytes"), 0);
}

TEST(ReferencePool, TheMostUsedSetsGoFirstOverTheBudgetAndPerShape) {
  ReferencePool pool({.sets_per_shape = 2, .budget_bytes = 100});
  pool.add(0, "s", "x", set_of(1, 40), "a");
  ASSERT_EQ(pool.take(0, "s", "x", "b", 1).size(), 1u);  // seed 1: 2 uses
  pool.add(0, "s", "y", set_of(2, 40), "a");
  pool.add(0, "s", "y", set_of(3, 40), "a");  // 120 bytes: seed 1 (the most used) goes
  EXPECT_EQ(pool.stats().at("sets"), 2);
  EXPECT_EQ(pool.stats().at("bytes"), 80);
  EXPECT_TRUE(pool.take(0, "s", "x", "c", 1).empty());
  pool.add(0, "s", "y", set_of(4, 10), "a");  // a third set of y: over sets_per_shape
  EXPECT_EQ(pool.stats().at("sets"), 2);
  EXPECT_EQ(pool.take(0, "s", "y", "c", 5).size(), 2u);
}

TEST(ReferencePool, AFaultOnAGpuDropsItsSetsOnly) {
  ReferencePool pool;
  pool.add(0, "s", "x", set_of(1, 8), "a");
  pool.add(1, "s", "x", set_of(2, 8), "a");
  pool.invalidate(0);
  EXPECT_TRUE(pool.take(0, "s", "x", "b", 1).empty());
  EXPECT_EQ(pool.take(1, "s", "x", "b", 1).size(), 1u);
}

// A shape is pooled only while handing a set over is faster than computing its reference.
TEST(ReferencePool, AShapeWhoseHandOverIsNotFasterThanItsReferenceIsNotPooled) {
  ReferencePool pool;
  pool.add(0, "gemm", "small", set_of(1, 8), "a", /*reference_seconds=*/0.005);
  pool.add(0, "bwd", "big", set_of(2, 8), "a", /*reference_seconds=*/0.2);
  EXPECT_EQ(pool.why_not_pooled(0, "gemm", "small"), "") << "no hand-over measured yet";
  pool.record_handover(0, "gemm", "small", 0.02);
  pool.record_handover(0, "bwd", "big", 0.1);
  const std::string why = pool.why_not_pooled(0, "gemm", "small");
  EXPECT_NE(why.find("20.0 ms"), std::string::npos) << why;
  EXPECT_NE(why.find("5.0 ms"), std::string::npos) << why;
  EXPECT_TRUE(pool.take(0, "gemm", "small", "b", 1).empty()) << "its sets are dropped";
  EXPECT_EQ(pool.why_not_pooled(0, "bwd", "big"), "");
  EXPECT_EQ(pool.take(0, "bwd", "big", "b", 1).size(), 1u);
  EXPECT_EQ(pool.stats().at("shapes_not_pooled"), 1);
  pool.invalidate(0);  // a fault forgets the measurements with the sets
  EXPECT_EQ(pool.why_not_pooled(0, "gemm", "small"), "");
}

// The worker's side of a session, as bare messages.
struct WorkerEnd {
  explicit WorkerEnd(ReferenceSession& s) : fd(::dup(s.child_end())) { s.close_child_end(); }
  json ask(const json& m, int send_fd = -1) {
    send_message(fd.get(), m, send_fd);
    auto r = receive_message(fd.get());
    if (!r) return {{"closed", true}};
    last_fd = std::move(r->fd);
    return r->message;
  }
  UniqueFd fd, last_fd;
};

std::string first_byte(int fd) {
  unsigned char c = 0;
  return ::pread(fd, &c, 1, 0) == 1 ? std::to_string(int(c)) : "unreadable";
}

TEST(ReferenceSession, TheHarnessPutsSealsAndGetsEachSetOnce) {
  std::vector<std::pair<std::string, uint64_t>> pooled;
  ReferenceSession session({{"S", {}, 1}}, [&](const std::string& shape, const PooledSet& set, double) {
    pooled.push_back({shape, set.seed});
  });
  WorkerEnd w(session);
  auto file = sealed_file(32, 9);
  EXPECT_TRUE(w.ask({{"op", "put"}, {"shape", "S"}, {"seed", 77u}, {"bytes", 32u}}, file.get()).value("ok", false));
  EXPECT_TRUE(w.ask({{"op", "seal"}}).value("ok", false));
  json got = w.ask({{"op", "get"}, {"shape", "S"}, {"seed", 77u}});
  ASSERT_TRUE(got.value("ok", false)) << got.dump();
  EXPECT_EQ(got.value("bytes", 0), 32);
  ASSERT_TRUE(w.last_fd);
  EXPECT_EQ(first_byte(w.last_fd.get()), "9");
  session.finish();
  EXPECT_TRUE(session.violations().empty());
  ASSERT_EQ(session.made().size(), 1u);
  EXPECT_EQ(session.made()[0].second.seed, 77u);
  ASSERT_EQ(pooled.size(), 1u) << "a set made before the seal goes to the pool";
  EXPECT_EQ(pooled[0].second, 77u);
}

TEST(ReferenceSession, PooledSetsAreHandedOutAfterTheSeal) {
  ReferenceSession session({{"S", {set_of(5, 16, 3)}, 0}}, nullptr);
  WorkerEnd w(session);
  EXPECT_FALSE(w.ask({{"op", "get"}, {"shape", "S"}, {"seed", 5u}}).value("ok", true)) << "before the candidate loaded";
  EXPECT_TRUE(w.ask({{"op", "seal"}}).value("ok", false));
  session.finish();
  ASSERT_EQ(session.violations().size(), 1u);
  EXPECT_NE(session.violations()[0].find("before the candidate loaded"), std::string::npos);
}

// The attack: candidate code finds the socket and asks for its call's reference first (to copy
// it into its output); the harness's own request for that set is then refused, and the session
// names it. Asking for a later set (to pass its next call) ends the same way.
TEST(ReferenceSession, AReferenceTakenBeforeTheHarnessAsksIsAViolation) {
  ReferenceSession session({{"S", {set_of(5, 16, 3), set_of(6, 16, 4)}, 0}}, nullptr);
  WorkerEnd w(session);
  ASSERT_TRUE(w.ask({{"op", "seal"}}).value("ok", false));
  ASSERT_TRUE(w.ask({{"op", "get"}, {"shape", "S"}, {"seed", 6u}}).value("ok", false));  // the candidate
  EXPECT_EQ(first_byte(w.last_fd.get()), "4");
  EXPECT_TRUE(w.ask({{"op", "get"}, {"shape", "S"}, {"seed", 5u}}).value("ok", false));  // the harness, call 1
  const json refused = w.ask({{"op", "get"}, {"shape", "S"}, {"seed", 6u}});             // the harness, call 2
  EXPECT_FALSE(refused.value("ok", true));
  EXPECT_FALSE(w.last_fd);
  session.finish();
  ASSERT_EQ(session.violations().size(), 1u);
  EXPECT_NE(session.violations()[0].find("asked for twice"), std::string::npos);
}

// The pool-poisoning attack: candidate code puts a reference of its own (say, its own output) to
// be checked against by later candidates; after the seal no put is taken.
TEST(ReferenceSession, APutAfterTheSealIsRefusedAndNeverReachesThePool) {
  ReferenceSession session({{"S", {}, 2}}, nullptr);
  WorkerEnd w(session);
  ASSERT_TRUE(w.ask({{"op", "seal"}}).value("ok", false));
  auto file = sealed_file(16, 1);
  EXPECT_FALSE(w.ask({{"op", "put"}, {"shape", "S"}, {"seed", 1u}, {"bytes", 16u}}, file.get()).value("ok", true));
  EXPECT_FALSE(w.ask({{"op", "seal"}}).value("ok", true));
  session.finish();
  EXPECT_TRUE(session.made().empty());
  EXPECT_EQ(session.violations().size(), 2u);
}

TEST(ReferenceSession, WhatTheHarnessNeverSendsIsAViolation) {
  ReferenceSession session({{"S", {set_of(5, 16)}, 0}}, nullptr);
  WorkerEnd w(session);
  ASSERT_TRUE(w.ask({{"op", "seal"}}).value("ok", false));
  EXPECT_FALSE(w.ask({{"op", "get"}, {"shape", "S"}, {"seed", 99u}}).value("ok", true)) << "no set of this job";
  EXPECT_FALSE(w.ask({{"op", "get"}, {"shape", "S"}}).value("ok", true)) << "no seed";
  EXPECT_FALSE(w.ask({{"op", "dump"}}).value("ok", true)) << "unknown";
  ::send(w.fd.get(), "not json", 8, 0);
  auto r = receive_message(w.fd.get());
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->message.value("ok", true)) << "malformed";
  session.finish();
  EXPECT_EQ(session.violations().size(), 4u);
  bool ended = false;
  try {
    ended = w.ask({{"op", "get"}, {"shape", "S"}, {"seed", 5u}}).contains("closed");
  } catch (const Error&) {
    ended = true;  // the send itself failed
  }
  EXPECT_TRUE(ended) << "the session has ended: a worker's later request fails at once";
}

// A harness fault, not a candidate's: refused, but no violation.
TEST(ReferenceSession, AnUnsealedOrMisSizedFileIsRefusedBeforeTheSeal) {
  ReferenceSession session({{"S", {}, 3}}, nullptr);
  WorkerEnd w(session);
  UniqueFd open_file(::memfd_create("unsealed", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  ASSERT_EQ(::ftruncate(open_file.get(), 16), 0);
  json a = w.ask({{"op", "put"}, {"shape", "S"}, {"seed", 1u}, {"bytes", 16u}}, open_file.get());
  EXPECT_FALSE(a.value("ok", true));
  EXPECT_NE(a.value("why", "").find("can still be written"), std::string::npos) << a.dump();
  auto file = sealed_file(16, 1);
  EXPECT_FALSE(w.ask({{"op", "put"}, {"shape", "S"}, {"seed", 2u}, {"bytes", 32u}}, file.get()).value("ok", true));
  EXPECT_FALSE(w.ask({{"op", "put"}, {"shape", "T"}, {"seed", 3u}, {"bytes", 16u}}, file.get()).value("ok", true));
  session.finish();
  EXPECT_TRUE(session.violations().empty());
  EXPECT_TRUE(session.made().empty());
}

TEST(FdMessages, ASealedFileCannotBeWrittenByItsReceiver) {
  auto file = sealed_file(8, 2);
  EXPECT_EQ(why_not_sealed(file.get(), 8), "");
  const char c = 5;
  EXPECT_LT(::pwrite(file.get(), &c, 1, 0), 0);
  EXPECT_EQ(first_byte(file.get()), "2");
}

}  // namespace
}  // namespace ptxbench
