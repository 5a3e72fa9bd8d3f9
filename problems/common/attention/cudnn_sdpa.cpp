// cuDNN SDPA through the frontend graph API, with cuDNN loaded at run time
// (NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING is set for this file by src/runner/CMakeLists.txt).
#include "common/attention/cudnn_sdpa.h"
#include "common/attention/fused_attention_check.h"

#include <dlfcn.h>
#include <glob.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <tuple>

#include <cudnn_frontend.h>

#include "core/error.h"
#include "runner/launched_kernels.h"

// The frontend finds every cuDNN entry point through this handle.
namespace cudnn_frontend {
void* cudnn_dlhandle = nullptr;
}

namespace ptxbench::attention {
namespace fe = cudnn_frontend;

namespace {

enum Uid : int64_t { kQ = 1, kK, kV, kO, kStats, kDO, kDQ, kDK, kDV };

// Where libcudnn.so.9 may be: $PTXBENCH_CUDNN_LIB (a file), the loader's own search (LD_LIBRARY_PATH,
// ldconfig), the one found when this was built, the CUDA toolkit, the distribution's lib dir,
// and PyPI's nvidia-cudnn wheels (e.g. beside PyTorch). It pulls its sub-libraries from its own dir.
std::vector<std::string> cudnn_candidates() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("PTXBENCH_CUDNN_LIB"); env && *env) out.push_back(env);
  out.push_back("libcudnn.so.9");
#ifdef PTXBENCH_CUDNN_LIBRARY
  out.push_back(PTXBENCH_CUDNN_LIBRARY);
#endif
  for (const char* p : {"/usr/local/cuda/lib64/libcudnn.so.9", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9"})
    out.push_back(p);
  for (const char* pattern : {"/opt/*/.venv/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9",
                              "/opt/*/.venv/lib/python3*/site-packages/nvidia/cu13/lib/libcudnn.so.9",
                              "/usr/local/lib/python3*/dist-packages/nvidia/cudnn/lib/libcudnn.so.9",
                              "/usr/local/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9"}) {
    glob_t g{};
    if (glob(pattern, 0, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i) out.push_back(g.gl_pathv[i]);
    globfree(&g);
  }
  return out;
}

std::string load_cudnn() {
  // The frontend also opens the CUDA runtime by name; make it pick the one this process uses.
  setenv("CUDNN_FRONTEND_CUDART_LIB_NAME", ("libcudart.so." + std::to_string(CUDART_VERSION / 1000)).c_str(), 0);
  std::string tried;
  for (const auto& path : cudnn_candidates()) {
    if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
      fe::cudnn_dlhandle = h;
      return path;
    }
    const char* why = dlerror();
    tried += "\n  " + path + ": " + (why ? why : "not loadable");
  }
  fail("cuDNN (libcudnn.so.9) not found; set PTXBENCH_CUDNN_LIB to its path. Tried:" + tried);
}

void check(fe::error_t e, const std::string& what) {
  if (!e.is_good()) fail("cuDNN frontend: " + what + ": " + e.get_message());
}

// A [B, heads, S, D] tensor (heads = H for Q, O, dO; the key/value heads for K and V).
std::shared_ptr<fe::graph::Tensor_attributes> bhsd(fe::graph::Graph& g, const char* name, int64_t uid,
                                                   const SdpaShape& s, int heads) {
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name(name)
                      .set_uid(uid)
                      .set_dim({s.B, heads, s.S, s.D})
                      .set_stride({int64_t(heads) * s.S * s.D, int64_t(s.S) * s.D, s.D, 1}));
}
std::shared_ptr<fe::graph::Tensor_attributes> stats(fe::graph::Graph& g, const SdpaShape& s) {
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name("Stats")
                      .set_uid(kStats)
                      .set_dim({s.B, s.H, s.S, 1})
                      .set_stride({int64_t(s.H) * s.S, s.S, 1, 1})
                      .set_data_type(fe::DataType_t::FLOAT));
}
void mark_output(const std::shared_ptr<fe::graph::Tensor_attributes>& t, int64_t uid, const SdpaShape& s, int heads) {
  t->set_output(true)
      .set_uid(uid)
      .set_dim({s.B, heads, s.S, s.D})
      .set_stride({int64_t(heads) * s.S * s.D, int64_t(s.S) * s.D, s.D, 1});
}

std::shared_ptr<fe::graph::Graph> new_graph() {
  auto g = std::make_shared<fe::graph::Graph>();
  g->set_io_data_type(fe::DataType_t::BFLOAT16)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  return g;
}

