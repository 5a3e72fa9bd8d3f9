// Whether a timed worker's samples followed the harness's own grant of exclusive use of the GPU.
#include "judge/timed_grant.h"

#include <algorithm>

#include "judge/result_lines.h"

namespace ptxbench {

std::string new_grant_token() { return new_channel_key().substr(0, kGrantTokenLength); }

std::string why_timed_without_grant(const WorkerRun& run, bool granted) {
  const std::string socket = " (its exclusive-use socket was closed, replaced or answered by code besides the harness)";
  // The honest worker writes only its requests, in order: anything else came from candidate code.
  if (!run.exclusive_handshake_misuse.empty())
    return "code besides the harness wrote on the timed worker's exclusive-use socket: " +
           run.exclusive_handshake_misuse;
  if (!granted)
    return run.done ? "the timed worker took its samples without the harness's grant of exclusive use" + socket : "";
  const auto grants = run.of_type("exclusive_gpu");
  if (grants.empty())
    return run.done ? "the timed worker was granted exclusive use but reported no grant" + socket : "";
  // Every grant it reports must be one the harness gave, and one of them its grant for timing.
  bool timing_grant_reported = false;
  for (const auto& g : grants) {
    const std::string seen = g.value("grant", "");
    timing_grant_reported = timing_grant_reported || seen == run.exclusive_grant_token;
    if (seen.empty() || std::find(run.exclusive_grant_tokens.begin(), run.exclusive_grant_tokens.end(), seen) ==
                            run.exclusive_grant_tokens.end())
      return "the timed worker was timed on a grant the harness never gave: it was answered with " +
             (seen.empty() ? std::string("no token") : "token " + seen.substr(0, 8) + "...") + ", the harness's was " +
             run.exclusive_grant_token.substr(0, 8) + "..." + socket;
  }
  if (!timing_grant_reported && run.done)
    return "the timed worker reported no grant for its timed samples, only the one for the library's clean timings" +
           socket;
  return "";
}

}  // namespace ptxbench
