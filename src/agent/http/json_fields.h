// Tolerant reads of fields in a provider's JSON: a missing field or one of another type is "absent",
// never an exception (providers omit and null fields freely).
#pragma once
#include <optional>
#include <string>

#include "core/json.h"

namespace ptxbench {

inline const json* field(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

inline std::string text_field(const json& j, const char* key) {
  const json* v = field(j, key);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

inline std::optional<long long> count_field(const json& j, const char* key) {
  const json* v = field(j, key);
  if (v && v->is_number_integer()) return v->get<long long>();
  if (v && v->is_number_float()) return static_cast<long long>(v->get<double>());
  return std::nullopt;
}

// A field that is a string or a number, as text ("insufficient_quota", "429"); "" otherwise.
inline std::string code_field(const json& j, const char* key) {
  const json* v = field(j, key);
  if (!v) return "";
  if (v->is_string()) return v->get<std::string>();
  if (v->is_number_integer()) return std::to_string(v->get<long long>());
  return "";
}

// Only whitespace (or nothing): not an answer.
inline bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

}  // namespace ptxbench
