// Integers read from stored or received JSON. nlohmann's get<int>() converts a float or an
// out-of-range number without a check (undefined behaviour for a float past the type's range, found
// by the record fuzzer); these say what was wrong and where instead.
#pragma once
#include <concepts>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.h"
#include "core/json.h"

namespace ptxbench {

// `v` as T: an integer literal (never a float, bool or string) within T's range, else InputError
// naming `what`.
template <std::integral T>
T json_integer(const json& v, std::string_view what) {
  auto bad = [&](const char* why) {
    return InputError(std::string(what) + ": " + why + " (got " + v.dump().substr(0, 64) + ")");
  };
  if (v.is_number_unsigned()) {
    const auto u = v.get<json::number_unsigned_t>();
    if (!std::in_range<T>(u)) throw bad("integer out of range");
    return static_cast<T>(u);
  }
  if (!v.is_number_integer()) throw bad("must be an integer");
  const auto i = v.get<json::number_integer_t>();
  if (!std::in_range<T>(i)) throw bad("integer out of range");
  return static_cast<T>(i);
}

// An object of integers, e.g. a shape {"M": 4096, ...} or per-family instruction counts.
inline std::map<std::string, long long> json_integer_map(const json& v, std::string_view what) {
  if (!v.is_object()) throw InputError(std::string(what) + ": must be an object of integers");
  std::map<std::string, long long> out;
  for (const auto& [k, x] : v.items()) out[k] = json_integer<long long>(x, std::string(what) + "." + k);
  return out;
}

}  // namespace ptxbench
