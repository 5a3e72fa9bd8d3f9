// Harness benchmark: evaluates one candidate N times in a row (default: the GEMM wgmma_tma
// reference, 5 runs) and reports the spread of the speedup and where the harness spends time.
//
//   eval_stability [--runs N] [--problem NAME] [--out FILE.json] [--accounting-ab] [candidate.cu]
//
// --accounting-ab: the runs alternate between the GPU activity audit on and off (--no-accounting;
// both with --no-probe, so the only difference is CUPTI tracing) and the candidate's and the
// baseline's medians per shape are compared: the tracing must not perturb the timed samples.
//
// Needs a GPU (run it through scripts/bench.sh on the device). Speed is compared as ratios
// measured side by side in one process (candidate vs baseline), never absolute times across runs.
#include <algorithm>
#include <array>
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
  bool ab = false;
  std::string problem = "gemm", candidate = "problems/gemm/reference/wgmma_tma.cu", out_file;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) runs = std::stoi(argv[++i]);
    else if (a == "--problem" && i + 1 < argc) problem = argv[++i];
    else if (a == "--out" && i + 1 < argc) out_file = argv[++i];
    else if (a == "--accounting-ab") ab = true;
    else if (!a.empty() && a[0] != '-') candidate = a;
    else {
      std::cerr << "usage: eval_stability [--runs N] [--problem NAME] [--out FILE] [--accounting-ab] [candidate.cu]\n";
      return 1;
    }
  }
  const std::string ptxbench = PTXBENCH_BIN_DIR "/ptxbench";
  json results = json::array();
  std::vector<double> geomeans;
  std::map<std::string, std::vector<double>> per_shape;
  // --accounting-ab: per shape and side, the medians with tracing on [0] and off [1].
  std::map<std::string, std::array<std::vector<double>, 2>> cand_ms, base_ms;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    ProcessOptions opt;
    opt.timeout = std::chrono::minutes(15);
    const bool tracing_off = ab && i % 2 == 1;
    std::vector<std::string> argv{ptxbench, "--workspace", "/tmp/ptxbench-bench", "eval",
                                  "--json", "--no-store",  "--problem",           problem};
    if (ab) argv.push_back("--no-probe");
    if (tracing_off) argv.push_back("--no-accounting");
    argv.push_back(candidate);
    auto p = run_process(argv, opt);
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
          cand_ms[key][tracing_off].push_back(t["candidate"]["median_ms"].get<double>());
          base_ms[key][tracing_off].push_back(t["baseline"]["median_ms"].get<double>());
        }
    }
    double g = r["speedup_geomean"].get<double>();
    geomeans.push_back(g);
    // Harness time: the whole evaluation less the candidate's own timed kernels (an upper bound:
    // correctness calls and the baseline's samples count as harness time here).
    json row = {{"run", i + 1},
                {"geomean_speedup", g},
                {"wall_s", wall},
                {"candidate_timed_kernels_s", candidate_s},
                {"baseline_timed_kernels_s", baseline_s},
                {"harness_s", wall - candidate_s},
                {"harness_less_baseline_s", wall - candidate_s - baseline_s},
                {"stage_seconds", stages}};
    results.push_back(row);
    std::printf("run %d: geomean speedup %.4f  wall %.2f s  harness %.2f s (%.2f s without baseline kernels)\n", i + 1,
                g, wall, wall - candidate_s, wall - candidate_s - baseline_s);
    std::fflush(stdout);
  }
  auto spread = [](const std::vector<double>& v) {
    double mn = *std::min_element(v.begin(), v.end()), mx = *std::max_element(v.begin(), v.end());
    double mean = 0;
    for (double x : v) mean += x / v.size();
    return std::pair{mean, (mx - mn) / mean};
  };
  auto [mean, rel] = spread(geomeans);
  std::printf("\ngeomean speedup over %d runs: mean %.4f, (max-min)/mean %.2f%% (goal: within 1%%)\n", runs, mean,
              100 * rel);
  json shapes = json::object();
  for (const auto& [k, v] : per_shape) {
    auto [m, r] = spread(v);
    std::printf("  %-28s speedup mean %.4f, (max-min)/mean %.2f%%\n", k.c_str(), m, 100 * r);
    shapes[k] = {{"mean", m}, {"rel_range", r}, {"values", v}};
  }
  json ab_json = json::object();
  if (ab) {
    auto mean_of = [](const std::vector<double>& v) {
      double m = 0;
      for (double x : v) m += x / v.size();
      return m;
    };
    std::printf("\nGPU activity tracing on vs off (means of per-run medians; ratio on/off):\n");
    for (const auto& [k, c] : cand_ms) {
      const auto& b = base_ms[k];
      if (c[0].empty() || c[1].empty()) continue;
      const double con = mean_of(c[0]), coff = mean_of(c[1]), bon = mean_of(b[0]), boff = mean_of(b[1]);
      std::printf("  %-28s candidate %.4f / %.4f ms (%.4f)   baseline %.4f / %.4f ms (%.4f)\n", k.c_str(), con, coff,
                  con / coff, bon, boff, bon / boff);
      ab_json[k] = {
          {"candidate_on_ms", con}, {"candidate_off_ms", coff}, {"baseline_on_ms", bon}, {"baseline_off_ms", boff}};
    }
  }
  std::vector<double> harness;
  for (const auto& r : results) harness.push_back(r["harness_s"]);
  std::sort(harness.begin(), harness.end());
  std::printf("harness time per candidate (median of runs): %.2f s (goal: under 2 s)\n", harness[harness.size() / 2]);
  if (!out_file.empty())
    std::ofstream(out_file) << json{{"candidate", candidate},   {"runs", results},     {"geomean_mean", mean},
                                    {"geomean_rel_range", rel}, {"per_shape", shapes}, {"accounting_ab", ab_json}}
                                   .dump(2)
                            << "\n";
  return 0;
}
