// Reads tensor maps from the driver calls CUPTI's callback sees: encodings and kernel parameters.
#include "runner/integrity/tensor_map_capture.h"

#include <cupti.h>

#include "runner/integrity/api_rules.h"
#include "runner/integrity/tensor_maps.h"

namespace ptxbench {

bool is_tensor_map_call(uint32_t id) {
  return id == CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeTiled ||
         id == CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeIm2col ||
         id == CUPTI_DRIVER_TRACE_CBID_cuTensorMapReplaceAddress;
}

bool is_kernel_launch_call(uint32_t id) {
  return id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
         id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
         id == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ||
         id == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
}

std::optional<EncodedMap> encoded_map(std::string_view api, const void* params) {
  const std::string base = api_base_name(api);
  if (!params) return std::nullopt;
  if (base == "cuTensorMapEncodeTiled") {
    const auto* p = static_cast<const cuTensorMapEncodeTiled_params*>(params);
    EncodedMap m{p->tensorMap, std::nullopt, std::nullopt};
    if (p->boxDim && p->tensorRank >= 1 && p->tensorRank <= 5) {
      std::vector<uint32_t> box(p->boxDim, p->boxDim + p->tensorRank), strides;
      std::vector<uint64_t> global;
      if (p->elementStrides) strides.assign(p->elementStrides, p->elementStrides + p->tensorRank);
      if (p->globalDim) global.assign(p->globalDim, p->globalDim + p->tensorRank);
      m.box_bytes = tiled_box_bytes(int(p->tensorDataType), box, strides, global);
      m.full_box_bytes = tiled_box_bytes(int(p->tensorDataType), box, strides);
    }
    return m;
  }
  if (base == "cuTensorMapEncodeIm2col") {
    const auto* p = static_cast<const cuTensorMapEncodeIm2col_params*>(params);
    const auto box = im2col_box_bytes(int(p->tensorDataType), p->channelsPerPixel, p->pixelsPerColumn);
    return EncodedMap{p->tensorMap, box, box};
  }
  return std::nullopt;
}

const CUtensorMap* replaced_map(std::string_view api, const void* params) {
  if (!params || api_base_name(api) != "cuTensorMapReplaceAddress") return nullptr;
  return static_cast<const cuTensorMapReplaceAddress_params*>(params)->tensorMap;
}

std::vector<std::string_view> map_sized_parameters(std::string_view api, const void* params,
                                                   const std::vector<size_t>& offsets,
                                                   const std::vector<size_t>& sizes) {
  std::vector<std::string_view> out;
  if (!params) return out;
  const std::string base = api_base_name(api);
  void** kernel_params = nullptr;
  void** extra = nullptr;
  if (base == "cuLaunchKernel") {
    const auto* p = static_cast<const cuLaunchKernel_params*>(params);
    kernel_params = p->kernelParams, extra = p->extra;
  } else if (base == "cuLaunchKernelEx") {
    const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
    kernel_params = p->kernelParams, extra = p->extra;
  } else if (base == "cuLaunchCooperativeKernel") {
    kernel_params = static_cast<const cuLaunchCooperativeKernel_params*>(params)->kernelParams;
  } else {
    return out;
  }
  // The parameters come either as one pointer per parameter or as one packed buffer.
  const char* buffer = nullptr;
  size_t buffer_size = 0;
  if (!kernel_params && extra)
    for (size_t i = 0; i < 16 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = static_cast<const char*>(extra[i + 1]);
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1])
        buffer_size = *static_cast<const size_t*>(extra[i + 1]);
    }
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] != kTensorMapBytes) continue;
    if (kernel_params && kernel_params[i])
      out.emplace_back(static_cast<const char*>(kernel_params[i]), kTensorMapBytes);
    else if (buffer && offsets[i] + kTensorMapBytes <= buffer_size)
      out.emplace_back(buffer + offsets[i], kTensorMapBytes);
  }
  return out;
}

}  // namespace ptxbench
