// The bytes a TMA instruction moves, from the tensor maps the candidate encoded and its launches used.
#include "runner/integrity/tensor_maps.h"

#include <algorithm>

namespace ptxbench {

std::optional<double> tensor_map_element_bytes(int data_type) {
  // cuda.h's CUtensorMapDataType, in order: UINT8, UINT16, UINT32, INT32, UINT64, INT64, FLOAT16,
  // FLOAT32, FLOAT64, BFLOAT16, FLOAT32_FTZ, TFLOAT32, TFLOAT32_FTZ, then the packed sub-byte types
  // (16 4-bit values in 8 bytes; 16 4-bit or 6-bit values padded to 16 bytes).
  static constexpr double kBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4, 0.5, 1, 1};
  if (data_type < 0 || data_type >= int(std::size(kBytes))) return std::nullopt;
  return kBytes[data_type];
}

std::optional<double> tiled_box_bytes(int data_type, const std::vector<uint32_t>& box,
                                      const std::vector<uint32_t>& element_strides,
                                      const std::vector<uint64_t>& global) {
  const auto element = tensor_map_element_bytes(data_type);
  if (!element || box.empty() || (!element_strides.empty() && element_strides.size() != box.size()) ||
      (!global.empty() && global.size() != box.size()))
    return std::nullopt;
  double elements = 1;
  for (size_t i = 0; i < box.size(); ++i) {
    const uint64_t stride = element_strides.empty() ? 1 : std::max<uint32_t>(element_strides[i], 1);
    const uint64_t extent = global.empty() ? box[i] : std::min<uint64_t>(box[i], global[i]);
    elements *= double((extent + stride - 1) / stride);
  }
  return elements * *element;
}

std::optional<double> im2col_box_bytes(int data_type, uint32_t channels_per_pixel, uint32_t pixels_per_column) {
  const auto element = tensor_map_element_bytes(data_type);
  if (!element) return std::nullopt;
  return double(channels_per_pixel) * double(pixels_per_column) * *element;
}

void TensorMapTable::encoded(std::string_view image, MapBox box) {
  if (image.size() == kTensorMapBytes) boxes_[std::string(image)] = box;
}

std::optional<MapBox> TensorMapTable::box_of(std::string_view image) const {
  const auto it = boxes_.find(image);
  if (it == boxes_.end()) return std::nullopt;
  return it->second;
}

void TensorMapTable::launched(const std::string& function, const std::vector<std::string_view>& blobs) {
  for (const auto& blob : blobs)
    if (auto box = box_of(blob)) kernels_[function][std::string(blob)] = *box;
}

std::optional<KernelMaps> TensorMapTable::maps_of(const std::string& function) const {
  const auto it = kernels_.find(function);
  if (it == kernels_.end() || it->second.empty()) return std::nullopt;
  KernelMaps k;
  k.maps = int(it->second.size());
  k.min_box_bytes = it->second.begin()->second.moved;
  for (const auto& [image, box] : it->second) {
    k.min_box_bytes = std::min(k.min_box_bytes, box.moved);
    k.min_fill = std::min(k.min_fill, box.fill());
  }
  return k;
}

double TensorMapTable::min_fill() const {
  double fill = 1;
  for (const auto& [function, maps] : kernels_)
    for (const auto& [image, box] : maps) fill = std::min(fill, box.fill());
  return fill;
}

}  // namespace ptxbench
