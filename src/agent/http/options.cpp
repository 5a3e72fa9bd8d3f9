// Typed reads of a client's options (--model-arg and the run config, a request's options over them).
#include "agent/http/options.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/error.h"

namespace ptxbench {
namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::optional<double> to_double(const std::string& s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

Options::Options(const json& values, std::string provider, std::vector<std::string> known)
    : values_(values.is_null() ? json::object() : values), provider_(std::move(provider)), known_(std::move(known)) {
  if (!values_.is_object()) throw InputError(provider_ + " options: expected an object of key = value pairs");
  for (const auto& [key, value] : values_.items())
    if (std::find(known_.begin(), known_.end(), key) == known_.end())
      throw InputError("unknown option '" + key + "' for the " + provider_ + " client (known: " + join(known_) + ")");
}

Options Options::with(const json& overrides, const std::vector<std::string>& fixed) const {
  if (overrides.is_null() || (overrides.is_object() && overrides.empty())) return *this;
  json merged = values_;
  if (!overrides.is_object()) throw InputError(provider_ + " request options: expected an object");
  for (const auto& [key, value] : overrides.items()) {
    const bool is_fixed = std::find(fixed.begin(), fixed.end(), key) != fixed.end();
    if (is_fixed && (!values_.contains(key) || values_.at(key) != value))
      throw InputError("option '" + key + "' of the " + provider_ +
                       " client is set when the client is made, not per request");
    merged[key] = value;
  }
  return Options(merged, provider_, known_);
}

void Options::bad(const std::string& key, const std::string& expected) const {
  throw InputError(provider_ + " option '" + key + "' = " + values_.at(key).dump() + ": expected " + expected);
}

bool Options::has(const std::string& key) const { return values_.contains(key) && !values_.at(key).is_null(); }

std::optional<double> Options::number(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  const json& v = values_.at(key);
  if (v.is_number()) return v.get<double>();
  if (v.is_string())
    if (auto d = to_double(v.get<std::string>())) return d;
  bad(key, "a number");
}

std::optional<long long> Options::integer(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  const json& v = values_.at(key);
  if (v.is_number_integer()) return v.get<long long>();
  const auto d = number(key);
  if (!d || std::floor(*d) != *d || std::fabs(*d) > 9e15) bad(key, "an integer");
  return static_cast<long long>(*d);
}

std::optional<std::string> Options::text(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  const json& v = values_.at(key);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return v.dump();
  bad(key, "a string");
}

std::optional<bool> Options::flag(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  const json& v = values_.at(key);
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string()) {
    const auto s = v.get<std::string>();
    if (s == "true" || s == "1" || s == "yes") return true;
    if (s == "false" || s == "0" || s == "no") return false;
  }
  bad(key, "true or false");
}

std::optional<json> Options::object(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  const json& v = values_.at(key);
  if (v.is_object()) return v;
  if (v.is_string()) {
    json parsed = json::parse(v.get<std::string>(), nullptr, false);
    if (parsed.is_object()) return parsed;
  }
  bad(key, "a JSON object");
}

}  // namespace ptxbench
