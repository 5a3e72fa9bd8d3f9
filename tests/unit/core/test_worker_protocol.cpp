// The worker protocol (core/worker_protocol.h): a job survives its JSON both ways, a key that is
// missing or of the wrong type is named in the error, and a job or hello of another protocol
// version is refused on both sides.
#include <gtest/gtest.h>

#include "core/worker_protocol.h"

using namespace ptxbench;

namespace {

WorkerJob full_eval_job() {
  WorkerJob j;
  j.mode = "eval";
  j.workload = "gemm";
  j.workload_options = {{"layout", "tn"}};
  j.candidate = "/tmp/c/candidate.so";
  j.entry = "ptxbench_gemm";
  j.seed = 0xfedcba9876543210ull;
  j.device = 1;
  j.tolerances = {{"C", {{"rtol", 0.02}, {"atol", 0.01}, {"max_rel_l2", 0.008}}}};
  j.triton = json{{"python", {{"home", "/opt/py"}}}};
  j.channel_key = std::string(64, 'a');
  j.sandbox = json{{"candidate_filters", true}, {"after_load", true}};
  j.exclusive_gpu_fd = 4;
  j.reference_pool_fd = 5;
  j.pause_fd = 6;
  j.accounting = false;
  j.fixed_seed = 7;
  CorrectnessItem fixed{{{"M", 128}, {"N", 128}, {"K", 64}}, 3, true, false, 2.0 * 128 * 128 * 64,
                        ReferencePoolPlan{{11, 12}, 1}};
  CorrectnessItem drawn{{{"M", 256}, {"N", 128}, {"K", 64}}, 3, true, true, 4.0e6, std::nullopt};
  j.correctness = {fixed, drawn};
  j.gate_shape = {{"M", 64}, {"N", 64}, {"K", 64}};
  j.gate_flops = 524288;
  j.count = std::vector<ShapeWork>{{{{"M", 4096}, {"N", 4096}, {"K", 4096}}, 1.37e11}};
  j.timing = j.count;
  j.timing_config = json{{"max_seconds", 4}};
  j.stream_discipline = false;
  j.counted_calls = false;
  j.earlier_counted_kernels = std::vector<CountedKernels>{{{{"M", 4096}, {"N", 4096}, {"K", 4096}}, {"k1", "k2"}}};
  j.baseline_alone_cache = json{{"{\"K\":4096}", {{"median_ms", 1.5}}}};
  j.library_timing_cache = json{{"{\"K\":4096}", json::array()}};
  j.library_timing_check_samples = 5;
  return j;
}

std::string error_of(const json& j) {
  try {
    parse_worker_job(j);
  } catch (const WorkerProtocolError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(WorkerProtocol, AnEvalJobRoundTrips) {
  const json j = to_json(full_eval_job());
  EXPECT_EQ(j.at("protocol"), kWorkerProtocolVersion);
  EXPECT_EQ(to_json(parse_worker_job(j)), j);
  const WorkerJob back = parse_worker_job(j);
  EXPECT_EQ(back.seed, 0xfedcba9876543210ull) << "a 64-bit seed keeps every bit";
  ASSERT_EQ(back.correctness.size(), 2u);
  ASSERT_TRUE(back.correctness[0].pool.has_value());
  EXPECT_EQ(back.correctness[0].pool->seeds, (std::vector<uint64_t>{11, 12}));
  EXPECT_TRUE(back.correctness[1].drawn);
  EXPECT_EQ(back.pause_fd, 6);
  EXPECT_EQ(back.earlier_counted_kernels->front().kernels, (std::vector<std::string>{"k1", "k2"}));
}

TEST(WorkerProtocol, OptionalPartsStayAbsent) {
  WorkerJob j = full_eval_job();
  j.count.reset();
  j.timing.reset();
  j.timing_config.reset();
  j.fixed_seed.reset();
  j.triton.reset();
  const json out = to_json(j);
  for (const char* key : {"count", "timing", "timing_config", "fixed_seed", "triton"})
    EXPECT_FALSE(out.contains(key)) << key;
  const WorkerJob back = parse_worker_job(out);
  EXPECT_FALSE(back.count.has_value());
  EXPECT_FALSE(back.timing.has_value());
  EXPECT_EQ(to_json(back), out);
}

TEST(WorkerProtocol, SingleCallAndSelfTestJobsRoundTrip) {
  WorkerJob call = full_eval_job();
  call.mode = "single_call";
  call.shape = {{"M", 64}};
  call.flops = 1e6;
  call.nvtx_range = true;
  call.watchdog_scale = 30;
  call.check = true;
  const json c = to_json(call);
  EXPECT_FALSE(c.contains("correctness")) << "a single call carries no eval keys";
  EXPECT_EQ(to_json(parse_worker_job(c)), c);

  // As the GPU tests write it: no candidate, the protocol stamped by the launch.
  const json self_test = stamped_job({{"mode", "self_test"},
                                      {"workload", "gemm"},
                                      {"seed", 1},
                                      {"device", 0},
                                      {"fp64_shapes", json::array({{{"M", 128}}})},
                                      {"baseline_shapes", json::array()},
                                      {"tolerances", json::object()}});
  const WorkerJob t = parse_worker_job(self_test);
  EXPECT_FALSE(t.candidate.has_value());
  ASSERT_EQ(t.fp64_shapes.size(), 1u);
  EXPECT_EQ(t.fp64_shapes[0], (json{{"M", 128}}));
}

TEST(WorkerProtocol, AMissingKeyIsNamed) {
  json j = to_json(full_eval_job());
  j.erase("workload");
  EXPECT_NE(error_of(j).find("missing key 'workload'"), std::string::npos) << error_of(j);

  j = to_json(full_eval_job());
  j["correctness"][1].erase("seeds");
  EXPECT_NE(error_of(j).find("missing key 'correctness[1].seeds'"), std::string::npos) << error_of(j);

  j = to_json(full_eval_job());
  j.erase("entry");  // a candidate needs its entry point
  EXPECT_NE(error_of(j).find("'entry'"), std::string::npos) << error_of(j);
}

TEST(WorkerProtocol, AMistypedKeyIsNamed) {
  json j = to_json(full_eval_job());
  j["device"] = "0";
  EXPECT_NE(error_of(j).find("key 'device' must be an integer, not a string"), std::string::npos) << error_of(j);

  j = to_json(full_eval_job());
  j["timing"][0]["flops"] = "many";
  EXPECT_NE(error_of(j).find("key 'timing[0].flops' must be a number"), std::string::npos) << error_of(j);

  j = to_json(full_eval_job());
  j["correctness"][0]["pool"]["seeds"][1] = -3;
  EXPECT_NE(error_of(j).find("'correctness[0].pool.seeds[1]' must be a non-negative integer"), std::string::npos)
      << error_of(j);

  j = to_json(full_eval_job());
  j["mode"] = "dance";
  EXPECT_NE(error_of(j).find("unknown job mode 'dance'"), std::string::npos) << error_of(j);
}

TEST(WorkerProtocol, AJobOfAnotherVersionIsRefused) {
  json j = to_json(full_eval_job());
  j["protocol"] = kWorkerProtocolVersion + 1;
  EXPECT_NE(error_of(j).find("speaks worker protocol " + std::to_string(kWorkerProtocolVersion + 1)), std::string::npos)
      << error_of(j);
  j.erase("protocol");
  EXPECT_NE(error_of(j).find("names no worker protocol version"), std::string::npos) << error_of(j);
  EXPECT_EQ(stamped_job(j).at("protocol"), kWorkerProtocolVersion);
  EXPECT_EQ(stamped_job(json{{"protocol", 99}}).at("protocol"), 99) << "a stamp never overwrites";
}

TEST(WorkerProtocol, TheHelloNamesItsVersionAndAnotherIsRefused) {
  WorkerHello h;
  h.gpu = "NVIDIA H200";
  h.cc = "9.0";
  h.sm_count = 132;
  h.memory_bytes = 150ull << 30;
  h.timing_environment = {{"gpu_uuid", "GPU-1"}};
  const json j = to_json(h);
  EXPECT_EQ(j.at("type"), "hello");
  EXPECT_EQ(worker_protocol_mismatch(j), "");
  EXPECT_EQ(to_json(parse_worker_hello(j)), j);

  json other = j;
  other["protocol"] = 0;
  EXPECT_NE(worker_protocol_mismatch(other).find("speaks worker protocol 0"), std::string::npos);
  other.erase("protocol");
  EXPECT_NE(worker_protocol_mismatch(other).find("names no worker protocol version"), std::string::npos);
  EXPECT_THROW(parse_worker_hello(other), WorkerProtocolError);

  json no_cc = j;
  no_cc.erase("cc");
  try {
    parse_worker_hello(no_cc);
    FAIL() << "a hello without its compute capability";
  } catch (const WorkerProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("'cc'"), std::string::npos) << e.what();
  }
}

TEST(WorkerProtocol, FatalEventsAndEventTypes) {
  const json f = to_json(WorkerFatal{"infra_error", "no GPU"});
  EXPECT_EQ(f.at("type"), "fatal");
  EXPECT_EQ(parse_worker_fatal(f).message, "no GPU");
  EXPECT_THROW(parse_worker_fatal(json{{"type", "fatal"}, {"verdict", 3}}), WorkerProtocolError);
  const auto& types = worker_event_types();
  for (const char* t : {"hello", "stage", "done", "fatal", "health"})
    EXPECT_NE(std::find(types.begin(), types.end(), t), types.end()) << t;
}
