// GPU tests of knowledge/hopper/ptx.cuh on an sm_90 device (H100/H200). Every test compares what the
// hardware did with a CPU reference on fresh random inputs (the seed is printed on failure). Without a
// GPU of compute capability 9.0 every test is skipped and says why.
//
// Inputs are drawn from small grids (multiples of 1/8 for 16-bit types, of 1/4 for fp8) so every
// product and every partial sum is exact in fp32: a layout or descriptor mistake shows up as a large
// error, never hides in rounding.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ptx.cuh"

using namespace hopper;

namespace {

// ============================================================================ harness

std::string gpu_skip_reason() {
  static const std::string reason = [] {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0)
      return std::string("no CUDA GPU on this machine (cudaGetDeviceCount: ") +
             (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices") +
             "); run scripts/gpu_tests.sh on an H100/H200 host";
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, 0);
    if (p.major != 9 || p.minor != 0)
      return "the Hopper pack needs compute capability 9.0 (sm_90a); device 0 is " + std::string(p.name) + " (" +
             std::to_string(p.major) + "." + std::to_string(p.minor) + ")";
    cudaFree(nullptr);  // create the context (cuTensorMapEncodeTiled is a driver call)
    return std::string();
  }();
  return reason;
}

class HopperPack : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = gpu_skip_reason(); !why.empty()) GTEST_SKIP() << why;
    seed_ = std::random_device{}();
    rng_.seed(seed_);
  }
  uint32_t seed_ = 0;
  std::mt19937 rng_;
};

#define CK(call)                                                           \
  do {                                                                     \
    const cudaError_t e_ = (call);                                         \
    ASSERT_EQ(e_, cudaSuccess) << #call << ": " << cudaGetErrorString(e_); \
  } while (0)
#define CU(call)                                                                           \
  do {                                                                                     \
    const CUresult r_ = (call);                                                            \
    ASSERT_EQ(r_, CUDA_SUCCESS) << #call << " returned CUresult " << static_cast<int>(r_); \
  } while (0)

