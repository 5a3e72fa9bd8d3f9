// Watches the GPU from inside the worker with CUPTI: API callbacks, module loads, activity records.
#include "runner/integrity/gpu_activity_monitor.h"

#include <cuda.h>
#include <cupti.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string_view>

#include "core/error.h"
#include "runner/integrity/api_rules.h"
#include "runner/integrity/stream_argument.h"
#include "runner/integrity/tensor_map_capture.h"
#include "runner/integrity/tensor_maps.h"

namespace ptxbench {

struct GpuActivityMonitor::State {
  mutable std::mutex mu;
  Observations obs;
  std::vector<CubinImage> images;
  cudaStream_t given_stream = nullptr;
  CUpti_SubscriberHandle subscriber = nullptr;
  // The call in progress on the harness's thread (the harness makes its calls from one thread; a
  // call on any other thread once the candidate began loading is Actor::candidate_thread).
  Actor actor = Actor::harness;
  int call = -1;
  bool counted = false;
  bool candidate_loaded = false;  // since the candidate's library began loading (it stays loaded)
  decltype(&cuFuncGetName) func_name = nullptr;
  decltype(&cuStreamIsCapturing) is_capturing = nullptr;
  decltype(&cuKernelGetName) kernel_name = nullptr;
  decltype(&cuFuncGetParamInfo) func_param_info = nullptr;
  decltype(&cuKernelGetParamInfo) kernel_param_info = nullptr;
  // Tensor maps the candidate encoded and the kernels they were given to (tensor_maps.h).
  TensorMapTable maps;
  std::map<const void*, std::pair<std::vector<size_t>, std::vector<size_t>>> param_layouts;  // offsets, sizes
  std::set<std::string> candidate_functions;   // of modules byte-identical to the candidate's cubins
  std::atomic<uint64_t> map_and_stream_ns{0};  // host time the tensor-map and stream bookkeeping took
  bool kernel_records_paused = false;          // a counted call (and the harness's work around it) runs
};

namespace {

GpuActivityMonitor* g_monitor = nullptr;
GpuActivityMonitor::State* g_state = nullptr;

thread_local int t_runtime_depth = 0;              // runtime API calls in progress on this thread
thread_local const char* t_runtime_api = nullptr;  // the outermost one
thread_local int t_driver_depth = 0;               // driver API calls in progress on this thread
thread_local const char* t_driver_api = nullptr;   // the outermost one
thread_local bool t_in_callback = false;
thread_local bool t_harness_thread = false;  // the thread that started the monitor: the harness's
thread_local int t_harness_creates = 0;      // HarnessStreamScope depth on this thread

// Whose code runs on this thread, and in which call (the state is read under its lock).
struct Here {
  Actor actor = Actor::harness;
  int call = -1;
  bool counted = false, paused = false, loaded = false;
};

Here here(const GpuActivityMonitor::State& st) {
  std::lock_guard<std::mutex> lock(st.mu);
  Here h;
  h.paused = st.kernel_records_paused, h.loaded = st.candidate_loaded;
  if (t_harness_thread) h.actor = st.actor, h.call = st.call, h.counted = st.counted;
  else if (st.candidate_loaded) h.actor = Actor::candidate_thread;  // a thread the candidate started
  return h;
}

void check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* msg = nullptr;
  cuptiGetResultString(r, &msg);
  fail(std::string("CUPTI: ") + what + " failed: " + (msg ? msg : "unknown error"));
}

constexpr size_t kBufferBytes = 8u << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = kBufferBytes;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::vector<DeviceWork> batch;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    DeviceWork w;
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      w.kind = DeviceWork::Kind::kernel;
      w.correlation = k->correlationId, w.stream = k->streamId, w.start = k->start, w.end = k->end;
      w.context = k->contextId;
      w.name = k->name ? k->name : "";
      w.graph = k->graphId != 0;
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      w.kind = DeviceWork::Kind::memcpy;
      w.correlation = m->correlationId, w.stream = m->streamId, w.start = m->start, w.end = m->end;
      w.context = m->contextId;
      w.graph = m->graphId != 0;
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY2) {  // peer copies: their stream can be any
      auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
      w.kind = DeviceWork::Kind::memcpy;
      w.correlation = m->correlationId, w.stream = m->streamId, w.start = m->start, w.end = m->end;
      w.context = m->contextId;
      w.graph = m->graphId != 0;
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      w.kind = DeviceWork::Kind::memset;
      w.correlation = m->correlationId, w.stream = m->streamId, w.start = m->start, w.end = m->end;
      w.context = m->contextId;
      w.graph = m->graphId != 0;
    } else {
      continue;
    }
    batch.push_back(std::move(w));
  }
  std::free(buffer);
  if (g_state) {
    std::lock_guard<std::mutex> lock(g_state->mu);
    auto& work = g_state->obs.work;
    work.insert(work.end(), std::make_move_iterator(batch.begin()), std::make_move_iterator(batch.end()));
  }
}

