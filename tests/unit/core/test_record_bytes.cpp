// Issue 12: bytes, not text. A record holding a candidate's non-UTF-8 bytes (in a log, a
// diagnostic, its output) serializes (it used to throw "invalid UTF-8 byte" and lose the record),
// stays readable, and reads back with the exact bytes.
#include <gtest/gtest.h>

#include "core/bytes.h"
#include "core/error.h"
#include "core/record.h"

using namespace ptxbench;

namespace {

EvaluationRecord record_with(const std::string& bytes) {
  EvaluationRecord r;
  r.problem = "gemm";
  r.arch = "sm_90a";
  r.candidate_path = "c" + bytes + ".cu";
  r.reason = "build: " + bytes;
  r.add_stage(
      {"build", StageStatus::failed, 1.0, bytes, {{"log", "line 1: " + bytes + "\n"}, {"verdict", "compile_error"}}});
  return r;
}

}  // namespace

TEST(RecordBytes, NonUtf8StringsSerializeReadablyAndReadBackExactly) {
  const std::string bytes = std::string("caf\xc3\xa9 \xff\xfe\x80 end");
  const EvaluationRecord r = record_with(bytes);
  json j = to_json(r);
  std::string text;
  ASSERT_NO_THROW(text = j.dump());  // strict dump: every string is valid UTF-8 now
  EXPECT_TRUE(is_valid_utf8(text));
  EXPECT_NE(text.find("caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd end"), std::string::npos) << text;
  ASSERT_TRUE(j.contains("non_utf8"));
  EXPECT_EQ(j["non_utf8"].size(), 4u) << j["non_utf8"].dump();  // path, reason, message, log
  const EvaluationRecord back = record_from_json(json::parse(text));
  EXPECT_EQ(back.reason, r.reason);
  EXPECT_EQ(back.candidate_path, r.candidate_path);
  ASSERT_EQ(back.stages.size(), 1u);
  EXPECT_EQ(back.stages[0].message, bytes);
  EXPECT_EQ(back.stages[0].detail["log"].get<std::string>(), "line 1: " + bytes + "\n");
}

TEST(RecordBytes, EveryRecordHasTheSameShape) {
  const json clean = to_json(record_with("plain"));
  const json dirty = to_json(record_with("\xff"));
  ASSERT_TRUE(clean.contains("non_utf8"));
  EXPECT_TRUE(clean["non_utf8"].empty());
  std::vector<std::string> a, b;
  for (const auto& [k, v] : clean.items()) a.push_back(k);
  for (const auto& [k, v] : dirty.items()) b.push_back(k);
  EXPECT_EQ(a, b);
}

TEST(RecordBytes, Utf8AndBase64Primitives) {
  EXPECT_TRUE(is_valid_utf8("plain \xe2\x82\xac"));
  EXPECT_FALSE(is_valid_utf8("\xc0\x80"));          // overlong
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));      // a surrogate
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  for (const std::string& s :
       {std::string(), std::string("a"), std::string("ab"), std::string("abc"), std::string("\x00\xff\x10", 3)})
    EXPECT_EQ(base64_decode(base64_encode(s)), s);
  EXPECT_EQ(base64_encode("hello"), "aGVsbG8=");
  EXPECT_THROW(base64_decode("a"), InputError);
  EXPECT_THROW(base64_decode("a=bc"), InputError);
}

TEST(RecordBytes, ABadNonUtf8EntryIsAMalformedRecord) {
  json j = to_json(record_with("x"));
  j["non_utf8"] = {{"/reason", "!!!!"}};
  EXPECT_THROW(record_from_json(j), InputError);
  j["non_utf8"] = {{"/nowhere/at/all", "eA=="}};
  EXPECT_THROW(record_from_json(j), InputError);
}