// Device buffer that frees itself.
struct Buf {
  void* p = nullptr;
  size_t bytes = 0;
  explicit Buf(size_t n) : bytes(n) {
    if (cudaMalloc(&p, n) != cudaSuccess) p = nullptr;
    else cudaMemset(p, 0, n);
  }
  ~Buf() { cudaFree(p); }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

template <class T>
void upload(const Buf& b, const std::vector<T>& v) {
  cudaMemcpy(b.p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
}
template <class T>
std::vector<T> download(const Buf& b, size_t n) {
  std::vector<T> v(n);
  cudaMemcpy(v.data(), b.p, n * sizeof(T), cudaMemcpyDeviceToHost);
  return v;
}

// Launch status + the kernel's own error flag (a timed-out mbarrier wait sets it).
void finish(const Buf& err, const char* what) {
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int e = 0;
  CK(cudaMemcpy(&e, err.p, sizeof(int), cudaMemcpyDeviceToHost));
  ASSERT_EQ(e, 0) << what << ": an mbarrier wait timed out (expect_tx bytes or phase parity wrong?)";
}

// %globaltimer in ns.
__device__ __forceinline__ uint64_t gtimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// mbarrier wait that gives up after 2 s and raises the error flag instead of hanging the test.
__device__ bool wait_bounded(uint32_t bar, uint32_t parity, int* err, bool cluster_scope = false) {
  const uint64_t t0 = gtimer();
  while (!(cluster_scope ? mbar_try_wait_cluster(bar, parity) : mbar_try_wait(bar, parity))) {
    if (gtimer() - t0 > 2000000000ull) {
      atomicExch(err, 1);
      return false;
    }
  }
  return true;
}

// Element types: host encoding and tensor-map type.
template <class T>
CUtensorMapDataType tma_type();
template <>
CUtensorMapDataType tma_type<__nv_bfloat16>() {
  return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
}
template <>
CUtensorMapDataType tma_type<__half>() {
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
}
template <>
CUtensorMapDataType tma_type<__nv_fp8_e4m3>() {
  return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}
template <>
CUtensorMapDataType tma_type<__nv_fp8_e5m2>() {
  return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

template <class T>
T encode(float x);
template <>
__nv_bfloat16 encode<__nv_bfloat16>(float x) {
  return __float2bfloat16(x);
}
template <>
__half encode<__half>(float x) {
  return __float2half(x);
}
template <>
__nv_fp8_e4m3 encode<__nv_fp8_e4m3>(float x) {
  return __nv_fp8_e4m3(x);
}
template <>
__nv_fp8_e5m2 encode<__nv_fp8_e5m2>(float x) {
  return __nv_fp8_e5m2(x);
}

// Exact input grids: 16-bit types k/8 in [-2, 2]; fp8 k/4 in [-1.5, 1.5] (exact in e4m3 and e5m2).
template <class T>
float draw(std::mt19937& rng) {
  if constexpr (sizeof(T) == 2) return static_cast<float>(static_cast<int>(rng() % 33) - 16) / 8.0f;
  else return static_cast<float>(static_cast<int>(rng() % 13) - 6) / 4.0f;
}

// max |got - want|, with where it happened.
struct Diff {
  double worst = 0;
  size_t at = 0;
};
Diff compare(const std::vector<float>& got, const std::vector<double>& want) {
  Diff d;
  for (size_t i = 0; i < want.size(); ++i) {
    const double e = std::isfinite(got[i]) ? std::fabs(got[i] - want[i]) : 1e30;
    if (e > d.worst) d = {e, i};
  }
  return d;
}

// ============================================================================ wgmma kernels

template <class T, int N, int SA, int SB, int TA, int TB>
__device__ __forceinline__ void mma_ss(float (&d)[N / 2], uint64_t da, uint64_t db, bool acc) {
  if constexpr (std::is_same<T, __nv_bfloat16>::value) wgmma_bf16_ss<N, SA, SB, TA, TB>(d, da, db, acc);
  else if constexpr (std::is_same<T, __half>::value) wgmma_f16_ss<N, SA, SB, TA, TB>(d, da, db, acc);
  else if constexpr (std::is_same<T, __nv_fp8_e4m3>::value) wgmma_e4m3_ss<N, SA, SB>(d, da, db, acc);
  else wgmma_e5m2_ss<N, SA, SB>(d, da, db, acc);
}

template <class T, int N, int SA, int SB, int TB>
__device__ __forceinline__ void mma_rs(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t db, bool acc) {
  if constexpr (std::is_same<T, __nv_bfloat16>::value) wgmma_bf16_rs<N, SA, SB, TB>(d, a, db, acc);
  else if constexpr (std::is_same<T, __half>::value) wgmma_f16_rs<N, SA, SB, TB>(d, a, db, acc);
  else if constexpr (std::is_same<T, __nv_fp8_e4m3>::value) wgmma_e4m3_rs<N, SA, SB>(d, a, db, acc);
  else wgmma_e5m2_rs<N, SA, SB>(d, a, db, acc);
}

// Load a tile of `chunks` boxes {atom/elem elements, rows}, box c to dst + c*rows*atom (the layout that
// make_tile_desc describes). Box c starts at element c*atom/elem of the contiguous dimension.
__device__ __forceinline__ void load_tile(uint32_t dst, const CUtensorMap* map, uint32_t bar, uint32_t rows,
                                          uint32_t chunks, uint32_t atom, uint32_t elem) {
  for (uint32_t c = 0; c < chunks; ++c)
    tma_load_2d(dst + c * rows * atom, map, bar, static_cast<int>(c * atom / elem), 0);
}

// One 64 x N x (128 bytes of K) product from shared memory. A is [64][K] (AK) or [K][64]; B is [N][K]
// (BK) or [K][N]. K = 64 for 16-bit types, 128 for fp8: four wgmma K steps.
template <class T, int N, Swizzle SW, bool AK, bool BK, int SA, int SB>
__global__ void __launch_bounds__(128, 1) wgmma_ss_kernel(const __grid_constant__ CUtensorMap tmA,
                                                          const __grid_constant__ CUtensorMap tmB, float* D, int* err) {
  constexpr uint32_t ES = sizeof(T), K = 128 / ES, KSTEP = 32 / ES, ATOM = swizzle_atom_bytes(SW);
  constexpr uint32_t A_BYTES = 64 * 128, B_BYTES = N * 128;
  extern __shared__ uint8_t smem[];
  __shared__ __align__(8) uint64_t bar_mem;
  const uint32_t a_base = (smem_u32(smem) + 1023u) & ~1023u;
  const uint32_t b_base = a_base + A_BYTES;
  const uint32_t bar = smem_u32(&bar_mem);
  if (threadIdx.x == 0) {
    mbar_init(bar, 1);
    fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(bar, A_BYTES + B_BYTES);
    load_tile(a_base, &tmA, bar, AK ? 64 : K, AK ? 128 / ATOM : 64 * ES / ATOM, ATOM, ES);
    load_tile(b_base, &tmB, bar, BK ? N : K, BK ? 128 / ATOM : N * ES / ATOM, ATOM, ES);
  }
  if (!wait_bounded(bar, 0, err)) return;

  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 1000.0f;  // must vanish: the first step has scale-d = 0
  wgmma_fence();
#pragma unroll
  for (uint32_t ks = 0; ks < 4; ++ks) {
    const uint32_t k = ks * KSTEP;
    const uint64_t da = make_tile_desc(a_base + tile_k_offset(SW, AK, AK ? 64 : K, k, ES), SW, AK, AK ? 64 : K);
    const uint64_t db = make_tile_desc(b_base + tile_k_offset(SW, BK, BK ? N : K, k, ES), SW, BK, BK ? N : K);
    mma_ss<T, N, SA, SB, AK ? 0 : 1, BK ? 0 : 1>(d, da, db, ks > 0);
  }
  wgmma_commit();
  wgmma_wait<0>();
  wgmma_fence_operand(d);
  const int t = threadIdx.x;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) D[acc_row(t, i) * N + acc_col(t, i)] = d[i];
}

// Same product with A from registers: A [64][K] in global memory, read straight into the fragments.
template <class T, int N, Swizzle SW, bool BK, int SA, int SB>
__global__ void __launch_bounds__(128, 1)
    wgmma_rs_kernel(const uint8_t* A, const __grid_constant__ CUtensorMap tmB, float* D, int* err) {
  constexpr uint32_t ES = sizeof(T), K = 128 / ES, KSTEP = 32 / ES, ATOM = swizzle_atom_bytes(SW);
  constexpr uint32_t B_BYTES = N * 128;
  extern __shared__ uint8_t smem[];
  __shared__ __align__(8) uint64_t bar_mem;
  const uint32_t b_base = (smem_u32(smem) + 1023u) & ~1023u;
  const uint32_t bar = smem_u32(&bar_mem);
  if (threadIdx.x == 0) {
    mbar_init(bar, 1);
    fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(bar, B_BYTES);
    load_tile(b_base, &tmB, bar, BK ? N : K, BK ? 128 / ATOM : N * ES / ATOM, ATOM, ES);
  }
  const int t = threadIdx.x;
  uint32_t a[4][4];
#pragma unroll
  for (int ks = 0; ks < 4; ++ks)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      a[ks][j] = *reinterpret_cast<const uint32_t*>(A + afrag_row(t, j) * 128 + ks * 32 + afrag_kbyte(t, j));
  if (!wait_bounded(bar, 0, err)) return;

  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = -1000.0f;
  wgmma_fence();  // orders the ordinary writes of d and a before the wgmmas that read them
#pragma unroll
  for (uint32_t ks = 0; ks < 4; ++ks) {
    const uint64_t db = make_tile_desc(b_base + tile_k_offset(SW, BK, BK ? N : K, ks * KSTEP, ES), SW, BK, BK ? N : K);
    mma_rs<T, N, SA, SB, BK ? 0 : 1>(d, a[ks], db, ks > 0);
  }
  wgmma_commit();
  wgmma_wait<0>();
  wgmma_fence_operand(d);
#pragma unroll
  for (int i = 0; i < N / 2; ++i) D[acc_row(t, i) * N + acc_col(t, i)] = d[i];
}

template <int N>
constexpr size_t tile_smem_bytes() {
  return 1024 + 64 * 128 + static_cast<size_t>(N) * 128;
}

// Host side of one wgmma case: random A [64 x K], B [N x K]; D = SA*SB * A * B^T.
template <class T, int N, Swizzle SW, bool AK, bool BK, int SA, int SB, bool RS>
void run_wgmma(std::mt19937& rng) {
  constexpr int ES = sizeof(T), K = 128 / ES;
  constexpr uint32_t ATOM = swizzle_atom_bytes(SW);
  SCOPED_TRACE(std::string(RS ? "RS" : "SS") + " N=" + std::to_string(N) + " elem=" + std::to_string(ES) +
               "B swizzle=" + std::to_string(static_cast<int>(SW)) + " A " + (AK ? "K" : "M") + "-major, B " +
               (BK ? "K" : "N") + "-major, scale " + std::to_string(SA) + "/" + std::to_string(SB));
  std::vector<float> a(64 * K), b(N * K);
  for (auto& x : a) x = draw<T>(rng);
  for (auto& x : b) x = draw<T>(rng);
  std::vector<T> ag(64 * K), bg(N * K);
  for (int m = 0; m < 64; ++m)
    for (int k = 0; k < K; ++k) ag[AK ? m * K + k : k * 64 + m] = encode<T>(a[m * K + k]);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) bg[BK ? n * K + k : k * N + n] = encode<T>(b[n * K + k]);
  Buf dA(ag.size() * ES), dB(bg.size() * ES), dD(64 * N * 4), err(4);
  upload(dA, ag);
  upload(dB, bg);
  CK(cudaMemset(dD.p, 0xff, dD.bytes));  // NaN

  alignas(64) CUtensorMap tmA, tmB;
  const CUtensorMapSwizzle sw = tma_swizzle(SW);
  const uint32_t box_cols = ATOM / ES;
  if (AK) CU(make_tensor_map_2d(&tmA, tma_type<T>(), dA.p, 64, K, K * ES, 64, box_cols, sw));
  else CU(make_tensor_map_2d(&tmA, tma_type<T>(), dA.p, K, 64, 64 * ES, K, box_cols, sw));
  if (BK) CU(make_tensor_map_2d(&tmB, tma_type<T>(), dB.p, N, K, K * ES, N, box_cols, sw));
  else CU(make_tensor_map_2d(&tmB, tma_type<T>(), dB.p, K, N, N * ES, K, box_cols, sw));

  const size_t smem = tile_smem_bytes<N>();
  if constexpr (RS) {
    auto kern = wgmma_rs_kernel<T, N, SW, BK, SA, SB>;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    kern<<<1, 128, smem>>>(dA.as<uint8_t>(), tmB, dD.as<float>(), err.as<int>());
  } else {
    auto kern = wgmma_ss_kernel<T, N, SW, AK, BK, SA, SB>;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    kern<<<1, 128, smem>>>(tmA, tmB, dD.as<float>(), err.as<int>());
  }
  finish(err, "wgmma");
  if (::testing::Test::HasFatalFailure()) return;

  std::vector<double> want(64 * N);
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < N; ++n) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += static_cast<double>(a[m * K + k]) * b[n * K + k];
      want[m * N + n] = SA * SB * s;
    }
  const auto got = download<float>(dD, 64 * N);
  const Diff diff = compare(got, want);
  // Exact for 16-bit inputs. fp8 sums are exact too if the fp8 accumulator keeps >= 13 mantissa bits;
  // 0.1 leaves room for a narrower one; a layout or descriptor error is off by whole units.
  const double tol = ES == 2 ? 1e-3 : 0.1;
  EXPECT_LE(diff.worst, tol) << "D[" << diff.at / N << "][" << diff.at % N << "] = " << got[diff.at] << ", want "
                             << want[diff.at];
}