bool is_entry_point_query(const char* runtime_api) {
  return runtime_api && std::string_view(runtime_api).starts_with("cudaGetDriverEntryPoint");
}

void on_module_loaded(GpuActivityMonitor::State& st, const CUpti_ResourceData* rd) {
  const Here h = here(st);
  auto* m = static_cast<const CUpti_ModuleResourceData*>(rd->resourceDescriptor);
  LoadedModule lm;
  lm.id = m->moduleId;
  lm.bytes = m->cubinSize;
  const std::string_view image(m->pCubin ? m->pCubin : "", m->pCubin ? m->cubinSize : 0);
  try {
    lm.functions = cubin_functions(image);
  } catch (const Error&) {
    // Not an ELF image the parser knows: no names (kernels from it are then nobody's own).
  }
  std::lock_guard<std::mutex> lock(st.mu);
  lm.actor = h.actor, lm.call = h.call;
  for (const auto& c : st.images) lm.candidate_image = lm.candidate_image || c.matches(image);
  if (lm.candidate_image) st.candidate_functions.insert(lm.functions.begin(), lm.functions.end());
  st.obs.modules.push_back(std::move(lm));
}

void record_api_event(GpuActivityMonitor::State& st, const Here& h, std::string api, bool refused) {
  std::lock_guard<std::mutex> lock(st.mu);
  st.obs.api_events.push_back({h.actor, h.call, std::move(api), refused});
}

// The kernel and stream a launch names (single-kernel launches only).
void launch_target(const CUpti_CallbackData* cd, CUfunction* f, CUstream* stream, bool* known) {
  const std::string base = api_base_name(cd->functionName);
  *known = true;
  if (base == "cuLaunchKernel" || base == "cuLaunchCooperativeKernel") {
    auto* p = static_cast<const cuLaunchKernel_params*>(cd->functionParams);  // same leading layout
    *f = p->f, *stream = p->hStream;
  } else if (base == "cuLaunchKernelEx") {
    auto* p = static_cast<const cuLaunchKernelEx_params*>(cd->functionParams);
    *f = p->f, *stream = p->config ? p->config->hStream : nullptr;
  } else if (base == "cuGraphLaunch") {
    auto* p = static_cast<const cuGraphLaunch_params*>(cd->functionParams);
    *f = nullptr, *stream = p->hStream;
  } else {
    *known = false;
  }
}

// The mangled name of a launched kernel; the runtime launches through CUkernel handles (lazy
// loading) passed as CUfunction. Called with t_in_callback set (the queries are driver calls).
std::string kernel_name_of(const GpuActivityMonitor::State& st, CUfunction f) {
  const char* name = nullptr;
  if (f && st.func_name && st.func_name(&name, f) == CUDA_SUCCESS && name) return name;
  if (f && st.kernel_name && st.kernel_name(&name, reinterpret_cast<CUkernel>(f)) == CUDA_SUCCESS && name) return name;
  return "";
}

