// CUPTI's range profiler over a one-pass metric list: user ranges, nothing patched or replayed.
#include "runner/integrity/range_profiler.h"

#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cmath>
#include <utility>

#include "core/error.h"
#include "runner/integrity/cupti_check.h"
#include "runner/integrity/cupti_params.h"

namespace ptxbench {
namespace {

void profiler_check(CUptiResult r, const char* what) { cupti_check(r, "CUPTI range profiler", what); }

// The calling thread's context, through the runtime's driver entry point (the worker does not link
// libcuda, so that it starts on machines without a driver).
CUcontext profiler_current_context() {
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

// CUPTI's host object for one chip, released on every path.
class HostConfig {
 public:
  HostConfig(const std::string& chip, const uint8_t* availability) : chip_(chip), availability_(availability) {
    auto hi = cupti_params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip.c_str();
    hi.pCounterAvailabilityImage = const_cast<uint8_t*>(availability);
    profiler_check(cuptiProfilerHostInitialize(&hi), "cuptiProfilerHostInitialize");
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
      profiler_check(cuptiProfilerHostConfigAddMetrics(&a1), ("adding " + n).c_str());
    }
    profiler_check(r, "adding the metrics");
  }
  std::vector<uint8_t> image() const {
    auto size = cupti_params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    size.pHostObject = host_;
    profiler_check(cuptiProfilerHostGetConfigImageSize(&size), "config image size");
    std::vector<uint8_t> out(size.configImageSize);
    auto cfg =
        cupti_params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    cfg.pHostObject = host_;
    cfg.configImageSize = out.size();
    cfg.pConfigImage = out.data();
    profiler_check(cuptiProfilerHostGetConfigImage(&cfg), "config image");
    return out;
  }
  size_t passes() const {
    auto img = image();
    auto np =
        cupti_params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
    np.configImageSize = img.size();
    np.pConfigImage = img.data();
    profiler_check(cuptiProfilerHostGetNumOfPasses(&np), "number of passes");
    return np.numOfPasses;
  }

 private:
  std::string chip_;
  const uint8_t* availability_;
  CUpti_Profiler_Host_Object* host_ = nullptr;
};

}  // namespace

size_t passes_of(const std::string& chip, const uint8_t* availability, const std::vector<std::string>& metrics) {
  HostConfig h(chip, availability);
  h.add(metrics);
  return h.passes();
}

struct RangeProfiler::State {
  CUpti_RangeProfiler_Object* profiler = nullptr;
  CUpti_Profiler_Host_Object* host = nullptr;
  std::vector<const char*> name_ptrs;
  std::vector<uint8_t> config, data;
  bool started = false;
  size_t max_ranges = 0;
  int sessions = 0;

  // User ranges replayed by nobody: every metric fits one pass, so no call runs twice. Set again
  // before each later session, so every session collects pass 0.
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
    profiler_check(cuptiRangeProfilerSetConfig(&set), "cuptiRangeProfilerSetConfig");
  }
};