template <class T, bool RS, int... Is>
void run_all_n(std::mt19937& rng, std::integer_sequence<int, Is...>) {
  (run_wgmma<T, (Is + 1) * 8, Swizzle::B128, true, true, 1, 1, RS>(rng), ...);
}

// ============================================================================ wgmma tests

TEST_F(HopperPack, WgmmaBf16SSEveryNSwizzle128) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  run_all_n<__nv_bfloat16, false>(rng_, std::make_integer_sequence<int, 32>{});
}

TEST_F(HopperPack, WgmmaF16SSEveryNSwizzle128) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  run_all_n<__half, false>(rng_, std::make_integer_sequence<int, 32>{});
}

TEST_F(HopperPack, WgmmaBf16RSEveryN) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  run_all_n<__nv_bfloat16, true>(rng_, std::make_integer_sequence<int, 32>{});
}

TEST_F(HopperPack, WgmmaF16RSEveryN) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  run_all_n<__half, true>(rng_, std::make_integer_sequence<int, 32>{});
}

// Every swizzle mode x every operand majorness: descriptors (LBO/SBO per layout), K stepping, TMA pairing.
template <Swizzle SW>
void run_layouts(std::mt19937& rng) {
  run_wgmma<__nv_bfloat16, 64, SW, true, true, 1, 1, false>(rng);
  run_wgmma<__nv_bfloat16, 64, SW, false, false, 1, 1, false>(rng);
  run_wgmma<__nv_bfloat16, 64, SW, true, false, 1, 1, false>(rng);
  run_wgmma<__nv_bfloat16, 64, SW, false, true, 1, 1, false>(rng);
  run_wgmma<__half, 128, SW, false, false, 1, 1, false>(rng);
  run_wgmma<__nv_bfloat16, 64, SW, true, true, 1, 1, true>(rng);
  run_wgmma<__nv_bfloat16, 64, SW, true, false, 1, 1, true>(rng);
}

TEST_F(HopperPack, WgmmaSwizzleNone) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  run_layouts<Swizzle::None>(rng_);
}
TEST_F(HopperPack, WgmmaSwizzle32B) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  run_layouts<Swizzle::B32>(rng_);
}
TEST_F(HopperPack, WgmmaSwizzle64B) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  run_layouts<Swizzle::B64>(rng_);
}
TEST_F(HopperPack, WgmmaSwizzle128B) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  run_layouts<Swizzle::B128>(rng_);
  run_wgmma<__nv_bfloat16, 256, Swizzle::B128, false, false, 1, 1, false>(rng_);
}

TEST_F(HopperPack, WgmmaNegatedOperands) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  run_wgmma<__nv_bfloat16, 64, Swizzle::B128, true, true, -1, 1, false>(rng_);
  run_wgmma<__half, 32, Swizzle::B128, true, true, 1, -1, false>(rng_);
  run_wgmma<__nv_bfloat16, 16, Swizzle::B128, true, true, -1, -1, true>(rng_);
  run_wgmma<__nv_fp8_e4m3, 64, Swizzle::B128, true, true, -1, 1, false>(rng_);
}

TEST_F(HopperPack, WgmmaFp8) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  run_wgmma<__nv_fp8_e4m3, 8, Swizzle::B128, true, true, 1, 1, false>(rng_);
  run_wgmma<__nv_fp8_e4m3, 64, Swizzle::B128, true, true, 1, 1, false>(rng_);
  run_wgmma<__nv_fp8_e4m3, 256, Swizzle::B128, true, true, 1, 1, false>(rng_);
  run_wgmma<__nv_fp8_e5m2, 24, Swizzle::B128, true, true, 1, 1, false>(rng_);
  run_wgmma<__nv_fp8_e5m2, 128, Swizzle::B128, true, true, 1, 1, false>(rng_);
  run_wgmma<__nv_fp8_e4m3, 64, Swizzle::B64, true, true, 1, 1, false>(rng_);
  run_wgmma<__nv_fp8_e4m3, 32, Swizzle::None, true, true, 1, 1, false>(rng_);
  run_wgmma<__nv_fp8_e4m3, 128, Swizzle::B128, true, true, 1, 1, true>(rng_);
  run_wgmma<__nv_fp8_e5m2, 64, Swizzle::B32, true, true, 1, 1, true>(rng_);
  run_wgmma<__nv_fp8_e5m2, 256, Swizzle::B128, true, true, -1, -1, true>(rng_);
}

// S = Q K^T (SS); P = bf16(S) moved accumulator -> A fragment; O = P V (RS, V MN-major). S also goes out
// through the epilogue path: stmatrix into shared memory, fence.proxy.async, TMA store.
__global__ void __launch_bounds__(128, 1)
    chained_kernel(const __grid_constant__ CUtensorMap tmQ, const __grid_constant__ CUtensorMap tmK,
                   const __grid_constant__ CUtensorMap tmV, const __grid_constant__ CUtensorMap tmS, float* O,
                   int* err) {
  extern __shared__ uint8_t smem[];
  __shared__ __align__(8) uint64_t bar_mem;
  const uint32_t q = (smem_u32(smem) + 1023u) & ~1023u, k = q + 8192, v = k + 8192, s_out = v + 8192;
  const uint32_t bar = smem_u32(&bar_mem);
  if (threadIdx.x == 0) {
    prefetch_tensormap(&tmQ);
    mbar_init(bar, 1);
    fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(bar, 3 * 8192);
    tma_load_2d(q, &tmQ, bar, 0, 0);
    tma_load_2d(k, &tmK, bar, 0, 0);
    tma_load_2d(v, &tmV, bar, 0, 0);
  }
  if (!wait_bounded(bar, 0, err)) return;
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;

  float s[32];
  wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < 4; ++ks)
    wgmma_bf16_ss<64>(s, make_tile_desc(q + ks * 32, Swizzle::B128, true, 64),
                      make_tile_desc(k + ks * 32, Swizzle::B128, true, 64), ks > 0);
  wgmma_commit();
  wgmma_wait<0>();
  wgmma_fence_operand(s);

  // P = bf16(S) as A fragments. Epilogue of S first (stmatrix reads p; once p feeds an in-flight
  // wgmma it must not be touched until wgmma_wait): 16x16 blocks with stmatrix.x4, matrix i of the x4
  // = rows (i%2)*8.., columns (i/2)*8.. of the block, its row addresses from lanes 8i..8i+7.
  uint32_t p[4][4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    acc_to_afrag_bf16(s, j, p[j]);
    const int i = lane / 8;
    const int row = 16 * warp + (i % 2) * 8 + lane % 8, col = 16 * j + (i / 2) * 8;
    stmatrix_x4(s_out + row * 128 + col * 2, p[j]);
  }
  fence_proxy_async_shared();  // generic-proxy smem writes -> visible to the TMA store (async proxy)
  __syncthreads();
  if (t == 0) {
    tma_store_2d(&tmS, s_out, 0, 0);
    bulk_commit_group();
  }

  float o[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) o[i] = 0.0f;
  wgmma_fence();  // o and p were written by ordinary instructions
#pragma unroll
  for (int j = 0; j < 4; ++j)
    wgmma_bf16_rs<64, 1, 1, 1>(
        o, p[j], make_tile_desc(v + tile_k_offset(Swizzle::B128, false, 64, 16 * j, 2), Swizzle::B128, false, 64),
        j > 0);
  wgmma_commit();
  wgmma_wait<0>();
  wgmma_fence_operand(o);