// The kernel's parameter offsets and sizes (cached per handle; the runtime passes CUkernel
// handles as CUfunction, so the kernel's query is tried second). Called with t_in_callback set.
const std::pair<std::vector<size_t>, std::vector<size_t>>& param_layout(GpuActivityMonitor::State& st, CUfunction f) {
  {
    std::lock_guard<std::mutex> lock(st.mu);
    if (auto it = st.param_layouts.find(f); it != st.param_layouts.end()) return it->second;
  }
  std::pair<std::vector<size_t>, std::vector<size_t>> layout;
  for (size_t i = 0; i < 4096; ++i) {
    size_t offset = 0, size = 0;
    if (st.func_param_info && st.func_param_info(f, i, &offset, &size) == CUDA_SUCCESS) {
    } else if (st.kernel_param_info &&
               st.kernel_param_info(reinterpret_cast<CUkernel>(f), i, &offset, &size) == CUDA_SUCCESS) {
    } else {
      break;
    }
    layout.first.push_back(offset), layout.second.push_back(size);
  }
  std::lock_guard<std::mutex> lock(st.mu);
  return st.param_layouts.emplace(f, std::move(layout)).first->second;
}

// A candidate's launch: which of the maps it encoded the kernel was given.
void note_kernel_maps(GpuActivityMonitor::State& st, const CUpti_CallbackData* cd, CUfunction f,
                      const std::string& function) {
  if (!f || function.empty()) return;
  const auto& [offsets, sizes] = param_layout(st, f);
  const auto blobs = map_sized_parameters(cd->functionName, cd->functionParams, offsets, sizes);
  if (blobs.empty()) return;
  std::lock_guard<std::mutex> lock(st.mu);
  st.maps.launched(function, blobs);
}

thread_local std::optional<MapBox> t_replaced_box;  // the box of the map cuTensorMapReplaceAddress changes

// Tensor maps encoded (or re-addressed) by the candidate, at the call's exit.
void note_encoded_map(GpuActivityMonitor::State& st, const CUpti_CallbackData* cd) {
  if (cd->functionReturnValue && *static_cast<const CUresult*>(cd->functionReturnValue) != CUDA_SUCCESS) return;
  const auto view = [](const CUtensorMap* m) {
    return std::string_view(reinterpret_cast<const char*>(m), kTensorMapBytes);
  };
  if (auto e = encoded_map(cd->functionName, cd->functionParams); e && e->map && e->box_bytes) {
    std::lock_guard<std::mutex> lock(st.mu);
    st.maps.encoded(view(e->map), MapBox{*e->box_bytes, e->full_box_bytes.value_or(*e->box_bytes)});
  } else if (const CUtensorMap* m = replaced_map(cd->functionName, cd->functionParams); m && t_replaced_box) {
    std::lock_guard<std::mutex> lock(st.mu);
    st.maps.encoded(view(m), *t_replaced_box);
  }
}

