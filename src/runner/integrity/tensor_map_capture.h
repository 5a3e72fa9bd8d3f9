// The CUDA side of tensor_maps.h: what a driver call tells about tensor maps, read from the
// parameters CUPTI's callback hands over. Encoding calls give the map's 128 bytes (at the call's
// exit) and its box; launches give the kernel's 128-byte parameters, any of which may be a map.
#pragma once
#include <cuda.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxbench {

// Cheap tests by CUPTI driver callback id, made before any name is read (every driver call of the
// candidate passes the callback).
bool is_tensor_map_call(uint32_t driver_cbid);     // cuTensorMapEncodeTiled/Im2col, cuTensorMapReplaceAddress
bool is_kernel_launch_call(uint32_t driver_cbid);  // cuLaunchKernel(Ex), cuLaunchCooperativeKernel

struct EncodedMap {
  const CUtensorMap* map = nullptr;      // where the driver writes (wrote, at exit) the map
  std::optional<double> box_bytes;       // nullopt: a box this code cannot size
  std::optional<double> full_box_bytes;  // the whole box, the part past the tensor included
};

// For cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col (any version); nullopt for other calls.
std::optional<EncodedMap> encoded_map(std::string_view api, const void* params);

// The map cuTensorMapReplaceAddress changes (its box stays); null for other calls.
const CUtensorMap* replaced_map(std::string_view api, const void* params);

// A launch's parameter bytes: `sizes` are the kernel's parameter sizes in order (from
// cuFuncGetParamInfo) and `offsets` their offsets; returns the parameters of exactly 128 bytes
// (a CUtensorMap's size) as views into the caller's memory, valid during the callback.
std::vector<std::string_view> map_sized_parameters(std::string_view api, const void* params,
                                                   const std::vector<size_t>& offsets,
                                                   const std::vector<size_t>& sizes);

}  // namespace ptxbench
