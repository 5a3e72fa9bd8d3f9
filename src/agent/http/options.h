// Typed reads of a client's options: ClientConfig::args (from --model-arg k=v and the run config),
// with a request's ChatRequest::options laid over them. Command-line values arrive as strings
// ("0.7"), so numbers are read from numbers or numeric strings; a wrong type or an unknown key is an
// InputError that names the option and the known ones (no silently ignored typo).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"

namespace ptxbench {

class Options {
 public:
  // `known`: every key this provider reads. Throws InputError for any other key.
  Options(const json& values, std::string provider, std::vector<std::string> known);

  // These options with `overrides` laid over them. Throws InputError for an unknown key, or for a
  // key in `fixed` whose value differs (connection settings cannot change per request).
  Options with(const json& overrides, const std::vector<std::string>& fixed) const;

  bool has(const std::string& key) const;
  std::optional<double> number(const std::string& key) const;
  std::optional<long long> integer(const std::string& key) const;
  std::optional<std::string> text(const std::string& key) const;
  std::optional<bool> flag(const std::string& key) const;
  // A JSON object, given as one or as a string holding one (`--model-arg extra_body={...}`).
  std::optional<json> object(const std::string& key) const;

  double number_or(const std::string& key, double fallback) const { return number(key).value_or(fallback); }
  std::string text_or(const std::string& key, const std::string& fallback) const {
    return text(key).value_or(fallback);
  }
  const json& values() const { return values_; }

 private:
  [[noreturn]] void bad(const std::string& key, const std::string& expected) const;
  json values_;
  std::string provider_;
  std::vector<std::string> known_;
};

}  // namespace ptxbench