void on_driver_api(GpuActivityMonitor::State& st, CUpti_CallbackId cbid, const CUpti_CallbackData* cd) {
  const Here h = here(st);
  const Actor actor = h.actor;
  const int call = h.call;
  const bool counted = h.counted, paused = h.paused;
  const bool candidate = is_candidate(actor);
  const bool top_level = t_runtime_depth == 0;
  if (cd->callbackSite == CUPTI_API_ENTER) {
    if (candidate && !(cd->functionName && std::string_view(cd->functionName).starts_with("cuGetProcAddress"))) {
      if (auto why = forbidden_api_reason(cd->functionName, top_level); !why.empty())
        record_api_event(st, h, std::string(cd->functionName) + " (" + why + ")", false);
      else if (graph_node_is_host(cd->functionName ? cd->functionName : "", cd->functionParams))
        record_api_event(st, h, std::string(cd->functionName) + " (a host node: host code run after the call returns)",
                         false);
    }
    const auto t0 = std::chrono::steady_clock::now();
    std::optional<CUstream> named_stream;
    if (candidate) {
      named_stream = stream_argument(cbid, cd->functionName, cd->functionParams);
      if (const CUtensorMap* m =
              is_tensor_map_call(cbid) ? replaced_map(cd->functionName, cd->functionParams) : nullptr) {
        std::lock_guard<std::mutex> lock(st.mu);
        t_replaced_box = st.maps.box_of(std::string_view(reinterpret_cast<const char*>(m), kTensorMapBytes));
      }
    }
    const bool off_stream = named_stream && *named_stream != reinterpret_cast<CUstream>(st.given_stream);
    if (candidate)
      st.map_and_stream_ns +=
          uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
    if (!enqueues_gpu_work(cd->functionName)) {
      if (off_stream) {  // no work record of its own may ever come (a prefetch): judged at the call
        Launch l;
        l.correlation = cd->correlationId, l.actor = actor, l.call = call, l.api = cd->functionName,
        l.on_given_stream = false;
        std::lock_guard<std::mutex> lock(st.mu);
        st.obs.launches.push_back(std::move(l));
      }
      return;
    }
    Launch l;
    l.correlation = cd->correlationId;
    // No kernel record comes while they are paused: the harness's launches around a counted timed
    // sample too (its inputs are enqueued after counting starts, timing.cpp).
    l.actor = actor, l.call = call, l.counted = (counted && actor == Actor::candidate_call) || paused;
    l.api = cd->functionName;
    l.kernel_launch = is_kernel_launch(cd->functionName);
    CUfunction f = nullptr;
    CUstream stream = nullptr;
    bool known = false;
    launch_target(cd, &f, &stream, &known);
    t_in_callback = true;  // the queries below are driver calls themselves: do not recurse
    if (l.kernel_launch && st.is_capturing) {
      // A launch into a stream being captured runs nothing now: its kernel runs (and is
      // recorded) when the graph is launched, under that launch's correlation.
      CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
      if (st.is_capturing(stream, &capture) == CUDA_SUCCESS && capture != CU_STREAM_CAPTURE_STATUS_NONE)
        l.kernel_launch = false, l.captured = true;
    }
    if (candidate) {
      if (known) l.on_given_stream = stream == reinterpret_cast<CUstream>(st.given_stream);
      if (named_stream) l.on_given_stream = !off_stream;
      l.function = kernel_name_of(st, f);
    }
    t_in_callback = false;
    std::lock_guard<std::mutex> lock(st.mu);
    st.obs.launches.push_back(std::move(l));
    return;
  }
  if (candidate) {
    // After the call: an encoded map is written, and a launched kernel's module is loaded.
    const auto t0 = std::chrono::steady_clock::now();
    if (is_tensor_map_call(cbid)) note_encoded_map(st, cd);
    if (is_kernel_launch_call(cbid)) {
      CUfunction f = nullptr;
      CUstream stream = nullptr;
      bool known = false;
      launch_target(cd, &f, &stream, &known);
      t_in_callback = true;
      note_kernel_maps(st, cd, f, kernel_name_of(st, f));
      t_in_callback = false;
    }
    st.map_and_stream_ns +=
        uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  }
  // Exit: a driver entry point asked for by the candidate resolves only when allowed.
  if (candidate && cd->functionName && std::string_view(cd->functionName).starts_with("cuGetProcAddress") &&
      (top_level || is_entry_point_query(t_runtime_api))) {
    auto* p = static_cast<const cuGetProcAddress_v2_params*>(cd->functionParams);
    const std::string symbol = p->symbol ? p->symbol : "";
    if (!entry_point_allowed(symbol)) {
      if (p->pfn) *p->pfn = nullptr;
      if (cd->functionReturnValue) *static_cast<CUresult*>(cd->functionReturnValue) = CUDA_ERROR_NOT_FOUND;
      record_api_event(st, h, "driver entry point " + symbol + " (not on the allowlist: answered not found)", true);
    }
  }
}

void on_runtime_api(GpuActivityMonitor::State& st, const CUpti_CallbackData* cd) {
  if (cd->callbackSite == CUPTI_API_ENTER) {
    if (t_runtime_depth++ == 0) t_runtime_api = cd->functionName;
    if (t_runtime_depth != 1) return;
    const Here h = here(st);
    if (is_candidate(h.actor))
      if (auto why = forbidden_api_reason(cd->functionName, true); !why.empty())
        record_api_event(st, h, std::string(cd->functionName) + " (" + why + ")", false);
  } else {
    if (--t_runtime_depth == 0) t_runtime_api = nullptr;
    if (t_runtime_depth < 0) t_runtime_depth = 0;
  }
}

