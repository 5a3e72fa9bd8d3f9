// What an NVML Xid event says about the GPU. Some Xids are a program's own fault (an illegal
// address, an illegal instruction: a candidate that crashes causes them, and the GPU is fine
// after its context is gone); others are the GPU or its driver failing (ECC, the GPU off the bus,
// GSP or NVLink errors), after which no result from that GPU is trusted until it is probed
// healthy again. Numbers follow NVIDIA's Xid catalog; an Xid not listed is `unknown`: recorded
// and answered with a probe, never by itself a reason to distrust results.
#pragma once
#include <string>

namespace ptxbench {

enum class XidClass { application, hardware, unknown };

struct XidMeaning {
  XidClass cls = XidClass::unknown;
  std::string what;  // a few words, for the fault log
};

XidMeaning classify_xid(unsigned long long xid);
const char* to_string(XidClass c);

}  // namespace ptxbench
