// A candidate submitted to the reward API (POST /v1/submissions): what the client sent, checked
// field by field. A body is one candidate object or {"candidates": [...]}; each error names where
// it is (a JSON path such as `candidates[3].source`) and what is wrong, so a trainer's bug report
// points at its own line. Nothing here touches the queue.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "core/json.h"

namespace ptxbench::api {

struct Submission {
  std::string key;                 // the client's idempotency key: the same key is judged once
  std::string problem;             // a problem this server knows
  std::string language;            // the server's language (today "cuda")
  std::string arch;                // the server's arch (e.g. "sm_90a")
  std::string source;              // the candidate file's bytes
  json metadata = json::object();  // the client's own, returned with the result
  // SHA-256 of the canonical body (everything above but the key): the same key with another
  // fingerprint is a conflict (HTTP 409), the same fingerprint a harmless retry.
  std::string fingerprint;
};

struct FieldError {
  std::string where;  // JSON path in the body, e.g. "candidates[2].problem"; "" for the body itself
  std::string what;
  json to_json() const { return {{"where", where}, {"what", what}}; }
};

// What the server judges, against which a submission is checked.
struct ServerFacts {
  std::string arch;
  std::string language = "cuda";
  std::set<std::string> problems;
};

struct SubmissionLimits {
  size_t max_batch = 256;             // candidates per request
  size_t max_source_bytes = 1 << 20;  // per candidate
  size_t max_key_length = 128;
  size_t max_metadata_bytes = 4096;
};

struct ParsedSubmissions {
  std::vector<Submission> candidates;  // empty when errors is not
  std::vector<FieldError> errors;
  bool batch = false;  // the body was {"candidates": [...]}
};

ParsedSubmissions parse_submissions(const std::string& body, const ServerFacts& server, const SubmissionLimits& limits);

// The job id in the service's queue for a client's key. A prefix of its own keeps clients' keys
// apart from the ids other submitters choose (`service submit`, `eval`).
std::string job_id_for_key(const std::string& key);
// The key of an API job id; "" when the id is not one of the API's.
std::string key_of_job_id(const std::string& job_id);
// Keys are 1..max_key_length characters of [A-Za-z0-9._:-] (they appear in URLs, unescaped).
bool valid_key(const std::string& key, size_t max_length);

}  // namespace ptxbench::api