#pragma unroll
  for (int i = 0; i < 32; ++i) O[acc_row(t, i) * 64 + acc_col(t, i)] = o[i];
  if (t == 0) bulk_wait_group<0>();
}

TEST_F(HopperPack, WgmmaChainedAccumulatorToRegisterA) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  std::vector<float> qf(64 * 64), kf(64 * 64), vf(64 * 64);
  for (auto* m : {&qf, &kf, &vf})
    for (auto& x : *m) x = draw<__nv_bfloat16>(rng_);
  std::vector<__nv_bfloat16> qb(64 * 64), kb(64 * 64), vb(64 * 64);
  for (int i = 0; i < 64 * 64; ++i) {
    qb[i] = encode<__nv_bfloat16>(qf[i]);
    kb[i] = encode<__nv_bfloat16>(kf[i]);
    vb[i] = encode<__nv_bfloat16>(vf[i]);
  }
  Buf dQ(8192), dK(8192), dV(8192), dS(8192), dO(64 * 64 * 4), err(4);
  upload(dQ, qb);
  upload(dK, kb);
  upload(dV, vb);
  alignas(64) CUtensorMap tq, tk, tv, ts;
  CU(make_tensor_map_2d(&tq, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, dQ.p, 64, 64, 128, 64, 64, CU_TENSOR_MAP_SWIZZLE_128B));
  CU(make_tensor_map_2d(&tk, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, dK.p, 64, 64, 128, 64, 64, CU_TENSOR_MAP_SWIZZLE_128B));
  CU(make_tensor_map_2d(&tv, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, dV.p, 64, 64, 128, 64, 64, CU_TENSOR_MAP_SWIZZLE_128B));
  CU(make_tensor_map_2d(&ts, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, dS.p, 64, 64, 128, 64, 64, CU_TENSOR_MAP_SWIZZLE_NONE));
  const size_t smem = 1024 + 4 * 8192;
  CK(cudaFuncSetAttribute(chained_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  chained_kernel<<<1, 128, smem>>>(tq, tk, tv, ts, dO.as<float>(), err.as<int>());
  finish(err, "chained");
  if (HasFatalFailure()) return;

  // Reference: S exact, P = bf16(S) (round to nearest even, same as the device), O = P V.
  std::vector<float> pf(64 * 64);
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < 64; ++n) {
      double acc = 0;
      for (int kk = 0; kk < 64; ++kk) acc += static_cast<double>(qf[m * 64 + kk]) * kf[n * 64 + kk];
      pf[m * 64 + n] = __bfloat162float(__float2bfloat16(static_cast<float>(acc)));
    }
  const auto s_got = download<__nv_bfloat16>(dS, 64 * 64);
  for (int i = 0; i < 64 * 64; ++i)
    ASSERT_EQ(__bfloat162float(s_got[i]), pf[i]) << "S (stmatrix + TMA store) at [" << i / 64 << "][" << i % 64 << "]";
  std::vector<double> want(64 * 64);
  double rms = 0;
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < 64; ++n) {
      double acc = 0;
      for (int kk = 0; kk < 64; ++kk) acc += static_cast<double>(pf[m * 64 + kk]) * vf[kk * 64 + n];
      want[m * 64 + n] = acc;
      rms += acc * acc;
    }
  rms = std::sqrt(rms / (64 * 64));
  const auto got = download<float>(dO, 64 * 64);
  const Diff diff = compare(got, want);
  EXPECT_LE(diff.worst, 1e-4 * rms + 1e-2)
      << "O[" << diff.at / 64 << "][" << diff.at % 64 << "] = " << got[diff.at] << ", want " << want[diff.at];
}

// ============================================================================ setmaxnreg

// Warp-specialized 128 x 256 x 64 product: warpgroup 0 = TMA producer (registers released),
// warpgroups 1-2 = consumers with 128 f32 accumulators each (registers raised).
template <int DEC, int INC>
__global__ void __launch_bounds__(384, 1)
    setmaxnreg_kernel(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB, float* D,
                      int* err) {
  extern __shared__ uint8_t smem[];
  __shared__ __align__(8) uint64_t bar_mem;
  const uint32_t a = (smem_u32(smem) + 1023u) & ~1023u, b = a + 128 * 128;
  const uint32_t bar = smem_u32(&bar_mem);
  if (threadIdx.x == 0) {
    mbar_init(bar, 1);
    fence_mbarrier_init();
  }
  __syncthreads();
  const int wg = warpgroup_idx();
  if (wg == 0) {
    setmaxnreg_dec<DEC>();
    if (threadIdx.x == 0) {
      mbar_arrive_expect_tx(bar, 128 * 128 + 256 * 128);
      tma_load_2d(a, &tmA, bar, 0, 0);
      tma_load_2d(b, &tmB, bar, 0, 0);
    }
    return;
  }
  setmaxnreg_inc<INC>();
  if (!wait_bounded(bar, 0, err)) return;
  const uint32_t a_wg = a + (wg - 1) * 64 * 128;
  float d[128];
  wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < 4; ++ks)
    wgmma_bf16_ss<256>(d, make_tile_desc(a_wg + ks * 32, Swizzle::B128, true, 64),
                       make_tile_desc(b + ks * 32, Swizzle::B128, true, 256), ks > 0);
  wgmma_commit();
  wgmma_wait<0>();
  wgmma_fence_operand(d);
  const int t = threadIdx.x % 128;
#pragma unroll
  for (int i = 0; i < 128; ++i) D[((wg - 1) * 64 + acc_row(t, i)) * 256 + acc_col(t, i)] = d[i];
}

template <int DEC, int INC>
void run_setmaxnreg(std::mt19937& rng) {
  SCOPED_TRACE("setmaxnreg dec " + std::to_string(DEC) + " inc " + std::to_string(INC));
  std::vector<float> af(128 * 64), bf(256 * 64);
  for (auto& x : af) x = draw<__nv_bfloat16>(rng);
  for (auto& x : bf) x = draw<__nv_bfloat16>(rng);
  std::vector<__nv_bfloat16> ab(af.size()), bb(bf.size());
  for (size_t i = 0; i < af.size(); ++i) ab[i] = encode<__nv_bfloat16>(af[i]);
  for (size_t i = 0; i < bf.size(); ++i) bb[i] = encode<__nv_bfloat16>(bf[i]);
  Buf dA(ab.size() * 2), dB(bb.size() * 2), dD(128 * 256 * 4), err(4);
  upload(dA, ab);
  upload(dB, bb);
  alignas(64) CUtensorMap ta, tb;
  CU(make_tensor_map_2d(&ta, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, dA.p, 128, 64, 128, 128, 64,
                        CU_TENSOR_MAP_SWIZZLE_128B));
  CU(make_tensor_map_2d(&tb, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, dB.p, 256, 64, 128, 256, 64,
                        CU_TENSOR_MAP_SWIZZLE_128B));
  auto kern = setmaxnreg_kernel<DEC, INC>;
  cudaFuncAttributes attr{};
  CK(cudaFuncGetAttributes(&attr, kern));
  // The CTA register pool must cover the redistribution, or setmaxnreg.inc would wait forever.
  ASSERT_LE(128 * (DEC + 2 * INC), 384 * attr.numRegs) << "kernel compiled with " << attr.numRegs << " registers";
  const size_t smem = 1024 + 128 * 128 + 256 * 128;
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  kern<<<1, 384, smem>>>(ta, tb, dD.as<float>(), err.as<int>());
  finish(err, "setmaxnreg");
  if (::testing::Test::HasFatalFailure()) return;
  std::vector<double> want(128 * 256);
  for (int m = 0; m < 128; ++m)
    for (int n = 0; n < 256; ++n) {
      double s = 0;
      for (int k = 0; k < 64; ++k) s += static_cast<double>(af[m * 64 + k]) * bf[n * 64 + k];
      want[m * 256 + n] = s;
    }
  const auto got = download<float>(dD, 128 * 256);
  const Diff diff = compare(got, want);
  EXPECT_LE(diff.worst, 1e-3) << "D[" << diff.at / 256 << "][" << diff.at % 256 << "]";
}

