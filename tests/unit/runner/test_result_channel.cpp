// Issue 12: the worker's result channel is authenticated. Lines carry a sequence number and an
// HMAC-SHA256 with the job's key (the worker's own implementation, held here to RFC 4231 and to
// OpenSSL); the parent accepts exactly the stages it asked for, once each, in order, and nothing
// that does not verify.
#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "judge/result_lines.h"
#include "judge/worker_client.h"
#include "runner/channel_mac.h"
#include "runner/result_channel.h"

using namespace ptxbench;

namespace {

const std::string kKey = std::string(64, 'a');  // 32 bytes of 0xaa

// What a ResultChannel writes for `events`, as the parent reads it.
std::string channel_bytes(const std::vector<json>& events, const std::string& key = kKey) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  std::string bytes;
  std::thread reader([&] {
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) bytes.append(buf, static_cast<size_t>(n));
  });
  {
    ResultChannel ch(fds[1]);  // moves the pipe to a random high descriptor and closes fds[1]
    EXPECT_GE(ch.descriptor(), 100);
    ch.set_key(key);
    for (const auto& e : events) ch.emit(e);
    close(ch.descriptor());  // the worker never closes it: it ends with it
  }
  reader.join();
  close(fds[0]);
  return bytes;
}

const std::set<std::string> kEvalStages{"integrity", "stream_discipline", "correctness", "timing"};

std::vector<json> honest() {
  return {{{"type", "hello"}, {"gpu", "H200"}},
          {{"type", "stage"}, {"name", "stream_discipline"}, {"status", "ok"}},
          {{"type", "check"}, {"passed", true}},
          {{"type", "stage"}, {"name", "correctness"}, {"status", "ok"}},
          {{"type", "done"}}};
}

}  // namespace

TEST(ChannelMac, Rfc4231AndOpenSslAgree) {
  // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
  char hex[64];
  const std::string key = "Jefe", data = "what do ya want for nothing?";
  hmac_sha256_hex(reinterpret_cast<const uint8_t*>(key.data()), key.size(), data.data(), 10, data.data() + 10,
                  data.size() - 10, hex);
  EXPECT_EQ(std::string(hex, 64), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(hmac_sha256_hex("4a656665", data), std::string(hex, 64));
  // A key longer than the block (RFC 4231 case 6) and a long message, against OpenSSL.
  const std::string long_key(131, '\xaa'), msg(1000, 'x');
  hmac_sha256_hex(reinterpret_cast<const uint8_t*>(long_key.data()), long_key.size(), msg.data(), msg.size(), "", 0,
                  hex);
  std::string key_hex;
  for (int i = 0; i < 131; ++i) key_hex += "aa";
  EXPECT_EQ(std::string(hex, 64), hmac_sha256_hex(key_hex, msg));
}

TEST(ResultLines, TheWorkersOwnLinesVerify) {
  const auto r = read_result_lines(channel_bytes(honest()), kKey, kEvalStages, false);
  EXPECT_FALSE(r.tampered) << *r.tampered;
  ASSERT_EQ(r.events.size(), 5u);
  EXPECT_EQ(r.events.back()["type"], "done");
}

TEST(ResultLines, AnUnsignedLineIsTampering) {
  std::string bytes = channel_bytes({honest()[0]});
  bytes += R"({"type":"stage","name":"correctness","status":"ok"})"
           "\n";
  const auto r = read_result_lines(bytes, kKey, kEvalStages, false);
  ASSERT_TRUE(r.tampered);
  EXPECT_NE(r.tampered->find("line 2"), std::string::npos) << *r.tampered;
  EXPECT_EQ(r.events.size(), 1u);  // nothing from the forged line on
}

TEST(ResultLines, ALineSignedWithAnotherKeyIsTampering) {
  const auto r = read_result_lines(channel_bytes(honest(), std::string(64, 'b')), kKey, kEvalStages, false);
  ASSERT_TRUE(r.tampered);
  EXPECT_NE(r.tampered->find("fails authentication"), std::string::npos) << *r.tampered;
}

TEST(ResultLines, ARepeatedLineIsTampering) {
  const std::string bytes = channel_bytes(honest());
  const size_t second = bytes.find('\n') + 1, third = bytes.find('\n', second) + 1;
  const std::string repeated = bytes.substr(0, third) + bytes.substr(second, third - second) + bytes.substr(third);
  const auto r = read_result_lines(repeated, kKey, kEvalStages, false);
  ASSERT_TRUE(r.tampered);
  EXPECT_NE(r.tampered->find("sequence number 1 where 2"), std::string::npos) << *r.tampered;
}

TEST(ResultLines, ReorderedLinesAreTampering) {
  const std::string bytes = channel_bytes(honest());
  const size_t second = bytes.find('\n') + 1, third = bytes.find('\n', second) + 1;
  const std::string swapped = bytes.substr(second, third - second) + bytes.substr(0, second) + bytes.substr(third);
  EXPECT_TRUE(read_result_lines(swapped, kKey, kEvalStages, false).tampered);
}

TEST(ResultLines, AStageNotAskedForOrReportedTwiceIsTampering) {
  auto events = honest();
  events.insert(events.end() - 1, json{{"type", "stage"}, {"name", "target_run"}, {"status", "ok"}});
  auto r = read_result_lines(channel_bytes(events), kKey, kEvalStages, false);
  ASSERT_TRUE(r.tampered);
  EXPECT_NE(r.tampered->find("did not ask for"), std::string::npos) << *r.tampered;
  events = honest();
  events.insert(events.end() - 1, events[3]);
  r = read_result_lines(channel_bytes(events), kKey, kEvalStages, false);
  ASSERT_TRUE(r.tampered);
  EXPECT_NE(r.tampered->find("a second time"), std::string::npos) << *r.tampered;
}

TEST(ResultLines, AnythingAfterDoneOrOfAnUnknownTypeIsTampering) {
  auto events = honest();
  events.push_back({{"type", "progress"}});
  EXPECT_TRUE(read_result_lines(channel_bytes(events), kKey, kEvalStages, false).tampered);
  events = honest();
  events.insert(events.begin() + 1, json{{"type", "verdict"}, {"verdict", "correct"}});
  EXPECT_TRUE(read_result_lines(channel_bytes(events), kKey, kEvalStages, false).tampered);
}

TEST(ResultLines, AnUnfinishedLastLineIsTamperingUnlessTheWorkerWasKilled) {
  std::string bytes = channel_bytes(honest());
  bytes.pop_back();
  EXPECT_TRUE(read_result_lines(bytes, kKey, kEvalStages, false).tampered);
  const auto killed = read_result_lines(bytes, kKey, kEvalStages, true);
  EXPECT_FALSE(killed.tampered);
  EXPECT_TRUE(killed.unfinished_line);
  EXPECT_EQ(killed.events.size(), 4u);
}

TEST(ResultLines, ExpectedStagesFollowTheJob) {
  EXPECT_EQ(expected_stages(nullptr), std::vector<std::string>{});
  EXPECT_EQ(expected_stages({{"mode", "single_call"}}), std::vector<std::string>{"single_call"});
  const json eval = {{"mode", "eval"}, {"accounting", false}, {"count", json::array()}};
  EXPECT_EQ(expected_stages(eval), (std::vector<std::string>{"correctness", "stream_discipline", "target_run"}));
}
