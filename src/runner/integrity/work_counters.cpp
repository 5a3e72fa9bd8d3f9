#include "runner/integrity/work_counters.h"

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "core/error.h"

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

}  // namespace

std::vector<std::string> WorkMetrics::all() const {
  std::vector<std::string> out = tensor_ops;
  out.insert(out.end(), tma_load_bytes.begin(), tma_load_bytes.end());
  out.insert(out.end(), tma_store_bytes.begin(), tma_store_bytes.end());
  return out;
}

WorkMetrics work_metrics_for_chip(const std::string& chip) {
  const std::vector<std::string> tma_load = {"l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum"};
  const std::vector<std::string> tma_store = {"l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum",
                                              "l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_red.sum"};
  if (chip == "GH100") {
    // Hopper: the warpgroup MMA paths by source type. fp8 has one path for every MMA kind (mma.sync
    // e4m3 too); the SASS counts of the checked calls tell QGMMA from HMMA.
    return {{"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum", "sm__ops_path_tensor_op_hgmma_src_fp16.sum",
             "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum", "sm__ops_path_tensor_op_igmma_src_int8.sum",
             "sm__ops_path_tensor_src_fp8.sum"},
            tma_load, tma_store};
  }
  if (chip == "GB100" || chip == "GB102" || chip == "GB110") {
    // Blackwell datacenter: the tcgen05 (UTC*MMA) paths. Compiled and listed only: no B200 here.
    return {{"sm__ops_path_tensor_op_utchmma_src_bf16_dst_fp32.sum", "sm__ops_path_tensor_op_utchmma_src_fp16_dst_fp16.sum",
             "sm__ops_path_tensor_op_utchmma_src_fp16_dst_fp32.sum", "sm__ops_path_tensor_op_utchmma_src_tf32_dst_fp32.sum",
             "sm__ops_path_tensor_op_utcimma_src_int8.sum", "sm__ops_path_tensor_op_utcqmma_src_fp4_fp6_fp8_dst_fp16.sum",
             "sm__ops_path_tensor_op_utcqmma_src_fp4_fp6_fp8_dst_fp32.sum", "sm__ops_path_tensor_op_utcomma_src_fp4_dst_fp32.sum"},
            tma_load, tma_store};
  }
  return {};
}