TEST_F(HopperPack, SetmaxnregWarpSpecialized) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  run_setmaxnreg<40, 232>(rng_);
  run_setmaxnreg<24, 240>(rng_);
}

// ============================================================================ TMA round trips 1D..5D

struct Coords {
  int c[5];
};
constexpr uint64_t kDims[5] = {32, 7, 5, 4, 3};
constexpr uint32_t kBox[5] = {8, 3, 2, 2, 2};

template <int R>
__device__ __forceinline__ void load_nd(uint32_t dst, const CUtensorMap* m, uint32_t bar, const Coords& c) {
  if constexpr (R == 1) tma_load_1d(dst, m, bar, c.c[0]);
  else if constexpr (R == 2) tma_load_2d(dst, m, bar, c.c[0], c.c[1]);
  else if constexpr (R == 3) tma_load_3d(dst, m, bar, c.c[0], c.c[1], c.c[2]);
  else if constexpr (R == 4) tma_load_4d(dst, m, bar, c.c[0], c.c[1], c.c[2], c.c[3]);
  else tma_load_5d(dst, m, bar, c.c[0], c.c[1], c.c[2], c.c[3], c.c[4]);
}
template <int R>
__device__ __forceinline__ void prefetch_nd(const CUtensorMap* m, const Coords& c) {
  if constexpr (R == 1) tma_prefetch_1d(m, c.c[0]);
  else if constexpr (R == 2) tma_prefetch_2d(m, c.c[0], c.c[1]);
  else if constexpr (R == 3) tma_prefetch_3d(m, c.c[0], c.c[1], c.c[2]);
  else if constexpr (R == 4) tma_prefetch_4d(m, c.c[0], c.c[1], c.c[2], c.c[3]);
  else tma_prefetch_5d(m, c.c[0], c.c[1], c.c[2], c.c[3], c.c[4]);
}
// Op 0 = store, 1 = reduce add, 2 = reduce min, 3 = reduce max.
template <int R, int Op>
__device__ __forceinline__ void write_nd(const CUtensorMap* m, uint32_t src, const Coords& c) {
#define HOPPER_TEST_WRITE(F)                                                 \
  if constexpr (R == 1) F##_1d(m, src, c.c[0]);                              \
  else if constexpr (R == 2) F##_2d(m, src, c.c[0], c.c[1]);                 \
  else if constexpr (R == 3) F##_3d(m, src, c.c[0], c.c[1], c.c[2]);         \
  else if constexpr (R == 4) F##_4d(m, src, c.c[0], c.c[1], c.c[2], c.c[3]); \
  else F##_5d(m, src, c.c[0], c.c[1], c.c[2], c.c[3], c.c[4]);
  if constexpr (Op == 0) {
    HOPPER_TEST_WRITE(tma_store)
  } else if constexpr (Op == 1) {
    HOPPER_TEST_WRITE(tma_reduce_add)
  } else if constexpr (Op == 2) {
    HOPPER_TEST_WRITE(tma_reduce_min)
  } else {
    HOPPER_TEST_WRITE(tma_reduce_max)
  }
#undef HOPPER_TEST_WRITE
}

template <int R>
__global__ void tma_load_kernel(const __grid_constant__ CUtensorMap map, Coords c, uint32_t bytes, uint32_t* out,
                                int* err) {
  __shared__ __align__(1024) uint32_t buf[1024];
  __shared__ __align__(8) uint64_t bar_mem;
  const uint32_t bar = smem_u32(&bar_mem);
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) buf[i] = 0xDEADBEEFu;  // poison: zero-fill must overwrite
  if (threadIdx.x == 0) {
    mbar_init(bar, 1);
    fence_mbarrier_init();
  }
  fence_proxy_async_shared();  // the poison (generic writes) before the TMA (async proxy) writes
  __syncthreads();
  if (threadIdx.x == 0) {
    prefetch_nd<R>(&map, c);
    mbar_arrive_expect_tx(bar, bytes);
    load_nd<R>(smem_u32(buf), &map, bar, c);
  }
  if (!wait_bounded(bar, 0, err)) return;
  for (uint32_t i = threadIdx.x; i < bytes / 4; i += blockDim.x) out[i] = buf[i];
}

template <int R, int Op>
__global__ void tma_write_kernel(const __grid_constant__ CUtensorMap map, Coords c, uint32_t words,
                                 const uint32_t* src) {
  __shared__ __align__(1024) uint32_t buf[1024];
  for (uint32_t i = threadIdx.x; i < words; i += blockDim.x) buf[i] = src[i];
  fence_proxy_async_shared();
  __syncthreads();
  if (threadIdx.x == 0) {
    write_nd<R, Op>(&map, smem_u32(buf), c);
    bulk_commit_group();
    bulk_wait_group<0>();
  }
}

// Global linear index of box element `e` placed at coords c, or -1 if out of bounds.
long long global_index(int rank, const Coords& c, int e) {
  long long idx = 0, stride = 1;
  for (int d = 0; d < rank; ++d) {
    const int i = e % static_cast<int>(kBox[d]);
    e /= static_cast<int>(kBox[d]);
    const long long g = static_cast<long long>(c.c[d]) + i;
    if (g < 0 || g >= static_cast<long long>(kDims[d])) return -1;
    idx += g * stride;
    stride *= static_cast<long long>(kDims[d]);
  }
  return idx;
}

template <int R>
void run_tma_nd(std::mt19937& rng, CUtensorMapDataType type) {
  SCOPED_TRACE("rank " + std::to_string(R));
  size_t total = 1, box = 1;
  for (int d = 0; d < R; ++d) {
    total *= kDims[d];
    box *= kBox[d];
  }
  const bool is_float = type == CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  auto value = [&](uint32_t r) -> uint32_t {  // a random float in [-64, 64) / 4, or a random int
    const int v = static_cast<int>(r % 512) - 256;
    if (!is_float) return static_cast<uint32_t>(v);
    const float f = v / 4.0f;
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  };
  std::vector<uint32_t> g(total);
  for (auto& x : g) x = value(rng());
  Buf dG(total * 4), dOut(box * 4), dSrc(box * 4), err(4);
  upload(dG, g);
  alignas(64) CUtensorMap map;
  uint64_t strides[4];
  for (int d = 0; d + 1 < R; ++d) strides[d] = (d == 0 ? kDims[0] * 4 : strides[d - 1] * kDims[d]);
  CU(make_tensor_map(&map, type, R, dG.p, kDims, strides, kBox));

  const Coords cases[3] = {{{4, 2, 1, 1, 1}}, {{28, 5, 4, 3, 2}}, {{-4, -1, -1, -2, -1}}};
  for (const Coords& c : cases) {
    SCOPED_TRACE("coords " + std::to_string(c.c[0]) + "," + std::to_string(c.c[1]) + ",...");
    // Load: in-bounds elements copied, out-of-bounds ones zero-filled; the mbarrier still expects the
    // full box (OOB fill counts as delivered bytes).
    if (is_float) {
      tma_load_kernel<R><<<1, 128>>>(map, c, static_cast<uint32_t>(box * 4), dOut.as<uint32_t>(), err.as<int>());
      finish(err, "tma load");
      if (::testing::Test::HasFatalFailure()) return;
      const auto got = download<uint32_t>(dOut, box);
      for (size_t e = 0; e < box; ++e) {
        const long long gi = global_index(R, c, static_cast<int>(e));
        ASSERT_EQ(got[e], gi < 0 ? 0u : g[gi]) << "load: box element " << e;
      }
    }
    // Store / reduce: only in-bounds elements of the box are written. A box starting at a negative
    // coordinate faulted (illegal instruction) on the H200 for a store, so only loads try that
    // (contract.md rule 13).
    bool negative = false;
    for (int d = 0; d < R; ++d) negative = negative || c.c[d] < 0;
    if (negative) continue;
    std::vector<uint32_t> src(box);
    for (auto& x : src) x = value(rng());
    upload(dSrc, src);
    for (int op = is_float ? 0 : 2; op < (is_float ? 2 : 4); ++op) {
      SCOPED_TRACE(op == 0 ? "store" : op == 1 ? "reduce add" : op == 2 ? "reduce min" : "reduce max");
      upload(dG, g);
      const uint32_t words = static_cast<uint32_t>(box);
      if (op == 0) tma_write_kernel<R, 0><<<1, 128>>>(map, c, words, dSrc.as<uint32_t>());
      else if (op == 1) tma_write_kernel<R, 1><<<1, 128>>>(map, c, words, dSrc.as<uint32_t>());
      else if (op == 2) tma_write_kernel<R, 2><<<1, 128>>>(map, c, words, dSrc.as<uint32_t>());
      else tma_write_kernel<R, 3><<<1, 128>>>(map, c, words, dSrc.as<uint32_t>());
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::vector<uint32_t> want = g;
      for (size_t e = 0; e < box; ++e) {
        const long long gi = global_index(R, c, static_cast<int>(e));
        if (gi < 0) continue;
        if (op == 0) {
          want[gi] = src[e];
        } else if (op == 1) {
          float a, b;
          std::memcpy(&a, &g[gi], 4);
          std::memcpy(&b, &src[e], 4);
          const float s = a + b;  // exact: both are multiples of 1/4 below 64
          std::memcpy(&want[gi], &s, 4);
        } else {
          const int a = static_cast<int>(g[gi]), b = static_cast<int>(src[e]);
          want[gi] = static_cast<uint32_t>(op == 2 ? std::min(a, b) : std::max(a, b));
        }
      }
      const auto got = download<uint32_t>(dG, total);
      for (size_t i = 0; i < total; ++i) ASSERT_EQ(got[i], want[i]) << "global element " << i;
    }
  }
}