// A stream or context came into being (however it was made: the runtime, the driver, an entry
// point, a thread of the candidate's own). Kept once the candidate began loading, with whose code
// ran on the creating thread and whether the harness marked the section as creating its own.
void on_stream_created(GpuActivityMonitor::State& st, const CUpti_ResourceData* rd, bool context) {
  const Here h = here(st);
  if (!h.loaded) return;  // before the load: only the harness's code is in the process
  CreatedStream c;
  c.actor = h.actor, c.call = h.call, c.harness_thread = t_harness_thread, c.context = context;
  // A baseline sample is the harness's library at work: a stream it creates is the harness's.
  c.marked = t_harness_thread && (t_harness_creates > 0 || h.actor == Actor::baseline);
  const char* api = t_driver_api ? t_driver_api : t_runtime_api;
  c.api = api ? api : "";
  if (!context && rd) {
    uint32_t id = 0;
    if (cuptiGetStreamIdEx(rd->context, rd->resourceHandle.stream, 0, &id) == CUPTI_SUCCESS) c.stream = id;
    if (rd->context && cuptiGetContextId(rd->context, &id) == CUPTI_SUCCESS) c.stream_context = id;
  }
  std::lock_guard<std::mutex> lock(st.mu);
  st.obs.created.push_back(std::move(c));
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  GpuActivityMonitor::State* st = g_state;
  if (!st) return;
  // A module loaded by a driver query the callback itself makes (a kernel's parameter layout loads
  // it under lazy loading) is still the candidate's module: resource events are never dropped.
  if (t_in_callback && domain != CUPTI_CB_DOMAIN_RESOURCE) return;
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    auto* rd = static_cast<const CUpti_ResourceData*>(data);
    if (id == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
      on_module_loaded(*st, rd);
    } else if (id == CUPTI_CBID_RESOURCE_STREAM_CREATED || id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
      on_stream_created(*st, rd, id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    }
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    // Which driver call is in progress on this thread (a stream created inside it names it).
    auto* cd = static_cast<const CUpti_CallbackData*>(data);
    if (cd->callbackSite == CUPTI_API_ENTER) {
      if (t_driver_depth++ == 0) t_driver_api = cd->functionName;
    }
    on_driver_api(*st, id, cd);
    if (cd->callbackSite == CUPTI_API_EXIT && t_driver_depth > 0 && --t_driver_depth == 0) t_driver_api = nullptr;
  } else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    on_runtime_api(*st, static_cast<const CUpti_CallbackData*>(data));
  }
}

// A driver function the monitor itself calls (null where this driver lacks it).
template <typename Fn>
Fn driver_entry(const char* name, int version) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &found) == cudaSuccess &&
      found == cudaDriverEntryPointSuccess)
    return reinterpret_cast<Fn>(fn);
  return nullptr;
}

}  // namespace

GpuActivityMonitor::GpuActivityMonitor(cudaStream_t given_stream) : state_(std::make_unique<State>()) {
  state_->given_stream = given_stream;
  t_harness_thread = true;  // started by the worker's main thread, which makes every call of the harness's
  g_state = state_.get();
  state_->func_name = driver_entry<decltype(&cuFuncGetName)>("cuFuncGetName", 12030);
  state_->kernel_name = driver_entry<decltype(&cuKernelGetName)>("cuKernelGetName", 12030);
  state_->is_capturing = driver_entry<decltype(&cuStreamIsCapturing)>("cuStreamIsCapturing", 10000);
  state_->func_param_info = driver_entry<decltype(&cuFuncGetParamInfo)>("cuFuncGetParamInfo", 12040);
  state_->kernel_param_info = driver_entry<decltype(&cuKernelGetParamInfo)>("cuKernelGetParamInfo", 12040);
  check(cuptiSubscribe(&state_->subscriber, on_callback, nullptr), "cuptiSubscribe");
  check(cuptiEnableDomain(1, state_->subscriber, CUPTI_CB_DOMAIN_RESOURCE), "enabling resource callbacks");
  check(cuptiEnableDomain(1, state_->subscriber, CUPTI_CB_DOMAIN_DRIVER_API), "enabling driver API callbacks");
  check(cuptiEnableDomain(1, state_->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API), "enabling runtime API callbacks");
  check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks");
  // Every kind of work record whose stream can be another than the given one. Work that leaves no
  // record (a prefetch, a stream wait, an event) is judged at its call by its stream argument.
  for (auto kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
                    CUPTI_ACTIVITY_KIND_MEMSET})
    check(cuptiActivityEnable(kind), "cuptiActivityEnable");
  uint32_t id = 0;
  check(cuptiGetStreamIdEx(nullptr, given_stream, 0, &id), "cuptiGetStreamIdEx");
  state_->obs.candidate_stream = id;
  // The stream's context: stream ids are compared within it (0 where it cannot be read).
  if (auto stream_ctx = driver_entry<decltype(&cuStreamGetCtx)>("cuStreamGetCtx", 9020)) {
    CUcontext ctx = nullptr;
    t_in_callback = true;  // the monitor's own query: no callback of it is kept
    if (stream_ctx(reinterpret_cast<CUstream>(given_stream), &ctx) == CUDA_SUCCESS && ctx &&
        cuptiGetContextId(ctx, &id) == CUPTI_SUCCESS)
      state_->obs.candidate_context = id;
    t_in_callback = false;
  }
  state_->obs.active = true;
}

