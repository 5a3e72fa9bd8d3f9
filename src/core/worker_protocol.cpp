// The worker protocol's job and envelope to and from JSON, and its version checked on both sides.
#include "core/worker_protocol.h"

namespace ptxbench {
namespace {

const char* type_name(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

// Reads one object's keys, each error naming the key with its path ("correctness[2].shape").
class Reader {
 public:
  Reader(const json& j, std::string what, std::string path = "")
      : j_(j), what_(std::move(what)), path_(std::move(path)) {
    if (!j_.is_object())
      throw WorkerProtocolError(what_ + ": " + (path_.empty() ? "it" : "'" + path_ + "'") + " must be an object, not " +
                                type_name(j_));
  }
  bool has(const char* key) const { return j_.contains(key); }
  std::string path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  const json& need(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) throw WorkerProtocolError(what_ + ": missing key '" + path(key) + "'");
    return *it;
  }
  [[noreturn]] void wrong(const std::string& key, const json& v, const char* expected) const {
    throw WorkerProtocolError(what_ + ": key '" + key + "' must be " + expected + ", not " + type_name(v));
  }
  const json& typed(const json& v, const std::string& key, bool ok, const char* expected) const {
    if (!ok) wrong(key, v, expected);
    return v;
  }

  std::string string(const char* key) const { return as_string(need(key), path(key)); }
  bool boolean(const char* key) const {
    return typed(need(key), path(key), need(key).is_boolean(), "a boolean").get<bool>();
  }
  double number(const char* key) const {
    return typed(need(key), path(key), need(key).is_number(), "a number").get<double>();
  }
  int integer(const char* key) const { return as_integer(need(key), path(key)); }
  uint64_t unsigned64(const char* key) const { return as_unsigned(need(key), path(key)); }
  const json& object(const char* key) const { return typed(need(key), path(key), need(key).is_object(), "an object"); }
  const json& array(const char* key) const { return typed(need(key), path(key), need(key).is_array(), "an array"); }

  std::string as_string(const json& v, const std::string& key) const {
    return typed(v, key, v.is_string(), "a string").get<std::string>();
  }
  int as_integer(const json& v, const std::string& key) const {
    return typed(v, key, v.is_number_integer(), "an integer").get<int>();
  }
  uint64_t as_unsigned(const json& v, const std::string& key) const {
    return typed(v, key, v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0),
                 "a non-negative integer")
        .get<uint64_t>();
  }
  const std::string& what() const { return what_; }

 private:
  const json& j_;
  std::string what_, path_;
};

std::vector<ShapeWork> shape_list(const Reader& r, const char* key) {
  std::vector<ShapeWork> out;
  const json& list = r.array(key);
  for (size_t i = 0; i < list.size(); ++i) {
    Reader item(list[i], r.what(), r.path(key) + "[" + std::to_string(i) + "]");
    out.push_back({item.object("shape"), item.number("flops")});
  }
  return out;
}

std::vector<json> shapes(const Reader& r, const char* key) {
  std::vector<json> out;
  const json& list = r.array(key);
  for (size_t i = 0; i < list.size(); ++i)
    out.push_back(r.typed(list[i], r.path(key) + "[" + std::to_string(i) + "]", list[i].is_object(), "an object"));
  return out;
}

CorrectnessItem correctness_item(const Reader& item) {
  CorrectnessItem c;
  c.shape = item.object("shape");
  c.seeds = item.integer("seeds");
  c.hidden = item.has("hidden") && item.boolean("hidden");
  c.drawn = item.has("drawn") && item.boolean("drawn");
  c.flops = item.number("flops");
  if (item.has("pool")) {
    Reader pool(item.object("pool"), item.what(), item.path("pool"));
    ReferencePoolPlan plan;
    if (pool.has("seeds")) {
      const json& seeds = pool.array("seeds");
      for (size_t i = 0; i < seeds.size(); ++i)
        plan.seeds.push_back(pool.as_unsigned(seeds[i], pool.path("seeds") + "[" + std::to_string(i) + "]"));
    }
    plan.fresh = pool.has("fresh") ? pool.integer("fresh") : 0;
    c.pool = std::move(plan);
  }
  return c;
}

}  // namespace

void check_worker_protocol(const json& message, std::string_view what) {
  const std::string w(what);
  if (!message.is_object()) throw WorkerProtocolError(w + " is not a JSON object");
  const auto it = message.find(kWorkerProtocolKey);
  const std::string ours = std::to_string(kWorkerProtocolVersion);
  if (it == message.end())
    throw WorkerProtocolError(w + " names no worker protocol version (key '" + kWorkerProtocolKey +
                              "'); this side speaks " + ours +
                              ": the judge and ptxbench-worker are from different builds");
  if (!it->is_number_integer() || it->get<int64_t>() != kWorkerProtocolVersion)
    throw WorkerProtocolError(w + " speaks worker protocol " + it->dump() + ", this side " + ours +
                              ": the judge and ptxbench-worker are from different builds (rebuild both)");
}

json to_json(const ShapeWork& w) { return {{"shape", w.shape}, {"flops", w.flops}}; }