TEST_F(HopperPack, TmaLoadStoreReduceAddEveryRank) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  run_tma_nd<1>(rng_, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  run_tma_nd<2>(rng_, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  run_tma_nd<3>(rng_, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  run_tma_nd<4>(rng_, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  run_tma_nd<5>(rng_, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
}

TEST_F(HopperPack, TmaReduceMinMaxInt32EveryRank) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  run_tma_nd<1>(rng_, CU_TENSOR_MAP_DATA_TYPE_INT32);
  run_tma_nd<2>(rng_, CU_TENSOR_MAP_DATA_TYPE_INT32);
  run_tma_nd<3>(rng_, CU_TENSOR_MAP_DATA_TYPE_INT32);
  run_tma_nd<4>(rng_, CU_TENSOR_MAP_DATA_TYPE_INT32);
  run_tma_nd<5>(rng_, CU_TENSOR_MAP_DATA_TYPE_INT32);
}

TEST_F(HopperPack, TensorMapEncoderRejectsBadArguments) {
  alignas(64) CUtensorMap map;
  Buf g(1 << 16);
  const uint64_t dims[2] = {64, 64};
  const uint64_t strides[1] = {128};
  const uint32_t box[2] = {64, 8};
  EXPECT_EQ(
      make_tensor_map(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, g.p, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_128B),
      CUDA_SUCCESS);
  const uint32_t wide[2] = {128, 8};  // 256 inner bytes > 128B swizzle span
  EXPECT_EQ(
      make_tensor_map(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, g.p, dims, strides, wide, CU_TENSOR_MAP_SWIZZLE_128B),
      CUDA_ERROR_INVALID_VALUE);
  const uint64_t odd[1] = {120};  // stride not a multiple of 16
  EXPECT_EQ(make_tensor_map(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, g.p, dims, odd, box), CUDA_ERROR_INVALID_VALUE);
  const uint32_t narrow[2] = {4, 8};  // 8 inner bytes: not a multiple of 16
  EXPECT_EQ(make_tensor_map(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, g.p, dims, strides, narrow),
            CUDA_ERROR_INVALID_VALUE);
  const uint32_t big[2] = {64, 512};  // box dimension > 256
  EXPECT_EQ(make_tensor_map(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, g.p, dims, strides, big),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(make_tensor_map(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, static_cast<char*>(g.p) + 8, dims, strides, box),
            CUDA_ERROR_INVALID_VALUE);  // global address not 16-byte aligned
  EXPECT_EQ(make_tensor_map(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 6, g.p, dims, strides, box),
            CUDA_ERROR_INVALID_VALUE);
}

// ============================================================================ TMA swizzle <-> swizzle_offset

template <Swizzle SW>
__global__ void swizzle_load_kernel(const __grid_constant__ CUtensorMap map, uint32_t bytes, uint32_t* out, int* err) {
  __shared__ __align__(1024) uint32_t buf[512];
  __shared__ __align__(8) uint64_t bar_mem;
  const uint32_t bar = smem_u32(&bar_mem);
  if (threadIdx.x == 0) {
    mbar_init(bar, 1);
    fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(bar, bytes);
    tma_load_2d(smem_u32(buf), &map, bar, 0, 0);
  }
  if (!wait_bounded(bar, 0, err)) return;
  for (uint32_t i = threadIdx.x; i < bytes / 4; i += blockDim.x) out[i] = buf[i];  // raw, still swizzled
}

// Writes element (r, c) of a rows x cols f32 tile at swizzle_offset(r*rowbytes + 4c), then TMA-stores it.
template <Swizzle SW>
__global__ void swizzle_store_kernel(const __grid_constant__ CUtensorMap map, int rows, int cols, const float* src) {
  __shared__ __align__(1024) float buf[512];
  for (int i = threadIdx.x; i < rows * cols; i += blockDim.x) {
    const int r = i / cols, c = i % cols;
    buf[swizzle_offset(SW, static_cast<uint32_t>(r * cols * 4 + c * 4)) / 4] = src[i];
  }
  fence_proxy_async_shared();
  __syncthreads();
  if (threadIdx.x == 0) {
    tma_store_2d(&map, smem_u32(buf), 0, 0);
    bulk_commit_group();
    bulk_wait_group<0>();
  }
}

template <Swizzle SW>
void run_swizzle(std::mt19937& rng) {
  SCOPED_TRACE("swizzle " + std::to_string(static_cast<int>(SW)));
  constexpr int rows = 16, cols = static_cast<int>(SW) / 4;  // one span per row
  std::vector<float> g(rows * cols);
  for (auto& x : g) x = static_cast<float>(static_cast<int>(rng() % 2000) - 1000);
  Buf dG(g.size() * 4), dOut(g.size() * 4), err(4);
  upload(dG, g);
  alignas(64) CUtensorMap map;
  CU(make_tensor_map_2d(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, dG.p, rows, cols, cols * 4, rows, cols,
                        tma_swizzle(SW)));
  swizzle_load_kernel<SW><<<1, 128>>>(map, rows * cols * 4, dOut.as<uint32_t>(), err.as<int>());
  finish(err, "swizzled load");
  if (::testing::Test::HasFatalFailure()) return;
  const auto raw = download<float>(dOut, g.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      ASSERT_EQ(raw[swizzle_offset(SW, static_cast<uint32_t>(r * cols * 4 + c * 4)) / 4], g[r * cols + c])
          << "element (" << r << ", " << c << ") is not where swizzle_offset says";
  // And back: logical order written through swizzle_offset, stored by TMA, lands row-major.
  std::vector<float> src(g.size());
  for (auto& x : src) x = static_cast<float>(static_cast<int>(rng() % 2000) - 1000);
  Buf dSrc(src.size() * 4);
  upload(dSrc, src);
  swizzle_store_kernel<SW><<<1, 128>>>(map, rows, cols, dSrc.as<float>());
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  const auto back = download<float>(dG, g.size());
  for (size_t i = 0; i < g.size(); ++i) ASSERT_EQ(back[i], src[i]) << "stored element " << i;
}

TEST_F(HopperPack, TmaSwizzleMatchesSwizzleOffset) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  run_swizzle<Swizzle::B32>(rng_);
  run_swizzle<Swizzle::B64>(rng_);
  run_swizzle<Swizzle::B128>(rng_);
}

// ============================================================================ mbarrier

__global__ void mbarrier_kernel(const uint4* gsrc, uint32_t iterations, uint32_t* out, int* err) {
  __shared__ __align__(8) uint64_t full[2], empty[2], fresh, tx, cnt;
  __shared__ uint32_t slot[2];
  __shared__ __align__(128) uint4 bulk[16];
  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; ++s) {
      mbar_init(smem_u32(&full[s]), 1);
      mbar_init(smem_u32(&empty[s]), 32);
    }
    mbar_init(smem_u32(&fresh), 1);
    mbar_init(smem_u32(&tx), 1);
    mbar_init(smem_u32(&cnt), 4);
    fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    // A fresh barrier is in phase 0: parity 0 is not complete, parity 1 ("the phase before") is.
    out[0] = mbar_test_wait(smem_u32(&fresh), 0);
    out[1] = mbar_try_wait(smem_u32(&fresh), 1);
    mbar_arrive(smem_u32(&fresh));
    out[2] = mbar_test_wait(smem_u32(&fresh), 0);
    // Arrival counts: 3 at once + 1 completes a count-4 phase.
    mbar_arrive(smem_u32(&cnt), 3);
    out[3] = mbar_test_wait(smem_u32(&cnt), 0);
    mbar_arrive(smem_u32(&cnt));
    out[4] = wait_bounded(smem_u32(&cnt), 0, err);
    // Transaction bytes: phase 0 via arrive.expect_tx, phase 1 via expect_tx + plain arrive.
    const uint32_t t = smem_u32(&tx);
    mbar_arrive_expect_tx(t, 256);
    bulk_load(smem_u32(bulk), gsrc, 256, t);
    out[5] = wait_bounded(t, 0, err) && bulk[15].w == gsrc[15].w && bulk[3].x == gsrc[3].x;
    fence_proxy_async_shared();  // generic reads of `bulk` above before the async proxy rewrites it
    mbar_expect_tx(t, 128);
    bulk_load(smem_u32(bulk), gsrc + 8, 128, t);
    out[6] = mbar_test_wait(t, 1);  // arrival still missing -> phase 1 cannot be complete
    mbar_arrive(t);
    out[7] = wait_bounded(t, 1, err) && bulk[0].y == gsrc[8].y && bulk[7].z == gsrc[15].z;
    mbar_inval(t);
  }
  // Two-slot ring, warp 0 lane 0 produces, warp 1 (32 arrivals on `empty`) consumes; parity flips each
  // time a slot comes round again.
  const int warp = threadIdx.x / 32;
  if (warp == 0 && threadIdx.x == 0) {
    for (uint32_t it = 0; it < iterations; ++it) {
      const uint32_t s = it % 2, round = it / 2;
      if (round > 0 && !wait_bounded(smem_u32(&empty[s]), (round - 1) & 1, err)) return;
      slot[s] = it * 7 + 1;
      mbar_arrive(smem_u32(&full[s]));  // release: the slot write is visible to the acquiring waiter
    }
  } else if (warp == 1) {
    uint32_t sum = 0;
    for (uint32_t it = 0; it < iterations; ++it) {
      const uint32_t s = it % 2, round = it / 2;
      if (!wait_bounded(smem_u32(&full[s]), round & 1, err)) return;
      sum += slot[s];
      __syncwarp();
      mbar_arrive(smem_u32(&empty[s]));
    }
    if (threadIdx.x == 32) out[8] = sum;
  }
}

TEST_F(HopperPack, MbarrierPhasesTxCountsAndRing) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  std::vector<uint32_t> src(64);
  for (auto& x : src) x = rng_();
  Buf dSrc(256), out(16 * 4), err(4);
  upload(dSrc, src);
  const uint32_t iterations = 101;
  mbarrier_kernel<<<1, 64>>>(dSrc.as<uint4>(), iterations, out.as<uint32_t>(), err.as<int>());
  finish(err, "mbarrier");
  if (HasFatalFailure()) return;
  const auto o = download<uint32_t>(out, 16);
  EXPECT_EQ(o[0], 0u) << "fresh barrier: parity 0 must not be complete";
  EXPECT_EQ(o[1], 1u) << "fresh barrier: waiting on parity 1 must succeed at once";
  EXPECT_EQ(o[2], 1u) << "after the single arrival phase 0 is complete";
  EXPECT_EQ(o[3], 0u) << "3 of 4 arrivals must not complete the phase";
  EXPECT_EQ(o[4], 1u);
  EXPECT_EQ(o[5], 1u) << "arrive.expect_tx + bulk copy (phase 0)";
  EXPECT_EQ(o[6], 0u) << "expect_tx without the arrival must not complete phase 1";
  EXPECT_EQ(o[7], 1u) << "expect_tx + arrive + bulk copy (phase 1)";
  uint64_t want = 0;
  for (uint32_t it = 0; it < iterations; ++it) want += it * 7 + 1;
  EXPECT_EQ(o[8], static_cast<uint32_t>(want)) << "two-slot ring lost or repeated an item";
}

// ============================================================================ cluster: DSMEM, remote arrive, multicast

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128, 1)
    cluster_kernel(const __grid_constant__ CUtensorMap map, uint32_t* out, float* tiles, int* err) {
  __shared__ __align__(1024) float tile[16 * 32];
  __shared__ __align__(8) uint64_t remote_bar, mc_bar;
  __shared__ uint32_t word, payload;
  __shared__ uint32_t elected[4];
  const uint32_t rank = cluster_ctarank(), peer = rank ^ 1u;
  if (threadIdx.x < 4) elected[threadIdx.x] = 0;
  if (threadIdx.x == 0) {
    mbar_init(smem_u32(&remote_bar), 1);
    mbar_init(smem_u32(&mc_bar), 1);
    fence_mbarrier_init();
  }
  cluster_sync();  // every CTA started and its barriers initialised before any remote access

  uint32_t* o = out + rank * 16;
  if (threadIdx.x == 0) {
    o[0] = rank;
    o[1] = cluster_nctarank();
    o[2] = cluster_ctaid().x;
    o[3] = cluster_dims().x;
    st_shared_cluster_u32(mapa_shared(smem_u32(&word), peer), 100 * rank + 7);
  }
  if (elect_one_sync()) atomicAdd(&elected[threadIdx.x / 32], 1u);
  cluster_sync();
  if (threadIdx.x == 0) {
    o[4] = word;  // written by the peer
    o[5] = ld_shared_cluster_u32(mapa_shared(smem_u32(&word), peer));
  }
  if (threadIdx.x < 4) o[6 + threadIdx.x] = elected[threadIdx.x];

  // Remote arrive: CTA 1 writes CTA 0's payload, then arrives (release.cluster) on CTA 0's barrier;
  // CTA 0 waits with acquire.cluster and must see the payload.
  if (threadIdx.x == 0) {
    if (rank == 1) {
      st_shared_cluster_u32(mapa_shared(smem_u32(&payload), 0), 4242);
      mbar_arrive_cluster(mapa_shared(smem_u32(&remote_bar), 0));
    } else if (wait_bounded(smem_u32(&remote_bar), 0, err, true)) {
      o[10] = payload;
    }
  }

  // Multicast: CTA r loads rows [8r, 8r+8) of the 16 x 32 tensor into both CTAs (mask 0b11). Each CTA
  // expects the whole tile (both halves) on its own barrier.
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(smem_u32(&mc_bar), 16 * 32 * 4);
    tma_load_2d_multicast(smem_u32(tile) + rank * 8 * 32 * 4, &map, smem_u32(&mc_bar), 0x3, 0, 8 * rank);
  }
  if (wait_bounded(smem_u32(&mc_bar), 0, err))
    for (int i = threadIdx.x; i < 16 * 32; i += blockDim.x) tiles[rank * 512 + i] = tile[i];
  cluster_sync();  // no CTA may exit while a peer can still touch its shared memory
}

