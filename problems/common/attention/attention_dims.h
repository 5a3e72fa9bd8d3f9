// Shape of one attention problem instance: Q, K, V, O and their gradients are [B,H,S,D] bf16,
// row-major (D fastest); LSE and the other per-row values are [B,H,S] fp32. A "row" is one
// (b, h, position) triple, flat index (b*H + h)*S + position.
#pragma once
#include <cmath>
#include <cstddef>
#include <string>

namespace ptxbench::attention {

struct Dims {
  int B = 0, H = 0, S = 0, D = 0;
  bool causal = false;  // query i attends keys 0..i

  size_t heads() const { return size_t(B) * H; }
  size_t rows() const { return heads() * S; }
  size_t elements() const { return rows() * D; }
  float scale() const { return 1.0f / std::sqrt(float(D)); }

  // "b=1 h=3 s=127 d=5" for flat element index i of a [B,H,S,width] tensor.
  std::string where(size_t i, int width) const {
    const size_t row = i / width;
    std::string s = "b=" + std::to_string(row / S / H) + " h=" + std::to_string(row / S % H) +
                    " s=" + std::to_string(row % S);
    if (width > 1) s += " d=" + std::to_string(i % width);
    return s;
  }
};

}  // namespace ptxbench::attention
