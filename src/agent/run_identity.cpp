// What makes two invocations the same run (so the second resumes the first), and the run id made from it.
#include "agent/run_identity.h"

#include <algorithm>
#include <filesystem>

#include "core/content_hash.h"

namespace ptxbench {

json run_identity(const RunConfig& c) {
  std::vector<std::string> problems = c.problems;
  std::sort(problems.begin(), problems.end());
  json id = {{"model", c.model},
             {"model_args", c.model_args},
             {"arch", c.arch},
             {"knowledge", c.knowledge},
             {"problems", problems},
             {"context_turns", c.context_turns},
             {"evaluation", {{"gpu", c.use_gpu}, {"sanitize", c.sanitize}, {"probe", c.probe}, {"timing", c.timing}}}};
  // A suite labels the problems with their splits: part of the identity when given (runs without a
  // suite keep the ids they had before suites existed).
  if (!c.suite.empty()) id["suite"] = c.suite;
  // The language, when not CUDA (CUDA runs keep the ids they had before Triton existed).
  if (c.language != "cuda") id["language"] = c.language;
  // Repair notes change what the model is shown: their content (not where they were read from),
  // k and the switches (runs without notes keep their ids).
  if (!c.repair_notes.source.empty())
    id["repair_notes"] = {{"sha256", c.repair_notes.sha256},
                          {"k", c.repair_notes.k},
                          {"with_fixed_kernel", c.repair_notes.with_fixed_kernel},
                          {"same_problem", c.repair_notes.same_problem}};
  return id;
}

std::string run_identity_sha256(const RunConfig& c) { return content_sha256(run_identity(c).dump()); }

std::string run_id_for(const RunConfig& c) {
  if (!c.run_name.empty()) return c.run_name;
  const auto colon = c.model.find(':');
  std::string provider = colon == std::string::npos ? c.model : c.model.substr(0, colon);
  std::string model = colon == std::string::npos ? "" : c.model.substr(colon + 1);
  // replay:/files: name a path: its last component says more than the whole path.
  if (model.find('/') != std::string::npos) {
    std::filesystem::path p(model);
    model = (p.has_filename() ? p.filename() : p.parent_path().filename()).string();
  }
  std::string clean;
  for (char ch : model)
    clean += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-') ? ch : '-';
  if (clean.size() > 40) clean.resize(40);
  return provider + (clean.empty() ? "" : "-" + clean) + "-" + c.arch + "-" + run_identity_sha256(c).substr(0, 10);
}

}  // namespace ptxbench
