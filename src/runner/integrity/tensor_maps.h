// The bytes a TMA instruction moves, as far as the harness can know them without patching the
// code: each tensor map the candidate encoded through the driver (cuTensorMapEncodeTiled/Im2col,
// seen by the worker's callback, with the box it describes), and which of those maps each of its
// kernels was launched with (the 128-byte kernel parameters that equal an encoded map). A kernel's
// TMA instruction is credited with the SMALLEST box among the maps it was given: a lower bound,
// since the harness cannot tell which map an executed instruction used, so that encoding a large
// map that is never used cannot inflate the bytes. A kernel that was given no known map (a map
// built by hand, held in global memory, or changed in the kernel) is credited nothing.
// Plain data and no CUDA: unit-tested on the CPU (tests/unit/runner/test_tensor_maps.cpp).
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxbench {

inline constexpr size_t kTensorMapBytes = 128;  // sizeof(CUtensorMap)

// Bytes of one element of a CUtensorMapDataType (its numeric value; the enum is cuda.h's);
// nullopt for a type this table does not know (no credit then).
std::optional<double> tensor_map_element_bytes(int data_type);

// The bytes one tiled copy of the box moves: element bytes x the product over the rank of
// ceil(min(box[i], global[i]) / element_stride[i]) (a stride skips elements: they are not moved).
// The box is clipped by the tensor's own dims when given: the part of a box past the tensor is
// filled, not read, so a big box over a tiny tensor is credited with the tensor's bytes only.
std::optional<double> tiled_box_bytes(int data_type, const std::vector<uint32_t>& box,
                                      const std::vector<uint32_t>& element_strides,
                                      const std::vector<uint64_t>& global = {});
// Im2col: channels per pixel x pixels per column elements.
std::optional<double> im2col_box_bytes(int data_type, uint32_t channels_per_pixel, uint32_t pixels_per_column);

struct KernelMaps {
  double min_box_bytes = 0;  // the smallest box among the known maps the kernel was given
  int maps = 0;              // how many distinct known maps
  double min_fill = 1;       // the smallest share of a box that its tensor fills (moved / box)
};

// A map's box: the bytes one copy reads from its tensor (clipped by the tensor's dims) and the
// bytes it writes to shared memory (the whole box; the part past the tensor is zero-filled).
struct MapBox {
  double moved = 0;
  double filled = 0;
  double fill() const { return filled > 0 ? std::min(1.0, moved / filled) : 1.0; }
};

class TensorMapTable {
 public:
  // A map the candidate encoded (its 128 bytes as the driver wrote them) and its box's bytes.
  void encoded(std::string_view image, double box_bytes) { encoded(image, MapBox{box_bytes, box_bytes}); }
  void encoded(std::string_view image, MapBox box);
  // The box of a known map image, if any (cuTensorMapReplaceAddress keeps the box of the map it changes).
  std::optional<MapBox> box_of(std::string_view image) const;
  // A launch of `function` whose 128-byte parameters are `blobs`: those equal to an encoded map
  // are the kernel's maps (union over every launch of it).
  void launched(const std::string& function, const std::vector<std::string_view>& blobs);
  std::optional<KernelMaps> maps_of(const std::string& function) const;
  // The smallest fill over every known map any kernel was launched with (1 when none): the timed
  // calls' TMA bytes, which count whole boxes, are credited at this share (issue 45).
  double min_fill() const;

 private:
  std::map<std::string, MapBox, std::less<>> boxes_;              // map image -> box
  std::map<std::string, std::map<std::string, MapBox>> kernels_;  // function -> image -> box
};

}  // namespace ptxbench
