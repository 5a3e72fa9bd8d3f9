// CUPTI's parameter structs zeroed with their size set, as CUPTI asks: `T p{T_STRUCT_SIZE}` says
// the same, but leaves the other members to aggregate initialization (-Wmissing-field-initializers).
#pragma once
#include <cstddef>

namespace ptxbench {

template <class Params>
Params cupti_params(size_t struct_size) {
  Params p{};
  p.structSize = struct_size;
  return p;
}

}  // namespace ptxbench
