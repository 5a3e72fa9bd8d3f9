// The resolved configuration of one `ptxbench run`: defaults, then a TOML run config file
// (--config), then the command line (a flag given overrides the file). Stored with the run.
// File format (every key optional; an unknown key is an error naming the file and key):
//   model = "openai:gpt-5"            problems = "all" | ["gemm", "mha_fwd"]   suite = "4ops" (not both)
//   arch = "sm_90a"                   trajectories = 12        turns = 8
//   language = "cuda" | "triton"
//   knowledge = "params,ptx,contract" | ["params", "ptx"] | "none"
//   context_turns = 3 | "all"         max_infra_errors = 10    infra_retry_delay_s = 5
//   parallel = 0 (all trajectories)   compile_jobs = 0 (cores) limit = N
//   run_name = "my-run"               rejudge = false
//   [model_args]  temperature = 0.7, max_tokens = 32000, base_url = "...", api_key_env = "..."
//   [evaluation]  gpu = true, sanitize = true, probe = true, timing = true, device = 0
//   [prices."openai:gpt-5"]  input_per_mtok = 1.25, output_per_mtok = 10.0   (USD per million tokens)
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"

namespace ptxbench {

struct TokenPrices {
  double input_per_mtok = 0, output_per_mtok = 0;  // USD per million tokens; reasoning is billed as output
};

// Prompt-time supervision (fixit_core/repair_notes.h): after a failing turn, the feedback carries the
// top-k repair notes retrieved for it. The notes' content hash is part of the run's identity.
struct RepairNotesConfig {
  std::string source;  // "": none; a Fixit build id of the workspace, or a `fixit export --format records` file
  std::string sha256;  // of the notes loaded (set when the run starts)
  int k = 3;
  bool with_fixed_kernel = false;
  bool same_problem = false;  // notes of the problem being solved too (the paper's in-distribution condition)
  json to_json() const;
  // "notes" or "notes+kernel" (and "@same-problem"): how reports name the condition ("" for none).
  std::string condition() const;
};

struct RunConfig {
  std::string model;                 // PROVIDER:MODEL
  json model_args = json::object();  // provider options ([model_args] and --model-arg k=v)
  std::vector<std::string> problems{"all"};
  // The suite the problems come from (suites/<name>.toml), and each problem's split there ("train"
  // or "held-out"); empty without a suite. Stored with the run, so reports group by split.
  std::string suite;
  std::map<std::string, std::string> splits;
  std::string arch = "sm_90a";
  std::string language = "cuda";     // the candidates' language (core/language.h)
  int trajectories = 12, turns = 8;  // the paper's budget: 12 trajectories x 8 turns per problem
  std::string knowledge = "params,ptx,contract";
  int context_turns = 3;           // K of the context policy; -1: all
  int max_infra_errors = 10;       // infra errors tolerated in one invocation before the run stops
  double infra_retry_delay_s = 5;  // wait before retrying after an infra error
  int parallel = 0;                // trajectories in flight; 0: all of them
  int compile_jobs = 0;            // nvcc processes at once; 0: one per core
  std::optional<int> limit;        // at most this many new counted turns in this invocation
  std::string run_name;            // empty: derived from the identity
  bool rejudge = false;            // re-judge identical candidates within the run
  bool use_gpu = true, sanitize = true, probe = true, timing = true;
  int device = 0;
  std::map<std::string, TokenPrices> prices;  // by "PROVIDER:MODEL" or "MODEL"
  RepairNotesConfig repair_notes;

  json to_json() const;
  std::optional<TokenPrices> prices_for_model() const;
};

// Reads a run config file over `base` (the defaults). Throws InputError naming the file and key.
RunConfig load_run_config_file(const std::filesystem::path& file, RunConfig base = {});

// "k=v" -> (k, v): v read as a JSON number/boolean/null when it is one, else as a string.
// Throws InputError for a malformed pair or a key that would put a secret in the stored config
// (api_key, token, ...: name the environment variable instead, e.g. api_key_env=OPENAI_API_KEY).
std::pair<std::string, json> parse_model_arg(const std::string& pair);
void check_model_arg_name(const std::string& key, const std::string& where);

// Throws InputError for values out of range (trajectories < 1, ...), naming the setting.
void validate_run_config(const RunConfig& c);

// "3" -> 3, "all" -> -1 (the context policy's K). Throws InputError.
int parse_context_turns(const std::string& s);

}  // namespace ptxbench