json to_json(const std::vector<ShapeWork>& list) {
  json out = json::array();
  for (const auto& w : list) out.push_back(to_json(w));
  return out;
}

json to_json(const CorrectnessItem& item) {
  json j = {{"shape", item.shape}, {"seeds", item.seeds}, {"hidden", item.hidden}, {"flops", item.flops}};
  if (item.drawn) j["drawn"] = true;
  if (item.pool) j["pool"] = {{"seeds", item.pool->seeds}, {"fresh", item.pool->fresh}};
  return j;
}

json to_json(const WorkerJob& job) {
  json j = {{kWorkerProtocolKey, job.protocol}, {"mode", job.mode}};
  if (job.mode == "info") {
    if (job.channel_key) j["channel_key"] = *job.channel_key;
    return j;
  }
  j["workload"] = job.workload;
  j["workload_options"] = job.workload_options;
  if (job.candidate) j["candidate"] = *job.candidate, j["entry"] = job.entry;
  j["seed"] = job.seed;
  j["device"] = job.device;
  j["tolerances"] = job.tolerances;
  if (job.triton) j["triton"] = *job.triton;
  if (job.channel_key) j["channel_key"] = *job.channel_key;
  if (job.sandbox) j["sandbox"] = *job.sandbox;
  if (job.exclusive_gpu_fd >= 0) j["exclusive_gpu_fd"] = job.exclusive_gpu_fd;
  if (job.reference_pool_fd >= 0) j["reference_pool_fd"] = job.reference_pool_fd;
  if (job.pause_fd >= 0) j["pause_fd"] = job.pause_fd;
  if (job.mode == "single_call") {
    j["shape"] = job.shape;
    j["flops"] = job.flops;
    j["nvtx_range"] = job.nvtx_range;
    j["watchdog_scale"] = job.watchdog_scale;
    j["check"] = job.check;
  } else if (job.mode == "eval") {
    j["accounting"] = job.accounting;
    if (job.fixed_seed) j["fixed_seed"] = *job.fixed_seed;
    json items = json::array();
    for (const auto& item : job.correctness) items.push_back(to_json(item));
    j["correctness"] = std::move(items);
    j["gate_shape"] = job.gate_shape;
    j["gate_flops"] = job.gate_flops;
    if (job.count) j["count"] = to_json(*job.count);
    if (job.timing) j["timing"] = to_json(*job.timing);
    if (job.timing_config) j["timing_config"] = *job.timing_config;
    j["stream_discipline"] = job.stream_discipline;
    j["counted_calls"] = job.counted_calls;
    if (job.earlier_counted_kernels) {
      json list = json::array();
      for (const auto& c : *job.earlier_counted_kernels) list.push_back({{"shape", c.shape}, {"kernels", c.kernels}});
      j["earlier_counted_kernels"] = std::move(list);
    }
    if (job.baseline_alone_cache) j["baseline_alone_cache"] = *job.baseline_alone_cache;
    if (job.library_timing_cache) j["library_timing_cache"] = *job.library_timing_cache;
    if (job.library_timing_check_samples) j["library_timing_check_samples"] = *job.library_timing_check_samples;
  } else if (job.mode == "self_test") {
    j["fp64_shapes"] = job.fp64_shapes;
    j["baseline_shapes"] = job.baseline_shapes;
  }
  return j;
}

