// Checks a submitted candidate field by field, each error naming its JSON path, and maps keys to job ids.
#include "api/submission.h"

#include <map>

#include "core/content_hash.h"

namespace ptxbench::api {
namespace {

constexpr const char* kJobPrefix = "api/";

std::string join(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

const char* type_name(const json& v) { return v.type_name(); }

// One candidate object at `where` ("" for a lone candidate, "candidates[i]" in a batch).
Submission parse_one(const json& c, const std::string& where, const ServerFacts& server, const SubmissionLimits& limits,
                     std::vector<FieldError>& errors) {
  const auto at = [&](const char* field) { return where.empty() ? std::string(field) : where + "." + field; };
  Submission s;
  if (!c.is_object()) {
    errors.push_back({where, std::string("expected a candidate object, got ") + type_name(c)});
    return s;
  }
  static const std::set<std::string> known = {"key", "problem", "language", "arch", "source", "options", "metadata"};
  for (const auto& [name, _] : c.items())
    if (!known.count(name)) errors.push_back({at(name.c_str()), "unknown field (known: " + join(known) + ")"});
  const auto text = [&](const char* field, bool required, std::string* out) {
    if (!c.contains(field)) {
      if (required) errors.push_back({at(field), "missing"});
      return;
    }
    if (!c[field].is_string()) {
      errors.push_back({at(field), std::string("expected a string, got ") + type_name(c[field])});
      return;
    }
    *out = c[field].get<std::string>();
  };
  text("key", true, &s.key);
  if (c.contains("key") && c["key"].is_string() && !valid_key(s.key, limits.max_key_length))
    errors.push_back({at("key"), "must be 1 to " + std::to_string(limits.max_key_length) +
                                     " characters of A-Z a-z 0-9 . _ : - (got " + std::to_string(s.key.size()) +
                                     " characters)"});
  text("problem", true, &s.problem);
  if (!s.problem.empty() && !server.problems.count(s.problem))
    errors.push_back(
        {at("problem"), "unknown problem '" + s.problem + "' (this server has: " + join(server.problems) + ")"});
  s.language = server.language;
  text("language", false, &s.language);
  if (s.language != server.language)
    errors.push_back(
        {at("language"), "this server judges '" + server.language + "' candidates, not '" + s.language + "'"});
  s.arch = server.arch;
  text("arch", false, &s.arch);
  if (s.arch != server.arch)
    errors.push_back({at("arch"), "this server judges for " + server.arch + ", not '" + s.arch +
                                      "' (run a `ptxbench serve --arch " + s.arch + "` for it)"});
  text("source", true, &s.source);
  if (c.contains("source") && c["source"].is_string()) {
    if (s.source.empty()) errors.push_back({at("source"), "empty"});
    if (s.source.size() > limits.max_source_bytes)
      errors.push_back({at("source"), std::to_string(s.source.size()) + " bytes, over the limit of " +
                                          std::to_string(limits.max_source_bytes)});
  }
  if (c.contains("options")) {
    // The stage switches (sanitizers, timing, ...) are the server's flags, the same for every
    // candidate: a reward must not depend on what a client chose to skip.
    if (!c["options"].is_object())
      errors.push_back({at("options"), std::string("expected an object, got ") + type_name(c["options"])});
    else
      for (const auto& [name, _] : c["options"].items())
        errors.push_back({at("options") + "." + name,
                          "not settable per candidate: the stages this server runs are its `serve` flags"});
  }
  if (c.contains("metadata")) {
    if (!c["metadata"].is_object())
      errors.push_back({at("metadata"), std::string("expected an object, got ") + type_name(c["metadata"])});
    else if (c["metadata"].dump().size() > limits.max_metadata_bytes)
      errors.push_back({at("metadata"), "over " + std::to_string(limits.max_metadata_bytes) + " bytes as JSON"});
    else s.metadata = c["metadata"];
  }
  const json canonical = {{"problem", s.problem},
                          {"language", s.language},
                          {"arch", s.arch},
                          {"source", s.source},
                          {"metadata", s.metadata}};
  s.fingerprint = content_sha256(canonical.dump());
  return s;
}

}  // namespace

bool valid_key(const std::string& key, size_t max_length) {
  if (key.empty() || key.size() > max_length) return false;
  for (char ch : key) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                    ch == '_' || ch == ':' || ch == '-';
    if (!ok) return false;
  }
  return true;
}

std::string job_id_for_key(const std::string& key) { return kJobPrefix + key; }

std::string key_of_job_id(const std::string& job_id) {
  const std::string prefix = kJobPrefix;
  return job_id.rfind(prefix, 0) == 0 ? job_id.substr(prefix.size()) : "";
}

ParsedSubmissions parse_submissions(const std::string& body, const ServerFacts& server,
                                    const SubmissionLimits& limits) {
  ParsedSubmissions out;
  const json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded()) {
    out.errors.push_back({"", "the body is not JSON"});
    return out;
  }
  std::vector<Submission> parsed;
  if (doc.is_object() && doc.contains("candidates")) {
    out.batch = true;
    for (const auto& [name, _] : doc.items())
      if (name != "candidates") out.errors.push_back({name, "unknown field beside `candidates`"});
    const json& list = doc["candidates"];
    if (!list.is_array()) {
      out.errors.push_back({"candidates", std::string("expected an array, got ") + type_name(list)});
      return out;
    }
    if (list.empty()) out.errors.push_back({"candidates", "empty"});
    if (list.size() > limits.max_batch)
      out.errors.push_back({"candidates", std::to_string(list.size()) + " candidates, over the limit of " +
                                              std::to_string(limits.max_batch) + " per request"});
    if (!out.errors.empty()) return out;
    for (size_t i = 0; i < list.size(); ++i)
      parsed.push_back(parse_one(list[i], "candidates[" + std::to_string(i) + "]", server, limits, out.errors));
  } else {
    parsed.push_back(parse_one(doc, "", server, limits, out.errors));
  }
  // One key twice in a batch: the same candidate is harmless, two candidates are the client's bug.
  std::map<std::string, size_t> first;
  std::vector<Submission> unique;
  for (size_t i = 0; i < parsed.size(); ++i) {
    if (parsed[i].key.empty()) continue;
    auto [it, fresh] = first.emplace(parsed[i].key, i);
    if (fresh) {
      unique.push_back(parsed[i]);
    } else if (parsed[it->second].fingerprint != parsed[i].fingerprint) {
      out.errors.push_back(
          {"candidates[" + std::to_string(i) + "].key", "'" + parsed[i].key + "' is also the key of candidates[" +
                                                            std::to_string(it->second) + "], a different candidate"});
    }
  }
  if (out.errors.empty()) out.candidates = std::move(unique);
  return out;
}

}  // namespace ptxbench::api