std::string check_work_metrics(const std::string& chip) {
  const WorkMetrics m = work_metrics_for_chip(chip);
  if (m.tensor_ops.empty()) return "no work metrics are listed for chip " + chip;
  const auto names = m.all();
  CUpti_Profiler_Host_Initialize_Params hi{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  hi.pChipName = chip.c_str();
  if (CUptiResult r = cuptiProfilerHostInitialize(&hi); r != CUPTI_SUCCESS) return "host initialize: " + cupti_message(r);
  std::string why;
  for (const auto& n : names) {  // one at a time, so the message names the metric
    const char* one = n.c_str();
    CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = hi.pHostObject;
    add.ppMetricNames = &one;
    add.numMetrics = 1;
    if (CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add); r != CUPTI_SUCCESS) {
      why = n + " on " + chip + ": " + cupti_message(r);
      break;
    }
  }
  CUpti_Profiler_Host_Deinitialize_Params d{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
  d.pHostObject = hi.pHostObject;
  cuptiProfilerHostDeinitialize(&d);
  return why;
}

struct WorkCounters::State {
  CUpti_RangeProfiler_Object* profiler = nullptr;
  CUpti_Profiler_Host_Object* host = nullptr;
  WorkMetrics metrics;
  std::vector<std::string> names;
  std::vector<const char*> name_ptrs;
  std::vector<uint8_t> config, data;
  bool started = false;
};

std::unique_ptr<WorkCounters> WorkCounters::create(CUcontext ctx, int device, size_t max_ranges, std::string* why) {
  std::unique_ptr<WorkCounters> c(new WorkCounters);
  c->s_ = std::make_unique<State>();
  State& s = *c->s_;
  try {
    CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    check(cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
    CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = size_t(device);
    check(cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");
    c->chip_ = chip.pChipName ? chip.pChipName : "";
    s.metrics = work_metrics_for_chip(c->chip_);
    if (s.metrics.tensor_ops.empty()) fail("no work metrics are listed for chip " + c->chip_);
    s.names = s.metrics.all();
    for (const auto& n : s.names) s.name_ptrs.push_back(n.c_str());

    CUpti_RangeProfiler_Enable_Params en{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    check(cuptiRangeProfilerEnable(&en), "cuptiRangeProfilerEnable");
    s.profiler = en.pRangeProfilerObject;

    CUpti_Profiler_GetCounterAvailability_Params avail{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    avail.ctx = ctx;
    check(cuptiProfilerGetCounterAvailability(&avail), "counter availability size");
    std::vector<uint8_t> image(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = image.data();
    check(cuptiProfilerGetCounterAvailability(&avail), "counter availability");

    CUpti_Profiler_Host_Initialize_Params hi{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip.pChipName;
    hi.pCounterAvailabilityImage = image.data();
    check(cuptiProfilerHostInitialize(&hi), "cuptiProfilerHostInitialize");
    s.host = hi.pHostObject;
    CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = s.host;
    add.ppMetricNames = s.name_ptrs.data();
    add.numMetrics = s.name_ptrs.size();
    check(cuptiProfilerHostConfigAddMetrics(&add), "adding the work metrics");
    CUpti_Profiler_Host_GetConfigImageSize_Params size{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    size.pHostObject = s.host;
    check(cuptiProfilerHostGetConfigImageSize(&size), "config image size");
    s.config.resize(size.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params cfg{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    cfg.pHostObject = s.host;
    cfg.configImageSize = s.config.size();
    cfg.pConfigImage = s.config.data();
    check(cuptiProfilerHostGetConfigImage(&cfg), "config image");

    CUpti_RangeProfiler_GetCounterDataSize_Params ds{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    ds.pRangeProfilerObject = s.profiler;
    ds.pMetricNames = s.name_ptrs.data();
    ds.numMetrics = s.name_ptrs.size();
    ds.maxNumOfRanges = max_ranges;
    ds.maxNumRangeTreeNodes = uint32_t(max_ranges);
    check(cuptiRangeProfilerGetCounterDataSize(&ds), "counter data size");
    s.data.resize(ds.counterDataSize);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params di{CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    di.pRangeProfilerObject = s.profiler;
    di.counterDataSize = s.data.size();
    di.pCounterData = s.data.data();
    check(cuptiRangeProfilerCounterDataImageInitialize(&di), "counter data image");

    // User ranges replayed by nobody: every metric must fit one pass, so no call runs twice.
    CUpti_RangeProfiler_SetConfig_Params set{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    set.pRangeProfilerObject = s.profiler;
    set.configSize = s.config.size();
    set.pConfig = s.config.data();
    set.counterDataImageSize = s.data.size();
    set.pCounterDataImage = s.data.data();
    set.range = CUPTI_UserRange;
    set.replayMode = CUPTI_UserReplay;
    set.maxRangesPerPass = max_ranges;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    check(cuptiRangeProfilerSetConfig(&set), "cuptiRangeProfilerSetConfig");
    return c;
  } catch (const Error& e) {
    if (why) *why = e.what();
    return nullptr;
  }
}

WorkCounters::~WorkCounters() {
  if (!s_) return;
  if (s_->started) {
    CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stop.pRangeProfilerObject = s_->profiler;
    cuptiRangeProfilerStop(&stop);
  }
  if (s_->profiler) {
    CUpti_RangeProfiler_Disable_Params dis{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    dis.pRangeProfilerObject = s_->profiler;
    cuptiRangeProfilerDisable(&dis);
  }
  if (s_->host) {
    CUpti_Profiler_Host_Deinitialize_Params d{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    d.pHostObject = s_->host;
    cuptiProfilerHostDeinitialize(&d);
  }
}

void WorkCounters::start() {
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params di{CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  di.pRangeProfilerObject = s_->profiler;
  di.counterDataSize = s_->data.size();
  di.pCounterData = s_->data.data();
  check(cuptiRangeProfilerCounterDataImageInitialize(&di), "counter data image");
  CUpti_RangeProfiler_Start_Params st{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  st.pRangeProfilerObject = s_->profiler;
  check(cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart");
  s_->started = true;
}

void WorkCounters::push(const std::string& range) {
  CUpti_RangeProfiler_PushRange_Params p{CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
  p.pRangeProfilerObject = s_->profiler;
  p.pRangeName = range.c_str();
  check(cuptiRangeProfilerPushRange(&p), "cuptiRangeProfilerPushRange");
}

void WorkCounters::pop() {
  CUpti_RangeProfiler_PopRange_Params p{CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
  p.pRangeProfilerObject = s_->profiler;
  check(cuptiRangeProfilerPopRange(&p), "cuptiRangeProfilerPopRange");
}

std::vector<CallWork> WorkCounters::stop() {
  CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  stop.pRangeProfilerObject = s_->profiler;
  check(cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
  s_->started = false;
  CUpti_RangeProfiler_DecodeData_Params dec{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  dec.pRangeProfilerObject = s_->profiler;
  check(cuptiRangeProfilerDecodeData(&dec), "cuptiRangeProfilerDecodeData");
  if (dec.numOfRangeDropped) fail("the range profiler dropped " + std::to_string(dec.numOfRangeDropped) + " ranges");
  CUpti_RangeProfiler_GetCounterDataInfo_Params info{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = s_->data.data();
  info.counterDataImageSize = s_->data.size();
  check(cuptiRangeProfilerGetCounterDataInfo(&info), "counter data info");
  std::vector<CallWork> out;
  std::vector<double> values(s_->names.size());
  for (size_t r = 0; r < info.numTotalRanges; ++r) {
    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri{CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
    ri.pCounterDataImage = s_->data.data();
    ri.counterDataImageSize = s_->data.size();
    ri.rangeIndex = r;
    ri.rangeDelimiter = "/";
    check(cuptiRangeProfilerCounterDataGetRangeInfo(&ri), "range info");
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
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
    size_t k = 0;
    for (size_t i = 0; i < s_->metrics.tensor_ops.size(); ++i) w.tensor_ops += values[k++];
    for (size_t i = 0; i < s_->metrics.tma_load_bytes.size(); ++i) w.tma_load_bytes += values[k++];
    for (size_t i = 0; i < s_->metrics.tma_store_bytes.size(); ++i) w.tma_store_bytes += values[k++];
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace ptxbench::integrity