WorkerJob parse_worker_job(const json& j) {
  check_worker_protocol(j, "the worker job");
  const Reader r(j, "worker job");
  WorkerJob job;
  job.mode = r.string("mode");
  if (r.has("channel_key")) job.channel_key = r.string("channel_key");
  if (job.mode == "info") return job;
  if (job.mode != "eval" && job.mode != "single_call" && job.mode != "self_test")
    throw WorkerProtocolError("worker job: unknown job mode '" + job.mode + "' (key 'mode')");

  job.workload = r.string("workload");
  if (r.has("workload_options")) job.workload_options = r.object("workload_options");
  if (r.has("candidate")) {
    job.candidate = r.string("candidate");
    job.entry = r.string("entry");
  }
  if (r.has("seed")) job.seed = r.unsigned64("seed");
  if (r.has("device")) job.device = r.integer("device");
  if (r.has("tolerances")) job.tolerances = r.object("tolerances");
  if (r.has("triton")) job.triton = r.object("triton");
  if (r.has("sandbox")) job.sandbox = r.object("sandbox");
  if (r.has("exclusive_gpu_fd")) job.exclusive_gpu_fd = r.integer("exclusive_gpu_fd");
  if (r.has("reference_pool_fd")) job.reference_pool_fd = r.integer("reference_pool_fd");
  if (r.has("pause_fd")) job.pause_fd = r.integer("pause_fd");
  if (r.has("watchdog_scale")) job.watchdog_scale = r.number("watchdog_scale");

  if (job.mode == "single_call") {
    job.shape = r.object("shape");
    job.flops = r.number("flops");
    if (r.has("nvtx_range")) job.nvtx_range = r.boolean("nvtx_range");
    if (r.has("check")) job.check = r.boolean("check");
  } else if (job.mode == "eval") {
    if (r.has("accounting")) job.accounting = r.boolean("accounting");
    if (r.has("fixed_seed")) job.fixed_seed = r.unsigned64("fixed_seed");
    const json& items = r.array("correctness");
    for (size_t i = 0; i < items.size(); ++i)
      job.correctness.push_back(correctness_item(Reader(items[i], r.what(), "correctness[" + std::to_string(i) + "]")));
    if (r.has("stream_discipline")) job.stream_discipline = r.boolean("stream_discipline");
    if (r.has("gate_shape") || job.stream_discipline) {
      job.gate_shape = r.object("gate_shape");
      job.gate_flops = r.number("gate_flops");
    }
    if (r.has("count")) job.count = shape_list(r, "count");
    if (r.has("timing")) job.timing = shape_list(r, "timing");
    if (r.has("timing_config")) job.timing_config = r.object("timing_config");
    if (r.has("counted_calls")) job.counted_calls = r.boolean("counted_calls");
    if (r.has("earlier_counted_kernels")) {
      std::vector<CountedKernels> list;
      const json& a = r.array("earlier_counted_kernels");
      for (size_t i = 0; i < a.size(); ++i) {
        const Reader c(a[i], r.what(), "earlier_counted_kernels[" + std::to_string(i) + "]");
        CountedKernels k{c.object("shape"), {}};
        const json& names = c.array("kernels");
        for (size_t n = 0; n < names.size(); ++n)
          k.kernels.push_back(c.as_string(names[n], c.path("kernels") + "[" + std::to_string(n) + "]"));
        list.push_back(std::move(k));
      }
      job.earlier_counted_kernels = std::move(list);
    }
    if (r.has("baseline_alone_cache")) job.baseline_alone_cache = r.object("baseline_alone_cache");
    if (r.has("library_timing_cache")) job.library_timing_cache = r.object("library_timing_cache");
    if (r.has("library_timing_check_samples"))
      job.library_timing_check_samples = r.integer("library_timing_check_samples");
  } else {  // self_test
    job.fp64_shapes = shapes(r, "fp64_shapes");
    job.baseline_shapes = shapes(r, "baseline_shapes");
  }
  return job;
}

json stamped_job(json job) {
  if (job.is_object() && !job.contains(kWorkerProtocolKey)) job[kWorkerProtocolKey] = kWorkerProtocolVersion;
  return job;
}

const std::vector<std::string_view>& worker_event_types() {
  // "health": the health probe's report (service/health/probe_main.cu), on the same channel.
  // "reference_pool": what the eval worker put to the service's pool before its candidate loaded.
  // "shared_gpu": the timed worker gave the GPU back after the library's clean timings.
  // "paused": a shared worker paused at a call boundary for another worker's timing (core/shared_pause.h).
  static const std::vector<std::string_view> types{
      "hello",  "gpu_state", "progress", "check", "target_counts", "exclusive_gpu", "shared_gpu",     "baseline_alone",
      "timing", "stage",     "done",     "fatal", "sandbox",       "health",        "reference_pool", "paused"};
  return types;
}

json to_json(const WorkerHello& h) {
  return {{"type", "hello"},
          {"gpu", h.gpu},
          {"cc", h.cc},
          {"sm_count", h.sm_count},
          {"memory_bytes", h.memory_bytes},
          {"l2_bytes", h.l2_bytes},
          {"cuda_runtime", h.cuda_runtime},
          {"cuda_driver", h.cuda_driver},
          {"device", h.device},
          {"timing_environment", h.timing_environment},
          {kWorkerProtocolKey, h.protocol}};
}

WorkerHello parse_worker_hello(const json& j) {
  check_worker_protocol(j, "the worker's hello");
  const Reader r(j, "worker hello");
  WorkerHello h;
  h.gpu = r.string("gpu");
  h.cc = r.string("cc");
  if (r.has("device")) h.device = r.integer("device");
  if (r.has("sm_count")) h.sm_count = r.integer("sm_count");
  if (r.has("memory_bytes")) h.memory_bytes = r.unsigned64("memory_bytes");
  if (r.has("l2_bytes")) h.l2_bytes = r.unsigned64("l2_bytes");
  if (r.has("cuda_runtime")) h.cuda_runtime = r.integer("cuda_runtime");
  if (r.has("cuda_driver")) h.cuda_driver = r.integer("cuda_driver");
  if (r.has("timing_environment")) h.timing_environment = r.object("timing_environment");
  return h;
}

std::string worker_protocol_mismatch(const json& hello) {
  try {
    check_worker_protocol(hello, "the worker's hello");
    return "";
  } catch (const WorkerProtocolError& e) {
    return e.what();
  }
}

json to_json(const WorkerFatal& f) { return {{"type", "fatal"}, {"verdict", f.verdict}, {"message", f.message}}; }

WorkerFatal parse_worker_fatal(const json& j) {
  const Reader r(j, "worker fatal event");
  return {r.string("verdict"), r.string("message")};
}

}  // namespace ptxbench
