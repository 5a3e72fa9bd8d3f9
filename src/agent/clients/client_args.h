// Helpers for clients that read their options from ClientConfig::args.
#pragma once
#include <set>
#include <string>

#include "agent/clients/model_client.h"
#include "core/error.h"

namespace ptxbench {

// Throws InputError naming an argument the client does not know (a typo must not pass silently).
inline void require_known_args(const ClientConfig& c, const std::set<std::string>& known) {
  for (const auto& [k, v] : c.args.items())
    if (!known.count(k)) {
      std::string list;
      for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
      throw InputError(c.provider + ": unknown model argument '" + k + "' (known: " + (list.empty() ? "none" : list) +
                       ")");
    }
}

// A non-negative number argument in milliseconds (0 when absent). Throws InputError.
inline long long millis_arg(const ClientConfig& c, const std::string& key) {
  if (!c.args.contains(key)) return 0;
  const json& v = c.args[key];
  if (!v.is_number() || v.get<double>() < 0)
    throw InputError(c.provider + ": model argument " + key + " must be a number of milliseconds, 0 or more");
  return static_cast<long long>(v.get<double>());
}

}  // namespace ptxbench
