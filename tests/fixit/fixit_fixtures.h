// Hand-made turns for the Fixit tests: a judged turn of a run, with the evaluation the fake service
// and the pipeline would store.
#pragma once
#include <string>

#include "fixit/source_turns.h"

namespace ptxbench::test {

inline EvaluationRecord judged(const std::string& verdict, std::optional<bool> target = true,
                               std::optional<double> speedup = 0.8) {
  EvaluationRecord r;
  r.problem = "mha_fwd";
  r.arch = "sm_90a";
  r.verdict = *verdict_from_string(verdict);
  if (r.verdict == Verdict::correct) {
    r.target_executed = target;
    r.speedup_geomean = speedup;
    r.add_stage({"correctness", StageStatus::ok, 1, "ok", json::object()});
  } else if (r.verdict == Verdict::compile_error) {
    r.add_stage({"build",
                 StageStatus::failed,
                 1,
                 "x",
                 {{"verdict", "compile_error"},
                  {"diagnostics",
                   json::array({{{"severity", "error"}, {"tool", "cudafe"}, {"message", "expected a \";\""}}})}}});
  } else {
    r.add_stage({"correctness",
                 StageStatus::failed,
                 1,
                 "x",
                 {{"verdict", verdict},
                  {"failures",
                   json::array({{{"shape", {{"S", 128}}},
                                 {"hidden", false},
                                 {"detail", {{"outputs", json::array({{{"output", "O"}, {"mismatches", 3}}})}}}}})}}});
  }
  return r;
}

inline fixit::SourceTurn turn(const std::string& run, const std::string& problem, int traj, int t,
                              const std::string& verdict, const std::string& kernel, std::optional<bool> target = true,
                              std::optional<double> speedup = 0.8) {
  fixit::SourceTurn s;
  s.source = "test";
  s.run = run;
  s.model = "scripted:test";
  s.arch = "sm_90a";
  s.knowledge = "params,ptx,contract";
  s.problem = problem;
  s.trajectory = traj;
  s.turn = t;
  s.phase = "done";
  s.state = verdict;
  s.evaluation = judged(verdict, target, speedup);
  s.evaluation->problem = problem;
  s.candidate = kernel;
  s.candidate_sha256 = "sha-" + kernel;
  s.reply = "Here is my kernel.\n```cuda\n" + kernel + "\n```\n";
  s.feedback = "## Result of turn " + std::to_string(t + 1) + ": " + verdict;
  s.request = {{"messages", json::array({{{"role", "user"}, {"content", "Write " + problem + "."}}})}};
  s.system = "You write kernels.";
  return s;
}

}  // namespace ptxbench::test
