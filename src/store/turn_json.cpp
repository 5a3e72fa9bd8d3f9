// A turn's declared fields as JSON both ways, under export keys or report columns.
#include "store/turn_json.h"

#include <optional>
#include <string>

#include "core/error.h"

namespace ptxbench {
namespace {

std::string key_of(const char* member, const char* export_key, TurnKeys keys) {
  return keys == TurnKeys::export_keys ? std::string(export_key) : std::string(member);
}

bool wanted(const char* export_key, bool report, TurnKeys keys) {
  return keys == TurnKeys::export_keys ? *export_key != '\0' : report;
}

json value(const json& v) { return v; }
template <class T>
json value(const T& v) {
  return json(v);
}
template <class T>
json value(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

void put(json& out, const std::string& key, json v) {
  const auto dot = key.find('.');
  if (dot == std::string::npos) out[key] = std::move(v);
  else out[key.substr(0, dot)][key.substr(dot + 1)] = std::move(v);
}

// The value under `key` ("a.b": b in the object a); nullptr when absent (or a is no object).
const json* find(const json& in, const std::string& key) {
  const auto dot = key.find('.');
  const std::string head = key.substr(0, dot);
  auto it = in.find(head);
  if (it == in.end()) return nullptr;
  if (dot == std::string::npos) return &*it;
  if (!it->is_object()) return nullptr;
  auto inner = it->find(key.substr(dot + 1));
  return inner == it->end() ? nullptr : &*inner;
}

[[noreturn]] void wrong(const std::string& key, const std::string& what, const json& v) {
  throw InputError("field '" + key + "' must be " + what + " (got " + v.dump() + ")");
}

void read(const json& v, const std::string& key, std::string& m) {
  if (!v.is_string()) wrong(key, "a string", v);
  m = v.get<std::string>();
}
void read(const json& v, const std::string& key, long long& m) {
  if (!v.is_number_integer() || v.get<long long>() < 0) wrong(key, "a non-negative integer", v);
  m = v.get<long long>();
}
void read(const json& v, const std::string& key, int& m) {
  long long x = 0;
  read(v, key, x);
  m = static_cast<int>(x);
}
void read(const json& v, const std::string& key, double& m) {
  if (!v.is_number()) wrong(key, "a number", v);
  m = v.get<double>();
}
void read(const json& v, const std::string& key, bool& m) {
  if (!v.is_boolean()) wrong(key, "true or false", v);
  m = v.get<bool>();
}
void read(const json& v, const std::string&, json& m) { m = v; }
template <class T>
void read(const json& v, const std::string& key, std::optional<T>& m) {
  T x{};
  read(v, key, x);
  m = std::move(x);
}

}  // namespace

void put_turn_fields(const TurnRow& t, TurnKeys keys, json& out) {
#define PTXBENCH_PUT_TURN_FIELD(storage, type, member, init, since, export_key, report, unit, note) \
  if (wanted(export_key, report != 0, keys)) put(out, key_of(#member, export_key, keys), value(t.member));
  PTXBENCH_TURN_FIELDS(PTXBENCH_PUT_TURN_FIELD)
#undef PTXBENCH_PUT_TURN_FIELD
}

void get_turn_fields(const json& in, TurnKeys keys, TurnRow* t) {
  if (!in.is_object()) throw InputError("a turn must be a JSON object");
#define PTXBENCH_GET_TURN_FIELD(storage, type, member, init, since, export_key, report, unit, note) \
  if (wanted(export_key, report != 0, keys)) {                                                      \
    const std::string key = key_of(#member, export_key, keys);                                      \
    if (const json* v = find(in, key); v && !v->is_null()) read(*v, key, t->member);                \
  }
  PTXBENCH_TURN_FIELDS(PTXBENCH_GET_TURN_FIELD)
#undef PTXBENCH_GET_TURN_FIELD
}

}  // namespace ptxbench