std::shared_ptr<fe::graph::Graph> forward_graph(const SdpaShape& s) {
  auto g = new_graph();
  auto q = bhsd(*g, "Q", kQ, s, s.H), k = bhsd(*g, "K", kK, s, s.kv_heads()), v = bhsd(*g, "V", kV, s, s.kv_heads());
  auto opt = fe::graph::SDPA_attributes()
                 .set_name("sdpa_forward")
                 .set_generate_stats(true)
                 .set_attn_scale(1.0f / std::sqrt(float(s.D)));
  if (s.causal) opt.set_diagonal_alignment(fe::DiagonalAlignment_t::TOP_LEFT).set_diagonal_band_right_bound(0);
  auto [o, lse] = g->sdpa(q, k, v, opt);
  mark_output(o, kO, s, s.H);
  lse->set_output(true)
      .set_uid(kStats)
      .set_data_type(fe::DataType_t::FLOAT)
      .set_dim({s.B, s.H, s.S, 1})
      .set_stride({int64_t(s.H) * s.S, s.S, 1, 1});
  return g;
}

std::shared_ptr<fe::graph::Graph> backward_graph(const SdpaShape& s) {
  auto g = new_graph();
  auto q = bhsd(*g, "Q", kQ, s, s.H), k = bhsd(*g, "K", kK, s, s.kv_heads()), v = bhsd(*g, "V", kV, s, s.kv_heads());
  auto o = bhsd(*g, "O", kO, s, s.H), d_o = bhsd(*g, "dO", kDO, s, s.H);
  auto lse = stats(*g, s);
  auto opt =
      fe::graph::SDPA_backward_attributes().set_name("sdpa_backward").set_attn_scale(1.0f / std::sqrt(float(s.D)));
  if (s.causal) opt.set_diagonal_alignment(fe::DiagonalAlignment_t::TOP_LEFT).set_diagonal_band_right_bound(0);
  auto [dq, dk, dv] = g->sdpa_backward(q, k, v, o, d_o, lse, opt);
  mark_output(dq, kDQ, s, s.H);
  mark_output(dk, kDK, s, s.kv_heads());  // dK and dV sum over the query heads of each group
  mark_output(dv, kDV, s, s.kv_heads());
  return g;
}

std::string label(bool backward, const SdpaShape& s) {
  return std::string(backward ? "bwd" : "fwd") + " B=" + std::to_string(s.B) + " H=" + std::to_string(s.H) +
         (s.kv_heads() != s.H ? " Hkv=" + std::to_string(s.kv_heads()) : "") + " S=" + std::to_string(s.S) +
         " D=" + std::to_string(s.D) + (s.causal ? " causal" : "");
}

// The baseline must be cuDNN's fused flash-attention engine, not a decomposition into GEMMs and a
// softmax that materialises the S x S scores.
void require_fused_attention(const std::string& label, const std::string& plan, const std::vector<std::string>& kernels,
                             bool grouped) {
  const std::string why = why_not_fused_attention(kernels, grouped);
  if (why.empty()) return;
  std::string listed;
  for (const auto& k : kernels) listed += "\n  " + k;
  fail("cuDNN did not choose a fused flash-attention engine for " + label + " (plan " + plan + "): " + why +
       ". Kernels:" + listed);
}

struct Built {
  std::shared_ptr<fe::graph::Graph> graph;
  int64_t workspace = 0;
  std::string label, plan;
  bool grouped = false;              // K/V have fewer heads than Q
  std::vector<std::string> kernels;  // filled on the first execution
  bool inspected = false;
  double build_seconds = 0;  // the graph's build (heuristics, plan); the first execution's load is not in it
};

}  // namespace

struct CudnnSdpa::Impl {
  std::string library;
  cudnnHandle_t handle = nullptr;
  std::map<std::tuple<bool, int, int, int, int, bool, int>, Built> graphs;
  void* workspace = nullptr;
  int64_t workspace_bytes = 0;

  ~Impl() {
    graphs.clear();
    if (workspace) cudaFree(workspace);
    if (handle) fe::detail::destroy_handle(handle);
  }

  // Created on first use, so sanitizer and probe runs never load cuDNN.
  void ensure_handle() {
    if (handle) return;
    static std::once_flag once;
    static std::string loaded;
    std::call_once(once, [] { loaded = load_cudnn(); });
    library = loaded;
    if (auto st = fe::detail::create_handle(&handle); st != CUDNN_STATUS_SUCCESS)
      fail(std::string("cudnnCreate failed: ") + fe::detail::get_error_string(st));
  }

