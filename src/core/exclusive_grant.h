// The timed worker's grant of exclusive use on its handshake socket, as both ends spell it: 'g'
// and a token of this many hex characters, or 'n' (refused). Shared by the harness
// (service/exclusive_handshake.h, service/timed_grant.h) and the worker (runner/worker_context.cpp).
#pragma once
#include <cstddef>

namespace ptxbench {

inline constexpr size_t kGrantTokenLength = 32;

}  // namespace ptxbench
