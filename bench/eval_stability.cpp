// Harness benchmark: evaluates one candidate N times in a row (default: the GEMM wgmma_tma
// reference, 5 runs) and reports the spread of the speedup and where the harness spends time.
//
//   eval_stability [--runs N] [--problem NAME] [--out FILE.json] [candidate.cu]
//
// Needs a GPU (run it through scripts/bench.sh on the device). Speed is compared as ratios
// measured side by side in one process (candidate vs baseline), never absolute times across runs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>

#include "core/json.h"
#include "core/subprocess.h"

using namespace ptxbench;

int main(int argc, char** argv) {
  int runs = 5;
  std::string problem = "gemm", candidate = "problems/gemm/reference/wgmma_tma.cu", out_file;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) runs = std::stoi(argv[++i]);
    else if (a == "--problem" && i + 1 < argc) problem = argv[++i];
    else if (a == "--out" && i + 1 < argc) out_file = argv[++i];
    else if (!a.empty() && a[0] != '-') candidate = a;
    else { std::cerr << "usage: eval_stability [--runs N] [--problem NAME] [--out FILE] [candidate.cu]\n"; return 1; }
  }
  const std::string ptxbench = PTXBENCH_BIN_DIR "/ptxbench";
  json results = json::array();
  std::vector<double> geomeans;
  std::map<std::string, std::vector<double>> per_shape;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    ProcessOptions opt;
    opt.timeout = std::chrono::minutes(15);
    auto p = run_process({ptxbench, "--workspace", "/tmp/ptxbench-bench", "eval", "--json", "--no-store", "--problem", problem, candidate}, opt);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    json r = json::parse(p.out, nullptr, false);
    if (r.is_discarded() || r.value("verdict", "") != "correct") {
      std::cerr << "run " << i + 1 << ": no correct record (" << p.describe() << ")\n" << p.err.substr(0, 2000) << "\n";
      return 2;
    }
    double candidate_s = 0, baseline_s = 0;
    json stages = json::object();
    for (const auto& s : r["stages"]) {
      stages[s["name"].get<std::string>()] = s["seconds"];
      if (s["name"] == "timing")
        for (const auto& t : s["detail"]["shapes"]) {
          candidate_s += t["candidate"]["total_ms"].get<double>() / 1e3;
          baseline_s += t["baseline"]["total_ms"].get<double>() / 1e3;
          std::string key;
          for (const auto& [k, v] : t["shape"].items()) key += k + "=" + v.dump() + " ";
          per_shape[key].push_back(t["speedup"].get<double>());
        }
    }
    double g = r["speedup_geomean"].get<double>();
    geomeans.push_back(g);
    // Harness time: the whole evaluation less the candidate's own timed kernels (an upper bound:
    // correctness calls and the baseline's samples count as harness time here).
    json row = {{"run", i + 1}, {"geomean_speedup", g}, {"wall_s", wall}, {"candidate_timed_kernels_s", candidate_s},
                {"baseline_timed_kernels_s", baseline_s}, {"harness_s", wall - candidate_s},
                {"harness_less_baseline_s", wall - candidate_s - baseline_s}, {"stage_seconds", stages}};
    results.push_back(row);
    std::printf("run %d: geomean speedup %.4f  wall %.2f s  harness %.2f s (%.2f s without baseline kernels)\n", i + 1, g,
                wall, wall - candidate_s, wall - candidate_s - baseline_s);
    std::fflush(stdout);
  }
  auto spread = [](const std::vector<double>& v) {
    double mn = *std::min_element(v.begin(), v.end()), mx = *std::max_element(v.begin(), v.end());
    double mean = 0;
    for (double x : v) mean += x / v.size();
    return std::pair{mean, (mx - mn) / mean};
  };
  auto [mean, rel] = spread(geomeans);
  std::printf("\ngeomean speedup over %d runs: mean %.4f, (max-min)/mean %.2f%% (goal: within 1%%)\n", runs, mean, 100 * rel);
  json shapes = json::object();
  for (const auto& [k, v] : per_shape) {
    auto [m, r] = spread(v);
    std::printf("  %-28s speedup mean %.4f, (max-min)/mean %.2f%%\n", k.c_str(), m, 100 * r);
    shapes[k] = {{"mean", m}, {"rel_range", r}, {"values", v}};
  }
  std::vector<double> harness;
  for (const auto& r : results) harness.push_back(r["harness_s"]);
  std::sort(harness.begin(), harness.end());
  std::printf("harness time per candidate (median of runs): %.2f s (goal: under 2 s)\n", harness[harness.size() / 2]);
  if (!out_file.empty())
    std::ofstream(out_file) << json{{"candidate", candidate}, {"runs", results}, {"geomean_mean", mean},
                                    {"geomean_rel_range", rel}, {"per_shape", shapes}}.dump(2) << "\n";
  return 0;
}
