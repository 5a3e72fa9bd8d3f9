// Typed reads of client options: strings from the command line, wrong types, unknown keys.
#include <gtest/gtest.h>

#include "agent/http/options.h"
#include "core/error.h"

namespace ptxbench {
namespace {

const std::vector<std::string> kKnown = {"temperature", "max_tokens", "base_url", "stream", "extra_body"};

TEST(ClientOptions, ReadsNumbersFromStrings) {
  Options o({{"temperature", "0.7"}, {"max_tokens", "2048"}, {"stream", "false"}, {"extra_body", R"({"a": 1})"}},
            "openai", kKnown);
  EXPECT_DOUBLE_EQ(*o.number("temperature"), 0.7);
  EXPECT_EQ(*o.integer("max_tokens"), 2048);
  EXPECT_EQ(*o.flag("stream"), false);
  EXPECT_EQ(*o.object("extra_body"), (json{{"a", 1}}));
  EXPECT_FALSE(o.number("base_url").has_value());
}

TEST(ClientOptions, WrongTypesAndUnknownKeysThrowNamingThem) {
  try {
    Options({{"temprature", 1}}, "openai", kKnown);
    FAIL() << "no throw";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("temprature"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("temperature"), std::string::npos);  // the known ones
  }
  Options o({{"temperature", "hot"}, {"max_tokens", 1.5}, {"extra_body", "[1]"}}, "openai", kKnown);
  EXPECT_THROW(o.number("temperature"), InputError);
  EXPECT_THROW(o.integer("max_tokens"), InputError);
  EXPECT_THROW(o.object("extra_body"), InputError);
}

TEST(ClientOptions, RequestOverridesAndFixedKeys) {
  Options o({{"temperature", 0.1}, {"base_url", "http://a"}}, "openai", kKnown);
  const Options r = o.with({{"temperature", 0.9}, {"base_url", "http://a"}}, {"base_url"});
  EXPECT_DOUBLE_EQ(*r.number("temperature"), 0.9);
  EXPECT_DOUBLE_EQ(*o.number("temperature"), 0.1);
  EXPECT_THROW(o.with({{"base_url", "http://b"}}, {"base_url"}), InputError);
  EXPECT_THROW(o.with({{"nope", 1}}, {}), InputError);
}

}  // namespace
}  // namespace ptxbench