TEST_F(HopperPack, ClusterDsmemRemoteArriveAndMulticast) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  std::vector<float> g(16 * 32);
  for (auto& x : g) x = static_cast<float>(rng_() % 1000);
  Buf dG(g.size() * 4), out(32 * 4), tiles(2 * 512 * 4), err(4);
  upload(dG, g);
  alignas(64) CUtensorMap map;
  CU(make_tensor_map_2d(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, dG.p, 16, 32, 128, 8, 32));
  cluster_kernel<<<2, 128>>>(map, out.as<uint32_t>(), tiles.as<float>(), err.as<int>());
  finish(err, "cluster");
  if (HasFatalFailure()) return;
  const auto o = download<uint32_t>(out, 32);
  for (uint32_t r = 0; r < 2; ++r) {
    SCOPED_TRACE("cta rank " + std::to_string(r));
    const uint32_t* p = o.data() + r * 16;
    EXPECT_EQ(p[0], r);
    EXPECT_EQ(p[1], 2u) << "cluster_nctarank";
    EXPECT_EQ(p[2], r) << "cluster_ctaid().x";
    EXPECT_EQ(p[3], 2u) << "cluster_dims().x";
    EXPECT_EQ(p[4], 100 * (r ^ 1u) + 7) << "DSMEM store from the peer";
    EXPECT_EQ(p[5], 100 * r + 7) << "DSMEM load of the peer's word";
    for (int w = 0; w < 4; ++w) EXPECT_EQ(p[6 + w], 1u) << "elect.sync in warp " << w;
  }
  EXPECT_EQ(o[10], 4242u) << "remote arrive did not publish the payload";
  const auto t = download<float>(tiles, 2 * 512);
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < 512; ++i) ASSERT_EQ(t[r * 512 + i], g[i]) << "multicast tile of rank " << r << " at " << i;
}

