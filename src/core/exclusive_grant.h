// The timed worker's handshake for exclusive use of its GPU, as both ends spell it (the harness:
// judge/exclusive_handshake.h, judge/timed_grant.h; the worker: runner/worker_context.cpp).
// The worker writes one byte per request:
//   kAskForCleanBaseline  before its candidate loads, to time the library alone; answered with
//                         'g', a token and the paused count, or 'n' (refused). Given back with kGiveBack.
//   kGiveBack             after the library's clean timings, still before the load: the harness
//                         takes shared use again and answers kSharedAgain.
//   kAskForTiming         just before the first timed sample, the candidate loaded: 'g', a
//                         fresh token and the paused count, or 'n'. Final: nothing later on the
//                         socket is served.
// The paused count (kGrantPausedDigits decimal digits after the token): how many shared workers'
// processes were paused for this grant and stay on the GPU (core/shared_pause.h), so the worker's
// wait for the GPU to hold no other process expects them.
#pragma once
#include <cstddef>

namespace ptxbench {

inline constexpr size_t kGrantTokenLength = 32;  // hex characters after 'g'
inline constexpr size_t kGrantPausedDigits = 2;  // after the token: the paused count, "00" to "99"
inline constexpr size_t kGrantAnswerLength = 1 + kGrantTokenLength + kGrantPausedDigits;
inline constexpr char kAskForCleanBaseline = 'b';
inline constexpr char kGiveBack = 'r';
inline constexpr char kSharedAgain = 's';
inline constexpr char kAskForTiming = 'x';

}  // namespace ptxbench
