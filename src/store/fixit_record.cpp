// The Fixit record's JSON both ways, made from its one declaration (store/fixit_record.h).
#include "store/fixit_record.h"

#include <string_view>

#include "core/error.h"

namespace ptxbench {
namespace {

json json_of(const json& v) { return v; }
template <class T>
json json_of(const T& v) {
  return json(v);
}
template <class T>
json json_of(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

// The object `key` names the last part of, made on the way ("a.b.c": out["a"]["b"]).
json& parent_of(json& out, std::string_view key, std::string* last) {
  json* o = &out;
  size_t a = 0;
  for (size_t dot; (dot = key.find('.', a)) != std::string_view::npos; a = dot + 1)
    o = &(*o)[std::string(key.substr(a, dot - a))];
  *last = std::string(key.substr(a));
  return *o;
}

// The value under `key`; nullptr when absent (or a part on the way is no object).
const json* find_key(const json& in, std::string_view key) {
  const json* o = &in;
  size_t a = 0;
  while (true) {
    const size_t dot = key.find('.', a);
    if (!o->is_object()) return nullptr;
    auto it = o->find(std::string(key.substr(a, dot == std::string_view::npos ? dot : dot - a)));
    if (it == o->end()) return nullptr;
    if (dot == std::string_view::npos) return &*it;
    o = &*it;
    a = dot + 1;
  }
}

struct Reader {
  const std::string& where;
  [[noreturn]] void wrong(const char* key, const char* what, const json& v) const {
    throw InputError(where + ": field '" + key + "' must be " + what + " (got " + v.dump() + ")");
  }
  void read(const json& v, const char* key, std::string& m) const {
    if (!v.is_string()) wrong(key, "a string", v);
    m = v.get<std::string>();
  }
  void read(const json& v, const char* key, long long& m) const {
    if (!v.is_number_integer()) wrong(key, "an integer", v);
    m = v.get<long long>();
  }
  void read(const json& v, const char* key, int& m) const {
    long long x = 0;
    read(v, key, x);
    m = static_cast<int>(x);
  }
  void read(const json& v, const char* key, double& m) const {
    if (!v.is_number()) wrong(key, "a number", v);
    m = v.get<double>();
  }
  void read(const json& v, const char* key, bool& m) const {
    if (!v.is_boolean()) wrong(key, "true or false", v);
    m = v.get<bool>();
  }
  void read(const json& v, const char*, json& m) const { m = v; }
  template <class T>
  void read(const json& v, const char* key, std::optional<T>& m) const {
    T x{};
    read(v, key, x);
    m = std::move(x);
  }
};

}  // namespace

json fixit_record_json(const FixitRecord& r) {
  json out = json::object();
  std::string last;
#define PTXBENCH_FIXIT_RECORD_PUT(type, member, init, key, since, required, note) \
  parent_of(out, key, &last)[last] = json_of(r.member);
  PTXBENCH_FIXIT_RECORD_FIELDS(PTXBENCH_FIXIT_RECORD_PUT)
#undef PTXBENCH_FIXIT_RECORD_PUT
  for (const char* group : kFixitRecordNullGroups) {
    json& g = parent_of(out, group, &last)[last];
    bool all_null = g.is_object();
    for (const auto& v : g) all_null = all_null && v.is_null();
    if (all_null) g = nullptr;
  }
  return out;
}

FixitRecord fixit_record_from_json(const json& j, const std::string& where) {
  if (!j.is_object() || j.value("format", "") != kFixitRecordFormat)
    throw InputError(where + ": not a " + std::string(kFixitRecordFormat) + " record");
  FixitRecord r;
  const Reader reader{where};
#define PTXBENCH_FIXIT_RECORD_GET(type, member, init, key, since, required, note)           \
  if (const json* v = find_key(j, key); v && !v->is_null()) reader.read(*v, key, r.member); \
  else if (required) throw InputError(where + ": field '" + std::string(key) + "' must be a string");
  PTXBENCH_FIXIT_RECORD_FIELDS(PTXBENCH_FIXIT_RECORD_GET)
#undef PTXBENCH_FIXIT_RECORD_GET
  return r;
}

}  // namespace ptxbench
