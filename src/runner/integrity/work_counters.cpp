#include "runner/integrity/work_counters.h"

#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/error.h"
#include "runner/integrity/cupti_params.h"

namespace ptxbench::integrity {
namespace {

std::string cupti_message(CUptiResult r) {
  const char* msg = nullptr;
  cuptiGetResultString(r, &msg);
  return msg ? msg : "CUPTI error " + std::to_string(int(r));
}

void check(CUptiResult r, const char* what) {
  if (r != CUPTI_SUCCESS) fail(std::string("CUPTI range profiler: ") + what + ": " + cupti_message(r));
}

// The calling thread's context, through the runtime's driver entry point (the worker does not link
// libcuda, so that it starts on machines without a driver).
CUcontext current_context() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess || fn == nullptr)
    fail("the CUDA driver has no cuCtxGetCurrent");
  CUcontext ctx = nullptr;
  if (reinterpret_cast<CUresult (*)(CUcontext*)>(fn)(&ctx) != CUDA_SUCCESS || ctx == nullptr)
    fail("no current CUDA context");
  return ctx;
}

}  // namespace

std::vector<std::string> WorkMetrics::all() const {
  std::vector<std::string> out = tensor_ops;
  if (!tensor_insts.empty()) out.push_back(tensor_insts);
  out.insert(out.end(), tma_load_bytes.begin(), tma_load_bytes.end());
  out.insert(out.end(), tma_store_bytes.begin(), tma_store_bytes.end());
  for (const auto& [name, weight] : other_math) out.push_back(name);
  return out;
}

WorkMetrics work_metrics_for_chip(const std::string& chip) {
  const std::vector<std::string> tma_load = {"l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum"};
  const std::vector<std::string> tma_store = {"l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum",
                                              "l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_red.sum"};
  const std::vector<std::pair<std::string, double>> other_math = {{"sm__inst_executed_pipe_fma.sum", 64},
                                                                  {"sm__inst_executed_pipe_fma_type_fp16.sum", 64},
                                                                  {"sm__inst_executed_pipe_fp64.sum", 64}};
  if (chip == "GH100") {
    // Hopper: the warpgroup MMA paths by source type, the problems' types first. fp8 has one path for
    // every MMA kind (mma.sync e4m3 too); the SASS counts of the checked calls tell QGMMA from HMMA.
    return {{"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum", "sm__ops_path_tensor_op_hgmma_src_fp16.sum",
             "sm__ops_path_tensor_src_fp8.sum", "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum",
             "sm__ops_path_tensor_op_igmma_src_int8.sum"},
            "sm__inst_executed_pipe_tensor_op_gmma.sum",
            tma_load,
            tma_store,
            other_math};
  }
  if (chip == "GB100" || chip == "GB102" || chip == "GB110") {
    // Blackwell datacenter: the tcgen05 (UTC*MMA) paths. Compiled and listed only: no B200 here.
    return {
        {"sm__ops_path_tensor_op_utchmma_src_bf16_dst_fp32.sum", "sm__ops_path_tensor_op_utchmma_src_fp16_dst_fp32.sum",
         "sm__ops_path_tensor_op_utcqmma_src_fp4_fp6_fp8_dst_fp32.sum",
         "sm__ops_path_tensor_op_utchmma_src_fp16_dst_fp16.sum",
         "sm__ops_path_tensor_op_utcqmma_src_fp4_fp6_fp8_dst_fp16.sum",
         "sm__ops_path_tensor_op_utchmma_src_tf32_dst_fp32.sum", "sm__ops_path_tensor_op_utcimma_src_int8.sum",
         "sm__ops_path_tensor_op_utcomma_src_fp4_dst_fp32.sum"},
        "sm__inst_executed_pipe_tc.sum",
        tma_load,
        tma_store,
        other_math};
  }
  return {};
}

