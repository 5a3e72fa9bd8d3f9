// The reward API over HTTP on loopback: the routes, the status codes, Retry-After, the JSON error
// body of every refusal (httplib's own ones too: no route, a body over the limit), the long-poll.
#include <httplib.h>

#include "api/http_server.h"
#include "api/listen_address.h"
#include "api_fixture.h"
#include "core/error.h"

using namespace ptxbench;
using namespace ptxbench::api;
using namespace ptxbench::api::test;

namespace {

struct HttpFixture : ApiFixture {
  HttpServer server{api, {"127.0.0.1", 0}, {.threads = 8, .max_body_bytes = 1 << 16}};
  httplib::Client client{"127.0.0.1", server.port()};
  HttpFixture() { client.set_read_timeout(30, 0); }

  static json body_of(const httplib::Result& r) { return r ? json::parse(r->body, nullptr, false) : json(); }
};

}  // namespace

TEST_F(HttpFixture, SubmitPollAndFetchOverHttp) {
  auto posted =
      client.Post("/v1/submissions", json{{"candidates", {candidate("a"), candidate("b")}}}.dump(), "application/json");
  ASSERT_TRUE(posted) << httplib::to_string(posted.error());
  EXPECT_EQ(posted->status, 202) << posted->body;
  EXPECT_EQ(body_of(posted)["submissions"].size(), 2u);
  auto early = client.Get("/v1/results/a");
  ASSERT_TRUE(early);
  EXPECT_EQ(early->status, 202);
  EXPECT_EQ(early->get_header_value("Retry-After"), "1");
  std::thread judge_later([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    judge("a", correct_record());
  });
  auto polled = client.Get("/v1/submissions/a?wait=5");
  judge_later.join();
  ASSERT_TRUE(polled);
  EXPECT_EQ(polled->status, 200);
  EXPECT_EQ(body_of(polled)["state"], "done") << polled->body;
  auto result = client.Get("/v1/results/a");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
  EXPECT_EQ(result->get_header_value("Content-Type"), "application/json");
  EXPECT_TRUE(body_of(result)["reward"]["correct"].get<bool>());
  auto health = client.Get("/v1/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(body_of(health)["queue"]["queued"], 1);
}

TEST_F(HttpFixture, RefusalsCarryTheirStatusRetryAfterAndAJsonErrorBody) {
  auto bad = client.Post("/v1/submissions", "{", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(body_of(bad)["error"]["errors"][0]["what"], "the body is not JSON");
  ASSERT_EQ(client
                .Post("/v1/submissions", json{{"candidates", {candidate("a"), candidate("b"), candidate("c")}}}.dump(),
                      "application/json")
                ->status,
            202);
  auto full = client.Post("/v1/submissions", candidate("d").dump(), "application/json");
  ASSERT_TRUE(full);
  EXPECT_EQ(full->status, 429);
  EXPECT_EQ(full->get_header_value("Retry-After"), "4");
  auto conflict = client.Post("/v1/submissions", candidate("a", "other").dump(), "application/json");
  ASSERT_TRUE(conflict);
  EXPECT_EQ(conflict->status, 409);
  auto unknown = client.Get("/v1/results/nobody");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_NE(body_of(unknown)["error"]["message"].get<std::string>().find("nobody"), std::string::npos);
  auto bad_wait = client.Get("/v1/submissions/a?wait=soon");
  ASSERT_TRUE(bad_wait);
  EXPECT_EQ(bad_wait->status, 400);
  EXPECT_EQ(body_of(bad_wait)["error"]["errors"][0]["where"], "wait");
  auto no_route = client.Get("/v2/anything");
  ASSERT_TRUE(no_route);
  EXPECT_EQ(no_route->status, 404);
  EXPECT_NE(body_of(no_route)["error"]["message"].get<std::string>().find("POST /v1/submissions"), std::string::npos);
  auto huge = client.Post("/v1/submissions", std::string(1 << 17, ' '), "application/json");
  ASSERT_TRUE(huge);
  EXPECT_EQ(huge->status, 413);
  EXPECT_EQ(body_of(huge)["error"]["status"], 413) << huge->body;
  api.set_draining(true);
  auto draining = client.Post("/v1/submissions", candidate("e").dump(), "application/json");
  ASSERT_TRUE(draining);
  EXPECT_EQ(draining->status, 503);
  EXPECT_FALSE(draining->get_header_value("Retry-After").empty());
}

TEST(ListenAddress, ParsesHostAndPortAndSaysWhatIsWrong) {
  const auto a = parse_listen_address("127.0.0.1:8080");
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 8080);
  EXPECT_EQ(parse_listen_address("[::1]:0").host, "::1");
  EXPECT_THROW(parse_listen_address("8080"), InputError);
  EXPECT_THROW(parse_listen_address("localhost:http"), InputError);
  EXPECT_THROW(parse_listen_address("localhost:70000"), InputError);
}

TEST(HttpServerBind, APortInUseIsAnErrorThatNamesIt) {
  ptxbench::test::TempDir dir{"ptxbench-api-bind"};
  SqliteJobQueue queue{dir.path() / "ptxbench.db"};
  RewardApi api{queue, test_facts(), std::filesystem::path(PTXBENCH_SOURCE_DIR) / "problems", {}};
  HttpServer first{api, {"127.0.0.1", 0}};
  try {
    HttpServer second{api, {"127.0.0.1", first.port()}};
    FAIL() << "a second server bound the same port";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(first.port())), std::string::npos) << e.what();
  }
}
