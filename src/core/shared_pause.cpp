// The cooperative pause of a shared-lane worker as both ends spell it: the keys and the pause report.
#include "core/shared_pause.h"

#include <type_traits>

#include "core/error.h"

namespace ptxbench {
namespace {

template <typename T>
T read_key(const json& j, const char* key, const char* type) {
  const auto it = j.find(key);
  if (it == j.end()) fail(std::string("pause report: key '") + key + "' is missing");
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) fail(std::string("pause report: key '") + key + "' must be " + type);
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean()) fail(std::string("pause report: key '") + key + "' must be " + type);
  } else {
    if (!it->is_number_integer() || (std::is_unsigned_v<T> && !it->is_number_unsigned() && it->get<int64_t>() < 0))
      fail(std::string("pause report: key '") + key + "' must be " + type);
  }
  return it->get<T>();
}

}  // namespace

json to_json(const PauseReport& r) {
  json work = json::array();
  for (const auto& s : r.work)
    work.push_back(
        {{"start_ns", s.start_ns}, {"end_ns", s.end_ns}, {"kind", s.kind}, {"actor", s.actor}, {"name", s.name}});
  return {{"pause", r.pause},
          {"acked_ns", r.acked_ns},
          {"resumed_ns", r.resumed_ns},
          {"activity_known", r.activity_known},
          {"work", work},
          {"more", r.more},
          {"dropped_records", r.dropped_records}};
}

PauseReport parse_pause_report(const json& j) {
  if (!j.is_object()) fail("pause report: not a JSON object");
  PauseReport r;
  r.pause = read_key<int>(j, "pause", "an integer");
  r.acked_ns = read_key<uint64_t>(j, "acked_ns", "a non-negative integer");
  r.resumed_ns = read_key<uint64_t>(j, "resumed_ns", "a non-negative integer");
  r.activity_known = read_key<bool>(j, "activity_known", "a boolean");
  r.more = read_key<uint64_t>(j, "more", "a non-negative integer");
  r.dropped_records = read_key<uint64_t>(j, "dropped_records", "a non-negative integer");
  const auto work = j.find("work");
  if (work == j.end() || !work->is_array()) fail("pause report: key 'work' must be an array");
  for (const auto& w : *work) {
    if (!w.is_object()) fail("pause report: an entry of 'work' is not an object");
    ActivitySpan s;
    s.start_ns = read_key<uint64_t>(w, "start_ns", "a non-negative integer");
    s.end_ns = read_key<uint64_t>(w, "end_ns", "a non-negative integer");
    s.kind = read_key<std::string>(w, "kind", "a string");
    s.actor = read_key<std::string>(w, "actor", "a string");
    s.name = read_key<std::string>(w, "name", "a string");
    r.work.push_back(std::move(s));
  }
  return r;
}

}  // namespace ptxbench