namespace {

// CUPTI's host object for one chip, released on every path.
class HostConfig {
 public:
  HostConfig(const std::string& chip, const uint8_t* availability) : chip_(chip), availability_(availability) {
    auto hi = cupti_params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip.c_str();
    hi.pCounterAvailabilityImage = const_cast<uint8_t*>(availability);
    check(cuptiProfilerHostInitialize(&hi), "cuptiProfilerHostInitialize");
    host_ = hi.pHostObject;
  }
  ~HostConfig() {
    if (!host_) return;
    auto d = cupti_params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    d.pHostObject = host_;
    cuptiProfilerHostDeinitialize(&d);
  }
  HostConfig(const HostConfig&) = delete;
  HostConfig& operator=(const HostConfig&) = delete;
  CUpti_Profiler_Host_Object* take() { return std::exchange(host_, nullptr); }

  // All in one call: added one at a time, CUPTI schedules each apart (the GH100 list then needed
  // 4 passes instead of 1). On a failure, the name it refused is found and named.
  void add(const std::vector<std::string>& names) {
    std::vector<const char*> ptrs;
    for (const auto& n : names) ptrs.push_back(n.c_str());
    auto add = cupti_params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = host_;
    add.ppMetricNames = ptrs.data();
    add.numMetrics = ptrs.size();
    const CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add);
    if (r == CUPTI_SUCCESS) return;
    for (const auto& n : names) {
      HostConfig one(chip_, availability_);
      const char* p = n.c_str();
      auto a1 = cupti_params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
          CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
      a1.pHostObject = one.host_;
      a1.ppMetricNames = &p;
      a1.numMetrics = 1;
      check(cuptiProfilerHostConfigAddMetrics(&a1), ("adding " + n).c_str());
    }
    check(r, "adding the work metrics");
  }
  std::vector<uint8_t> image() const {
    auto size = cupti_params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    size.pHostObject = host_;
    check(cuptiProfilerHostGetConfigImageSize(&size), "config image size");
    std::vector<uint8_t> out(size.configImageSize);
    auto cfg =
        cupti_params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    cfg.pHostObject = host_;
    cfg.configImageSize = out.size();
    cfg.pConfigImage = out.data();
    check(cuptiProfilerHostGetConfigImage(&cfg), "config image");
    return out;
  }
  size_t passes() const {
    auto img = image();
    auto np =
        cupti_params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
    np.configImageSize = img.size();
    np.pConfigImage = img.data();
    check(cuptiProfilerHostGetNumOfPasses(&np), "number of passes");
    return np.numOfPasses;
  }

 private:
  std::string chip_;
  const uint8_t* availability_;
  CUpti_Profiler_Host_Object* host_ = nullptr;
};

size_t passes_of(const std::string& chip, const uint8_t* availability, const std::vector<std::string>& names) {
  HostConfig h(chip, availability);
  h.add(names);
  return h.passes();
}

}  // namespace

OnePassMetrics one_pass_work_metrics(const std::string& chip, const uint8_t* availability,
                                     const std::vector<std::string>& first) {
  const WorkMetrics full = work_metrics_for_chip(chip);
  if (full.tensor_ops.empty()) fail("no work metrics are listed for chip " + chip);
  OnePassMetrics out;
  out.passes_of_the_full_list = passes_of(chip, availability, full.all());
  out.metrics = full;
  out.metrics.tensor_ops.clear();
  out.metrics.other_math.clear();
  if (const size_t p = passes_of(chip, availability, out.metrics.all()); p != 1)
    fail("the TMA's counters and " + full.tensor_insts + " need " + std::to_string(p) + " passes on " + chip);
  std::vector<std::string> order = full.tensor_ops;
  std::stable_partition(order.begin(), order.end(), [&](const std::string& m) {
    return std::any_of(first.begin(), first.end(),
                       [&](const std::string& f) { return !f.empty() && m.find(f) != std::string::npos; });
  });
  for (const auto& t : order) {
    WorkMetrics tried = out.metrics;
    tried.tensor_ops.push_back(t);
    if (passes_of(chip, availability, tried.all()) == 1) out.metrics = std::move(tried);
    else out.uncounted.push_back(t);
  }
  if (out.metrics.tensor_ops.empty()) fail("no tensor type of " + chip + " fits one pass beside the TMA's counters");
  for (const auto& o : full.other_math) {
    WorkMetrics tried = out.metrics;
    tried.other_math.push_back(o);
    if (passes_of(chip, availability, tried.all()) == 1) out.metrics = std::move(tried);
    else out.uncounted.push_back(o.first);
  }
  return out;
}

