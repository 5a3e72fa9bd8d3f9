// Classifies NVML Xid events: a program's own fault, or the GPU or driver failing.
#include "service/health/xid_catalog.h"

#include <map>

namespace ptxbench {

XidMeaning classify_xid(unsigned long long xid) {
  using C = XidClass;
  static const std::map<unsigned long long, XidMeaning> catalog = {
      {13, {C::application, "graphics engine exception (a program's illegal instruction or address)"}},
      {31, {C::application, "GPU memory page fault (a program's illegal address)"}},
      {43, {C::application, "GPU stopped processing (a program's channel was reset)"}},
      {45, {C::application, "preemptive cleanup after a program's earlier error or exit"}},
      {69, {C::application, "graphics engine class error"}},
      {48, {C::hardware, "double-bit ECC error"}},
      {61, {C::hardware, "internal micro-controller breakpoint"}},
      {62, {C::hardware, "internal micro-controller halt"}},
      {63, {C::hardware, "ECC page retirement or row remapping recorded"}},
      {64, {C::hardware, "ECC page retirement or row remapping failed"}},
      {74, {C::hardware, "NVLink error"}},
      {79, {C::hardware, "GPU has fallen off the bus"}},
      {92, {C::hardware, "high single-bit ECC error rate"}},
      {94, {C::hardware, "contained ECC error"}},
      {95, {C::hardware, "uncontained ECC error"}},
      {119, {C::hardware, "GSP RPC timeout"}},
      {120, {C::hardware, "GSP error"}},
      {121, {C::hardware, "C2C link error"}},
      {140, {C::hardware, "unrecovered ECC error"}},
  };
  if (auto it = catalog.find(xid); it != catalog.end()) return it->second;
  return {C::unknown, xid == 999 ? "an Xid NVML could not name" : "an Xid this service does not classify"};
}

const char* to_string(XidClass c) {
  switch (c) {
    case XidClass::application: return "application";
    case XidClass::hardware: return "hardware";
    case XidClass::unknown: return "unknown";
  }
  return "unknown";
}

}  // namespace ptxbench