GpuActivityMonitor& GpuActivityMonitor::start(cudaStream_t given_stream) {
  if (!g_monitor) g_monitor = new GpuActivityMonitor(given_stream);  // lives until the process ends
  return *g_monitor;
}

GpuActivityMonitor* GpuActivityMonitor::instance() { return g_monitor; }

void GpuActivityMonitor::expect_candidate_images(std::vector<CubinImage> images) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->images = std::move(images);
}

int GpuActivityMonitor::begin_call(Actor actor, const std::string& what, const std::string& shape, bool counted) {
  std::lock_guard<std::mutex> lock(state_->mu);
  const int index = static_cast<int>(state_->obs.calls.size());
  state_->obs.calls.push_back({index, actor, what, shape, counted, {}});
  state_->actor = actor, state_->call = index, state_->counted = counted;
  if (actor == Actor::candidate_load) state_->candidate_loaded = true;
  return index;
}

void GpuActivityMonitor::end_call() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->actor = Actor::harness, state_->call = -1, state_->counted = false;
}

int GpuActivityMonitor::last_call() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return static_cast<int>(state_->obs.calls.size()) - 1;
}

void GpuActivityMonitor::record_counted_kernels(int call, std::vector<std::string> kernels) {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (call >= 0 && call < static_cast<int>(state_->obs.calls.size()))
    state_->obs.calls[call].counted_kernels = std::move(kernels);
}

void GpuActivityMonitor::record_earlier_counted_call(std::string shape, std::vector<std::string> kernels) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->obs.earlier_counted.push_back({std::move(shape), std::move(kernels)});
}

void GpuActivityMonitor::pause_kernel_records() {
  flush();
  check(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "pausing kernel records");
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->kernel_records_paused = true;
}

void GpuActivityMonitor::resume_kernel_records() {
  check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "resuming kernel records");
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->kernel_records_paused = false;
}

void GpuActivityMonitor::flush() {
  check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS && dropped) {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->obs.dropped_records += dropped;
  }
}

std::optional<KernelMaps> GpuActivityMonitor::tensor_maps_of(const std::string& function) const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->maps.maps_of(function);
}

double GpuActivityMonitor::tma_box_fill() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->maps.min_fill();
}

bool GpuActivityMonitor::is_candidate_function(const std::string& function) const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->candidate_functions.count(function) > 0;
}

bool GpuActivityMonitor::knows_candidate_functions() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return !state_->candidate_functions.empty();
}

double GpuActivityMonitor::map_and_stream_seconds() const { return double(state_->map_and_stream_ns.load()) * 1e-9; }

Observations GpuActivityMonitor::observations() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->obs;
}

CallScope::CallScope(Actor actor, const std::string& what, const std::string& shape, bool counted) {
  if (auto* m = GpuActivityMonitor::instance()) {
    m->begin_call(actor, what, shape, counted);
    active_ = true;
  }
}

CallScope::~CallScope() {
  if (active_) GpuActivityMonitor::instance()->end_call();
}

HarnessStreamScope::HarnessStreamScope() { ++t_harness_creates; }
HarnessStreamScope::~HarnessStreamScope() { --t_harness_creates; }

}  // namespace ptxbench