std::string check_work_metrics(const std::string& chip) {
  try {
    one_pass_work_metrics(chip);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

struct WorkCounters::State {
  CUpti_RangeProfiler_Object* profiler = nullptr;
  CUpti_Profiler_Host_Object* host = nullptr;
  WorkMetrics metrics;
  std::vector<std::string> uncounted;
  std::vector<std::string> names;
  std::vector<const char*> name_ptrs;
  std::vector<uint8_t> config, data;
  bool started = false;
  size_t max_ranges = 0;
  int sessions = 0;

  // User ranges replayed by nobody: every metric fits one pass (one_pass_work_metrics), so no call
  // runs twice. Set again before each later session, so every session collects pass 0.
  void set_config() {
    auto set = cupti_params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
    set.pRangeProfilerObject = profiler;
    set.configSize = config.size();
    set.pConfig = config.data();
    set.counterDataImageSize = data.size();
    set.pCounterDataImage = data.data();
    set.range = CUPTI_UserRange;
    set.replayMode = CUPTI_UserReplay;
    set.maxRangesPerPass = max_ranges;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    check(cuptiRangeProfilerSetConfig(&set), "cuptiRangeProfilerSetConfig");
  }
};

std::unique_ptr<WorkCounters> WorkCounters::create(CUcontext ctx, int device, size_t max_ranges, std::string* why,
                                                   const std::vector<std::string>& first) {
  std::unique_ptr<WorkCounters> c(new WorkCounters);
  c->s_ = std::make_unique<State>();
  State& s = *c->s_;
  s.max_ranges = max_ranges;
  try {
    if (!ctx) ctx = current_context();
    auto init = cupti_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    check(cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
    auto chip = cupti_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    chip.deviceIndex = size_t(device);
    check(cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");
    c->chip_ = chip.pChipName ? chip.pChipName : "";

    auto en = cupti_params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    en.ctx = ctx;
    check(cuptiRangeProfilerEnable(&en), "cuptiRangeProfilerEnable");
    s.profiler = en.pRangeProfilerObject;

    auto avail = cupti_params<CUpti_Profiler_GetCounterAvailability_Params>(
        CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    avail.ctx = ctx;
    check(cuptiProfilerGetCounterAvailability(&avail), "counter availability size");
    std::vector<uint8_t> image(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = image.data();
    check(cuptiProfilerGetCounterAvailability(&avail), "counter availability");

    OnePassMetrics one = one_pass_work_metrics(c->chip_, image.data(), first);
    s.metrics = std::move(one.metrics);
    s.uncounted = std::move(one.uncounted);
    s.names = s.metrics.all();
    for (const auto& n : s.names) s.name_ptrs.push_back(n.c_str());
    HostConfig host(c->chip_, image.data());
    host.add(s.names);
    s.config = host.image();
    s.host = host.take();

    auto ds = cupti_params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
    ds.pRangeProfilerObject = s.profiler;
    ds.pMetricNames = s.name_ptrs.data();
    ds.numMetrics = s.name_ptrs.size();
    ds.maxNumOfRanges = max_ranges;
    ds.maxNumRangeTreeNodes = uint32_t(max_ranges);
    check(cuptiRangeProfilerGetCounterDataSize(&ds), "counter data size");
    s.data.resize(ds.counterDataSize);
    auto di = cupti_params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    di.pRangeProfilerObject = s.profiler;
    di.counterDataSize = s.data.size();
    di.pCounterData = s.data.data();
    check(cuptiRangeProfilerCounterDataImageInitialize(&di), "counter data image");
    s.set_config();
    // A session with no work in it, now: CUPTI's first session makes a file link (a symlink call,
    // seen on an H100), which the worker's sandbox forbids once the candidate is loaded. The worker
    // creates the counters before that, so the first session's set-up happens here.
    c->start();
    c->push("set-up");
    c->pop();
    c->stop();
    return c;
  } catch (const Error& e) {
    if (why) *why = e.what();
    return nullptr;
  }
}

WorkCounters::~WorkCounters() {
  if (!s_) return;
  if (s_->started) {
    auto stop = cupti_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    stop.pRangeProfilerObject = s_->profiler;
    cuptiRangeProfilerStop(&stop);
  }
  if (s_->profiler) {
    auto dis = cupti_params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    dis.pRangeProfilerObject = s_->profiler;
    cuptiRangeProfilerDisable(&dis);
  }
  if (s_->host) {
    auto d = cupti_params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    d.pHostObject = s_->host;
    cuptiProfilerHostDeinitialize(&d);
  }
}

void WorkCounters::start() {
  auto di = cupti_params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  di.pRangeProfilerObject = s_->profiler;
  di.counterDataSize = s_->data.size();
  di.pCounterData = s_->data.data();
  check(cuptiRangeProfilerCounterDataImageInitialize(&di), "counter data image");
  if (s_->sessions++ > 0) s_->set_config();
  auto st = cupti_params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  st.pRangeProfilerObject = s_->profiler;
  check(cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart");
  s_->started = true;
}

void WorkCounters::push(const std::string& range) {
  auto p = cupti_params<CUpti_RangeProfiler_PushRange_Params>(CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = s_->profiler;
  p.pRangeName = range.c_str();
  check(cuptiRangeProfilerPushRange(&p), "cuptiRangeProfilerPushRange");
}

void WorkCounters::pop() {
  auto p = cupti_params<CUpti_RangeProfiler_PopRange_Params>(CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = s_->profiler;
  check(cuptiRangeProfilerPopRange(&p), "cuptiRangeProfilerPopRange");
}

const std::vector<std::string>& WorkCounters::uncounted() const { return s_->uncounted; }

std::vector<CallWork> WorkCounters::stop() {
  auto stop = cupti_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  stop.pRangeProfilerObject = s_->profiler;
  check(cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
  s_->started = false;
  auto dec = cupti_params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  dec.pRangeProfilerObject = s_->profiler;
  check(cuptiRangeProfilerDecodeData(&dec), "cuptiRangeProfilerDecodeData");
  if (dec.numOfRangeDropped) fail("the range profiler dropped " + std::to_string(dec.numOfRangeDropped) + " ranges");
  auto info = cupti_params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = s_->data.data();
  info.counterDataImageSize = s_->data.size();
  check(cuptiRangeProfilerGetCounterDataInfo(&info), "counter data info");
  std::vector<CallWork> out;
  std::vector<double> values(s_->names.size());
  for (size_t r = 0; r < info.numTotalRanges; ++r) {
    auto ri = cupti_params<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
    ri.pCounterDataImage = s_->data.data();
    ri.counterDataImageSize = s_->data.size();
    ri.rangeIndex = r;
    ri.rangeDelimiter = "/";
    check(cuptiRangeProfilerCounterDataGetRangeInfo(&ri), "range info");
    auto ev = cupti_params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    ev.pHostObject = s_->host;
    ev.pCounterDataImage = s_->data.data();
    ev.counterDataImageSize = s_->data.size();
    ev.rangeIndex = r;
    ev.ppMetricNames = s_->name_ptrs.data();
    ev.numMetrics = s_->name_ptrs.size();
    ev.pMetricValues = values.data();
    check(cuptiProfilerHostEvaluateToGpuValues(&ev), "evaluating the work metrics");
    CallWork w;
    w.range = ri.rangeName ? ri.rangeName : "";
    // In the order of WorkMetrics::all(); a NaN is a metric this pass did not collect: named, not summed.
    size_t k = 0;
    auto add = [&](double& sum) {
      if (std::isfinite(values[k])) sum += values[k];
      else w.unreadable.push_back(s_->names[k]);
      ++k;
    };
    for (size_t i = 0; i < s_->metrics.tensor_ops.size(); ++i) add(w.tensor_ops);
    if (!s_->metrics.tensor_insts.empty()) add(w.tensor_insts);
    for (size_t i = 0; i < s_->metrics.tma_load_bytes.size(); ++i) add(w.tma_load_bytes);
    for (size_t i = 0; i < s_->metrics.tma_store_bytes.size(); ++i) add(w.tma_store_bytes);
    for (const auto& [name, weight] : s_->metrics.other_math) {
      double count = 0;
      add(count);
      w.other_math_flops += count * weight;
    }
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace ptxbench::integrity
