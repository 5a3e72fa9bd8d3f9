// The libcurl layer on its own: headers, GET, a body cap, and typed transport failures.
#include <gtest/gtest.h>

#include "agent/http/http_client.h"
#include "support/scripted_server.h"

namespace ptxbench::test {
namespace {

using http::Transport;

TEST(HttpClient, PostsTheBodyAndReadsStatusHeadersAndBody) {
  ScriptedServer server({Step::raw(201, "created", "text/plain").header("X-Request-Id", "abc")});
  http::Request req;
  req.url = server.url() + "/p";
  req.headers = {{"Content-Type", "application/json"}, {"X-Custom", "1"}};
  req.body = R"({"a": 1})";
  const auto r = http::perform(req);
  EXPECT_EQ(r.transport, Transport::ok) << r.error;
  EXPECT_EQ(r.status, 201);
  EXPECT_EQ(r.body, "created");
  EXPECT_EQ(r.header("x-request-id"), "abc");
  EXPECT_EQ(r.header("X-REQUEST-ID"), "abc");
  EXPECT_FALSE(r.header("missing").has_value());
  ASSERT_EQ(server.requests(), 1u);
  EXPECT_EQ(server.received()[0].body, req.body);
  EXPECT_EQ(server.received()[0].header("X-Custom"), "1");
  EXPECT_EQ(server.received()[0].method, "POST");
}

TEST(HttpClient, GetAndABodyOverTheCap) {
  ScriptedServer server({Step::raw(200, "[]"), Step::raw(200, std::string(100000, 'x'))});
  http::Request req;
  req.method = "GET";
  req.url = server.url() + "/models";
  EXPECT_EQ(http::perform(req).body, "[]");
  req.max_response_bytes = 1000;
  const auto r = http::perform(req);
  EXPECT_EQ(r.transport, Transport::too_large);
  EXPECT_NE(r.error.find("1000 bytes"), std::string::npos) << r.error;
}

TEST(HttpClient, TransportFailuresAreTyped) {
  ScriptedServer server({Step::dropped(std::string(1000, 'y')), Step::stalled(std::string(1000, 'z'))});
  http::Request req;
  req.url = server.url() + "/x";
  req.timeout = std::chrono::milliseconds(300);
  const auto dropped = http::perform(req);
  EXPECT_EQ(dropped.transport, Transport::dropped) << dropped.error;
  EXPECT_EQ(dropped.status, 200);
  EXPECT_EQ(dropped.body, std::string(500, 'y'));  // what did arrive is kept
  const auto stalled = http::perform(req);
  EXPECT_EQ(stalled.transport, Transport::timeout) << stalled.error;
  EXPECT_LT(stalled.seconds, 2.0);
  req.url = "not a url";
  EXPECT_EQ(http::perform(req).transport, Transport::other);
}

}  // namespace
}  // namespace ptxbench::test