// ============================================================================ ldmatrix / stmatrix

// value(m, r, c) of matrix m (8x8 b16) = m*64 + r*8 + c + base.
__global__ void matrix_kernel(uint16_t base, uint32_t* out) {
  __shared__ __align__(128) uint16_t tile[4 * 64];
  const uint32_t l = threadIdx.x;
  auto val = [&](uint32_t m, uint32_t r, uint32_t c) { return static_cast<uint32_t>(base + m * 64 + r * 8 + c); };
  uint32_t r4[4], t4[4];
  for (uint32_t m = 0; m < 4; ++m) {
    r4[m] = val(m, l / 4, 2 * (l % 4)) | (val(m, l / 4, 2 * (l % 4) + 1) << 16);
  }
  const uint32_t addr = smem_u32(tile) + (l / 8) * 128 + (l % 8) * 16;  // matrix l/8, row l%8
  uint32_t* o = out;
  auto dump = [&]() {
    __syncwarp();
    for (uint32_t i = l; i < 4 * 64; i += 32) o[i] = tile[i];
    o += 256;
    __syncwarp();
    for (uint32_t i = l; i < 4 * 64; i += 32) tile[i] = 0;
    __syncwarp();
  };
  dump();  // clears
  o = out;
  stmatrix_x4(addr, r4);
  dump();  // [0, 256): plain
  stmatrix_x4_trans(addr, r4);
  dump();  // [256, 512): transposed
  {
    uint32_t a[1] = {r4[0]}, b[2] = {r4[0], r4[1]};
    stmatrix_x1(addr, a);
    stmatrix_x2(addr, b);  // overwrites matrix 0 with the same data, adds matrix 1
    dump();                // [512, 768)
    stmatrix_x1_trans(addr, a);
    stmatrix_x2_trans(addr, b);
    dump();  // [768, 1024)
  }
  // Loads: store plain, read back plain (identity) and transposed.
  stmatrix_x4(addr, r4);
  __syncwarp();
  ldmatrix_x4(t4, addr);
  for (int m = 0; m < 4; ++m) o[m * 32 + l] = t4[m];  // [1024, 1152)
  ldmatrix_x4_trans(t4, addr);
  for (int m = 0; m < 4; ++m) o[128 + m * 32 + l] = t4[m];  // [1152, 1280)
  uint32_t x1[1], x2[2];
  ldmatrix_x1(x1, addr);
  ldmatrix_x2(x2, addr);
  o[256 + l] = x1[0];
  o[288 + l] = x2[1];
  ldmatrix_x1_trans(x1, addr);
  ldmatrix_x2_trans(x2, addr);
  o[320 + l] = x1[0];
  o[352 + l] = x2[1];
}

TEST_F(HopperPack, LdmatrixStmatrixRoundTrip) {
  const uint16_t base = static_cast<uint16_t>(rng_() % 30000);
  SCOPED_TRACE("base " + std::to_string(base));
  Buf out(1408 * 4);
  matrix_kernel<<<1, 32>>>(base, out.as<uint32_t>());
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  const auto o = download<uint32_t>(out, 1408);
  auto val = [&](uint32_t m, uint32_t r, uint32_t c) {
    return static_cast<uint32_t>(static_cast<uint16_t>(base + m * 64 + r * 8 + c));
  };
  for (uint32_t m = 0; m < 4; ++m)
    for (uint32_t r = 0; r < 8; ++r)
      for (uint32_t c = 0; c < 8; ++c) {
        const uint32_t i = m * 64 + r * 8 + c;
        ASSERT_EQ(o[i], val(m, r, c)) << "stmatrix.x4 m" << m << " (" << r << "," << c << ")";
        ASSERT_EQ(o[256 + i], val(m, c, r)) << "stmatrix.x4.trans m" << m << " (" << r << "," << c << ")";
        ASSERT_EQ(o[512 + i], m < 2 ? val(m, r, c) : 0u) << "stmatrix.x1/x2 m" << m;
        ASSERT_EQ(o[768 + i], m < 2 ? val(m, c, r) : 0u) << "stmatrix.x1/x2.trans m" << m;
      }
  for (uint32_t l = 0; l < 32; ++l)
    for (uint32_t m = 0; m < 4; ++m) {
      const uint32_t plain = val(m, l / 4, 2 * (l % 4)) | (val(m, l / 4, 2 * (l % 4) + 1) << 16);
      const uint32_t trans = val(m, 2 * (l % 4), l / 4) | (val(m, 2 * (l % 4) + 1, l / 4) << 16);
      ASSERT_EQ(o[1024 + m * 32 + l], plain) << "ldmatrix.x4 lane " << l << " reg " << m;
      ASSERT_EQ(o[1152 + m * 32 + l], trans) << "ldmatrix.x4.trans lane " << l << " reg " << m;
      if (m == 0) {
        ASSERT_EQ(o[1280 + l], plain) << "ldmatrix.x1 lane " << l;
        ASSERT_EQ(o[1344 + l], trans) << "ldmatrix.x1.trans lane " << l;
      }
      if (m == 1) {
        ASSERT_EQ(o[1312 + l], plain) << "ldmatrix.x2 lane " << l;
        ASSERT_EQ(o[1376 + l], trans) << "ldmatrix.x2.trans lane " << l;
      }
    }
}

}  // namespace
