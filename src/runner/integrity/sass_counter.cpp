// Counts a call's executed SASS instructions in the worker through CUPTI's SASS metrics.
#include "runner/integrity/sass_counter.h"

#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_pcsampling.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <cstdlib>

#include "core/error.h"
#include "runner/integrity/cupti_check.h"
#include "runner/integrity/cupti_params.h"

namespace ptxbench {
namespace {

void sass_check(CUptiResult r, const char* what) { cupti_check(r, "CUPTI SASS metrics", what); }

CUcontext sass_current_context() {
  static auto get = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 4000, cudaEnableDefault, &found);
    return reinterpret_cast<decltype(&cuCtxGetCurrent)>(fn);
  }();
  CUcontext ctx = nullptr;
  if (get) get(&ctx);
  return ctx;
}

}  // namespace

std::unique_ptr<SassCounter> SassCounter::create(int device, std::string* why) {
  try {
    auto init = cupti_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    sass_check(cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
    auto sup = cupti_params<CUpti_Profiler_DeviceSupported_Params>(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
    sup.cuDevice = device;
    sup.api = CUPTI_PROFILER_SASS_METRICS;
    sass_check(cuptiProfilerDeviceSupported(&sup), "cuptiProfilerDeviceSupported");
    if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
      fail("SASS metrics are not supported on this device (architecture " + std::to_string(sup.architecture) +
           ", vGPU " + std::to_string(sup.vGpu) + ", confidential compute " + std::to_string(sup.confidentialCompute) +
           ")");
    auto chip = cupti_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    chip.deviceIndex = device;
    sass_check(cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");
    auto prop =
        cupti_params<CUpti_SassMetrics_GetProperties_Params>(CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE);
    prop.pChipName = chip.pChipName;
    prop.pMetricName = "smsp__sass_inst_executed";
    sass_check(cuptiSassMetricsGetProperties(&prop), "looking up smsp__sass_inst_executed");
    std::unique_ptr<SassCounter> c(new SassCounter);
    c->device_ = device;
    c->metric_id_ = prop.metric.metricId;
    CUpti_SassMetrics_Config config{c->metric_id_, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU};
    auto set = cupti_params<CUpti_SassMetricsSetConfig_Params>(CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE);
    set.pConfigs = &config;
    set.numOfMetricConfig = 1;
    set.deviceIndex = device;
    sass_check(cuptiSassMetricsSetConfig(&set), "cuptiSassMetricsSetConfig");
    return c;
  } catch (const Error& e) {
    if (why) *why = e.what();
    return nullptr;
  }
}

SassCounter::~SassCounter() {
  if (enabled_) {
    auto dis = cupti_params<CUpti_SassMetricsDisable_Params>(CUpti_SassMetricsDisable_Params_STRUCT_SIZE);
    dis.ctx = sass_current_context();
    cuptiSassMetricsDisable(&dis);
  }
  auto unset = cupti_params<CUpti_SassMetricsUnsetConfig_Params>(CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE);
  unset.deviceIndex = device_;
  cuptiSassMetricsUnsetConfig(&unset);
}

void SassCounter::begin() {
  auto en = cupti_params<CUpti_SassMetricsEnable_Params>(CUpti_SassMetricsEnable_Params_STRUCT_SIZE);
  en.ctx = sass_current_context();
  // Each kernel is patched at its first launch in the range. Patching every loaded function at the
  // enable instead (0) would hide that launch's extra latency, but on the H200 it failed with
  // CUPTI_ERROR_INVALID_PARAMETER once cuBLASLt's kernels were loaded (gemm; the attention problems,
  // with cuDNN's, counted), so the launch-latency tell stays open (docs/anti-cheat.md).
  en.enableLazyPatching = 1;
  sass_check(cuptiSassMetricsEnable(&en), "cuptiSassMetricsEnable");
  enabled_ = true;
}

std::vector<ExecutedInstruction> SassCounter::end() {
  CUcontext ctx = sass_current_context();
  std::vector<ExecutedInstruction> out;
  auto props =
      cupti_params<CUpti_SassMetricsGetDataProperties_Params>(CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE);
  props.ctx = ctx;
  sass_check(cuptiSassMetricsGetDataProperties(&props), "cuptiSassMetricsGetDataProperties");
  if (props.numOfPatchedInstructionRecords && props.numOfInstances) {
    std::vector<CUpti_SassMetrics_Data> data(props.numOfPatchedInstructionRecords);
    std::vector<CUpti_SassMetrics_InstanceValue> values(data.size() * props.numOfInstances);
    for (size_t i = 0; i < data.size(); ++i) {
      data[i].structSize = sizeof(CUpti_SassMetrics_Data);
      data[i].pInstanceValues = &values[i * props.numOfInstances];
    }
    auto flush = cupti_params<CUpti_SassMetricsFlushData_Params>(CUpti_SassMetricsFlushData_Params_STRUCT_SIZE);
    flush.ctx = ctx;
    flush.numOfPatchedInstructionRecords = props.numOfPatchedInstructionRecords;
    flush.numOfInstances = props.numOfInstances;
    flush.pMetricsData = data.data();
    sass_check(cuptiSassMetricsFlushData(&flush), "cuptiSassMetricsFlushData");
    out.reserve(data.size());
    for (const auto& d : data) {
      uint64_t n = 0;
      for (size_t k = 0; k < props.numOfInstances; ++k)
        if (d.pInstanceValues[k].metricId == metric_id_) n += d.pInstanceValues[k].value;
      out.push_back({d.functionName ? d.functionName : "", d.pcOffset, n, d.cubinCrc});
      std::free(const_cast<char*>(d.functionName));  // CUPTI allocates the names; the caller frees them
    }
  }
  auto dis = cupti_params<CUpti_SassMetricsDisable_Params>(CUpti_SassMetricsDisable_Params_STRUCT_SIZE);
  dis.ctx = ctx;
  sass_check(cuptiSassMetricsDisable(&dis), "cuptiSassMetricsDisable");
  enabled_ = false;
  return out;
}

uint32_t cubin_crc(const std::string& cubin) {
  CUpti_GetCubinCrcParams p{};
  p.size = CUpti_GetCubinCrcParamsSize;
  p.cubinSize = cubin.size();
  p.cubin = cubin.data();
  if (cubin.empty() || cuptiGetCubinCrc(&p) != CUPTI_SUCCESS) return 0;
  return uint32_t(p.cubinCrc);
}

}  // namespace ptxbench
