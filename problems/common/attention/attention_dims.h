// Shape of one attention problem instance: Q, O and dQ are [B,H,S,D] bf16, row-major (D fastest);
// K, V, dK and dV are [B,Hkv,S,D] with H a multiple of Hkv (grouped-query attention: query head h
// reads key/value head h / (H/Hkv); Hkv == H is multi-head attention). LSE and the other per-row
// values are [B,H,S] fp32. A "row" is one (b, h, position) triple, flat index (b*H + h)*S + position
// (of a key/value tensor: (b*Hkv + hk)*S + position).
#pragma once
#include <cmath>
#include <cstddef>
#include <string>

namespace ptxbench::attention {

struct Dims {
  int B = 0, H = 0, S = 0, D = 0;
  int Hkv = 0;          // key/value heads; 0 means H (multi-head attention)
  bool causal = false;  // query i attends keys 0..i

  int kv_heads_per_batch() const { return Hkv > 0 ? Hkv : H; }
  int group() const { return H / kv_heads_per_batch(); }  // query heads per key/value head
  size_t heads() const { return size_t(B) * H; }
  size_t rows() const { return heads() * S; }
  size_t elements() const { return rows() * D; }
  size_t kv_heads() const { return size_t(B) * kv_heads_per_batch(); }
  size_t kv_rows() const { return kv_heads() * S; }
  size_t kv_elements() const { return kv_rows() * D; }
  float scale() const { return 1.0f / std::sqrt(float(D)); }

  // "b=1 h=3 s=127 d=5" for flat element index i of a [B,H,S,width] tensor.
  std::string where(size_t i, int width) const { return where_in(i, width, H, "h"); }
  // The same for a key/value tensor [B,Hkv,S,width]: "b=1 hkv=0 s=12 d=5" (as where() for MHA).
  std::string where_kv(size_t i, int width) const {
    return kv_heads_per_batch() == H ? where(i, width) : where_in(i, width, kv_heads_per_batch(), "hkv");
  }

 private:
  std::string where_in(size_t i, int width, int heads, const char* head_name) const {
    const size_t row = i / width;
    std::string s = "b=" + std::to_string(row / S / heads) + " " + head_name + "=" + std::to_string(row / S % heads) +
                    " s=" + std::to_string(row % S);
    if (width > 1) s += " d=" + std::to_string(i % width);
    return s;
  }
};

}  // namespace ptxbench::attention