  Built& get(bool backward, const SdpaShape& s) {
    ensure_handle();
    if (s.kv_heads() <= 0 || s.H % s.kv_heads())
      fail("cuDNN SDPA: the query heads (" + std::to_string(s.H) + ") must be a multiple of the key/value heads (" +
           std::to_string(s.kv_heads()) + ")");
    auto key = std::make_tuple(backward, s.B, s.H, s.S, s.D, s.causal, s.kv_heads());
    if (auto it = graphs.find(key); it != graphs.end()) return it->second;
    Built b;
    b.graph = backward ? backward_graph(s) : forward_graph(s);
    const std::string what = label(backward, s);
    b.label = what;
    b.grouped = s.kv_heads() != s.H;
    const auto t0 = std::chrono::steady_clock::now();
    check(b.graph->build(handle, {fe::HeurMode_t::A}), "building the " + what + " graph");
    b.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    check(b.graph->get_workspace_size(b.workspace), "workspace size of " + what);
    check(b.graph->get_plan_name(b.plan), "plan name of " + what);
    if (b.workspace > workspace_bytes) {
      if (workspace) cudaFree(workspace);
      workspace = nullptr;
      if (cudaMalloc(&workspace, size_t(b.workspace)) != cudaSuccess) fail("cannot allocate the cuDNN workspace");
      workspace_bytes = b.workspace;
    }
    return graphs.emplace(key, std::move(b)).first->second;
  }

  void set_stream(cudaStream_t stream) {
    if (auto st = fe::detail::set_stream(handle, stream); st != CUDNN_STATUS_SUCCESS)
      fail(std::string("cudnnSetStream failed: ") + fe::detail::get_error_string(st));
  }

  void run(Built& b, std::unordered_map<int64_t, void*>& pack, cudaStream_t stream) {
    if (!b.inspected) {  // once per plan: record what it launches (nothing runs) and check it is fused
      b.inspected = true;
      b.kernels = capture_enqueued_work([&](cudaStream_t capture) {
                    set_stream(capture);
                    check(b.graph->execute(handle, pack, workspace), "execute " + b.plan + " under stream capture");
                  }).kernels;
      require_fused_attention(b.label, b.plan, b.kernels, b.grouped);
    }
    set_stream(stream);
    check(b.graph->execute(handle, pack, workspace), "execute " + b.plan);
  }
};

CudnnSdpa::CudnnSdpa() : impl_(std::make_unique<Impl>()) {}
CudnnSdpa::~CudnnSdpa() = default;

void CudnnSdpa::forward(const SdpaShape& s, const void* q, const void* k, const void* v, void* o, float* lse,
                        cudaStream_t stream) {
  Built& b = impl_->get(false, s);
  std::unordered_map<int64_t, void*> pack{
      {kQ, const_cast<void*>(q)}, {kK, const_cast<void*>(k)}, {kV, const_cast<void*>(v)}, {kO, o}, {kStats, lse}};
  impl_->run(b, pack, stream);
}

void CudnnSdpa::backward(const SdpaShape& s, const void* q, const void* k, const void* v, const void* o,
                         const void* d_o, const float* lse, void* dq, void* dk, void* dv, cudaStream_t stream) {
  Built& b = impl_->get(true, s);
  std::unordered_map<int64_t, void*> pack{{kQ, const_cast<void*>(q)},
                                          {kK, const_cast<void*>(k)},
                                          {kV, const_cast<void*>(v)},
                                          {kO, const_cast<void*>(o)},
                                          {kDO, const_cast<void*>(d_o)},
                                          {kStats, const_cast<float*>(lse)},
                                          {kDQ, dq},
                                          {kDK, dk},
                                          {kDV, dv}};
  impl_->run(b, pack, stream);
}

std::string CudnnSdpa::version() const {
  std::string v = "frontend " + std::to_string(CUDNN_FRONTEND_MAJOR_VERSION) + "." +
                  std::to_string(CUDNN_FRONTEND_MINOR_VERSION) + "." + std::to_string(CUDNN_FRONTEND_PATCH_VERSION) +
                  ", headers " + std::to_string(CUDNN_VERSION);
  if (fe::cudnn_dlhandle) v += ", library " + std::to_string(fe::detail::get_backend_version());
  return v;
}
std::string CudnnSdpa::library_path() const { return impl_->library; }
std::vector<CudnnSdpa::Plan> CudnnSdpa::plans() const {
  std::vector<Plan> out;
  for (const auto& [key, b] : impl_->graphs) out.push_back({b.label, b.plan, b.workspace, b.kernels, b.build_seconds});
  return out;
}

}  // namespace ptxbench::attention