std::unique_ptr<RangeProfiler> RangeProfiler::create(CUcontext ctx, int device, size_t max_ranges,
                                                     const Chooser& choose, std::string* why) {
  std::unique_ptr<RangeProfiler> c(new RangeProfiler);
  c->s_ = std::make_unique<State>();
  State& s = *c->s_;
  s.max_ranges = max_ranges;
  try {
    if (!ctx) ctx = profiler_current_context();
    auto init = cupti_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    profiler_check(cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
    auto chip = cupti_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    chip.deviceIndex = size_t(device);
    profiler_check(cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");
    c->chip_ = chip.pChipName ? chip.pChipName : "";

    auto en = cupti_params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    en.ctx = ctx;
    profiler_check(cuptiRangeProfilerEnable(&en), "cuptiRangeProfilerEnable");
    s.profiler = en.pRangeProfilerObject;

    auto avail = cupti_params<CUpti_Profiler_GetCounterAvailability_Params>(
        CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    avail.ctx = ctx;
    profiler_check(cuptiProfilerGetCounterAvailability(&avail), "counter availability size");
    std::vector<uint8_t> image(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = image.data();
    profiler_check(cuptiProfilerGetCounterAvailability(&avail), "counter availability");

    c->metrics_ = choose(c->chip_, image.data());
    if (c->metrics_.empty()) fail("no metric to count on " + c->chip_);
    for (const auto& n : c->metrics_) s.name_ptrs.push_back(n.c_str());
    HostConfig host(c->chip_, image.data());
    host.add(c->metrics_);
    if (const size_t p = host.passes(); p != 1)
      fail("the metrics need " + std::to_string(p) + " passes on " + c->chip_ + ", not one");
    s.config = host.image();
    s.host = host.take();

    auto ds = cupti_params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
    ds.pRangeProfilerObject = s.profiler;
    ds.pMetricNames = s.name_ptrs.data();
    ds.numMetrics = s.name_ptrs.size();
    ds.maxNumOfRanges = max_ranges;
    ds.maxNumRangeTreeNodes = uint32_t(max_ranges);
    profiler_check(cuptiRangeProfilerGetCounterDataSize(&ds), "counter data size");
    s.data.resize(ds.counterDataSize);
    auto di = cupti_params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    di.pRangeProfilerObject = s.profiler;
    di.counterDataSize = s.data.size();
    di.pCounterData = s.data.data();
    profiler_check(cuptiRangeProfilerCounterDataImageInitialize(&di), "counter data image");
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

RangeProfiler::~RangeProfiler() {
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

void RangeProfiler::start() {
  auto di = cupti_params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  di.pRangeProfilerObject = s_->profiler;
  di.counterDataSize = s_->data.size();
  di.pCounterData = s_->data.data();
  profiler_check(cuptiRangeProfilerCounterDataImageInitialize(&di), "counter data image");
  if (s_->sessions++ > 0) s_->set_config();
  auto st = cupti_params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  st.pRangeProfilerObject = s_->profiler;
  profiler_check(cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart");
  s_->started = true;
}

void RangeProfiler::push(const std::string& range) {
  auto p = cupti_params<CUpti_RangeProfiler_PushRange_Params>(CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = s_->profiler;
  p.pRangeName = range.c_str();
  profiler_check(cuptiRangeProfilerPushRange(&p), "cuptiRangeProfilerPushRange");
}

void RangeProfiler::pop() {
  auto p = cupti_params<CUpti_RangeProfiler_PopRange_Params>(CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = s_->profiler;
  profiler_check(cuptiRangeProfilerPopRange(&p), "cuptiRangeProfilerPopRange");
}

std::vector<RangeValues> RangeProfiler::stop() {
  auto stop = cupti_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  stop.pRangeProfilerObject = s_->profiler;
  profiler_check(cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
  s_->started = false;
  auto dec = cupti_params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  dec.pRangeProfilerObject = s_->profiler;
  profiler_check(cuptiRangeProfilerDecodeData(&dec), "cuptiRangeProfilerDecodeData");
  if (dec.numOfRangeDropped) fail("the range profiler dropped " + std::to_string(dec.numOfRangeDropped) + " ranges");
  auto info = cupti_params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = s_->data.data();
  info.counterDataImageSize = s_->data.size();
  profiler_check(cuptiRangeProfilerGetCounterDataInfo(&info), "counter data info");
  std::vector<RangeValues> out;
  for (size_t r = 0; r < info.numTotalRanges; ++r) {
    auto ri = cupti_params<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
    ri.pCounterDataImage = s_->data.data();
    ri.counterDataImageSize = s_->data.size();
    ri.rangeIndex = r;
    ri.rangeDelimiter = "/";
    profiler_check(cuptiRangeProfilerCounterDataGetRangeInfo(&ri), "range info");
    RangeValues v;
    v.range = ri.rangeName ? ri.rangeName : "";
    v.values.assign(s_->name_ptrs.size(), std::nan(""));
    auto ev = cupti_params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    ev.pHostObject = s_->host;
    ev.pCounterDataImage = s_->data.data();
    ev.counterDataImageSize = s_->data.size();
    ev.rangeIndex = r;
    ev.ppMetricNames = s_->name_ptrs.data();
    ev.numMetrics = s_->name_ptrs.size();
    ev.pMetricValues = v.values.data();
    profiler_check(cuptiProfilerHostEvaluateToGpuValues(&ev), "evaluating the metrics");
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace ptxbench
