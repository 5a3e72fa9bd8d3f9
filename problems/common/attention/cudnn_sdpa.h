// The attention baseline: cuDNN's fused scaled-dot-product attention (flash attention), forward
// and backward, through the cuDNN frontend graph API. Layout [B,H,S,D] bf16 (K, V and their
// gradients [B,Hkv,S,D]: grouped-query attention when Hkv < H), fp32 compute, scale 1/sqrt(D),
// causal = top-left diagonal (query i attends keys 0..i). One graph per shape and direction,
// built on first use and kept.
//
// cuDNN is opened at run time (dlopen, see cudnn_sdpa.cpp), so the worker starts, and every
// other problem runs, on a host without it; only a call here then fails, saying where it looked.
// This header carries no cuDNN or JSON types: the frontend bundles its own nlohmann/json.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ptxbench::attention {

struct SdpaShape {
  int B = 0, H = 0, S = 0, D = 0;
  bool causal = false;
  int Hkv = 0;  // key/value heads; 0 means H (multi-head attention)
  int kv_heads() const { return Hkv > 0 ? Hkv : H; }
};

class CudnnSdpa {
 public:
  CudnnSdpa();
  ~CudnnSdpa();
  CudnnSdpa(const CudnnSdpa&) = delete;
  CudnnSdpa& operator=(const CudnnSdpa&) = delete;

  // O [B,H,S,D] bf16 and LSE [B,H,S] fp32 (cuDNN's "Stats").
  void forward(const SdpaShape& s, const void* q, const void* k, const void* v, void* o, float* lse,
               cudaStream_t stream);
  // dQ [B,H,S,D], dK, dV [B,Hkv,S,D] bf16 from Q, K, V, O, dO and LSE.
  void backward(const SdpaShape& s, const void* q, const void* k, const void* v, const void* o, const void* d_o,
                const float* lse, void* dq, void* dk, void* dv, cudaStream_t stream);

  // What ran, for the record: library version, where it was loaded from, and every plan built.
  std::string version() const;
  std::string library_path() const;
  struct Plan {
    std::string label;  // e.g. "fwd B=4 H=16 S=4096 D=128 causal" (GQA: "... H=32 Hkv=8 ...")
    std::string name;   // the execution plan's name (engine and knobs)
    int64_t workspace_bytes = 0;
    std::vector<std::string> kernels;  // what one execution launches (seen by stream capture)
    double build_seconds = 0;          // building the graph's plan in this process
  };
  std::vector<Plan> plans() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ptxbench::attention
