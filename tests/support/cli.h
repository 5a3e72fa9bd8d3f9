// Runs the built ptxbench binaries from tests and parses their JSON output.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/subprocess.h"

namespace ptxbench::test {

inline std::filesystem::path source_dir() { return PTXBENCH_SOURCE_DIR; }
// $PTXBENCH_TEST_BIN_DIR runs the tests against other binaries (e.g. a build of the code before a
// change, to see a new test fail there).
inline std::filesystem::path bin_dir() {
  if (const char* d = std::getenv("PTXBENCH_TEST_BIN_DIR"); d && *d) return d;
  return PTXBENCH_BIN_DIR;
}

// stdout as one JSON value, or, for JSONL (`eval --json` of several files prints one record per
// line), the array of its lines; null when it is neither.
inline json parse_json_or_lines(const std::string& out) {
  json whole = json::parse(out, nullptr, false);
  if (!whole.is_discarded()) return whole;
  json lines = json::array();
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    if (end > start) {
      json line = json::parse(out.substr(start, end - start), nullptr, false);
      if (line.is_discarded()) return nullptr;
      lines.push_back(std::move(line));
    }
    start = end + 1;
  }
  return lines.empty() ? json(nullptr) : lines;
}

struct CliRun {
  ProcessResult process;
  json output;  // parsed stdout when it is JSON, else null
};

// `ptxbench --workspace <ws> <args...>` run from the source dir (so problems/ is found).
inline CliRun run_cli(const std::filesystem::path& workspace, const std::vector<std::string>& args,
                      std::chrono::seconds timeout = std::chrono::seconds(900),
                      const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv{(bin_dir() / "ptxbench").string(), "--workspace", workspace.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions opt;
  opt.timeout = timeout;
  opt.extra_env = env;
  opt.working_dir = source_dir().string();
  CliRun r;
  r.process = run_process(argv, opt);
  r.output = parse_json_or_lines(r.process.out);
  return r;
}

inline std::filesystem::path fresh_workspace(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() / ("ptxbench-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

// The stage named `name` in a record, or null.
inline json stage_of(const json& record, const std::string& name) {
  for (const auto& s : record.at("stages"))
    if (s.at("name") == name) return s;
  return nullptr;
}

}  // namespace ptxbench::test
