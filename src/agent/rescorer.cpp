// `ptxbench rescore RUN`: judges a run's stored candidates again, each distinct one once, without the model.
#include "agent/rescorer.h"

#include <utility>

namespace ptxbench {

RescoreOutcome rescore_run(RunStore& store, const std::string& run_id, const std::vector<ProblemSpec>& problems,
                           CandidateService& service, RunProgress& progress) {
  RescoreOutcome out;
  std::vector<TurnRow> turns;
  if (auto s = store.load_turns(run_id, &turns); !s.ok) {
    out.errors.push_back(s.error);
    return out;
  }
  std::map<std::pair<std::string, std::string>, std::vector<TurnRow*>> groups;
  for (auto& t : turns) {
    if (t.phase != "done") {
      ++out.pending_skipped;
      continue;
    }
    if (t.candidate_sha256) groups[{t.problem, *t.candidate_sha256}].push_back(&t);
  }
  struct Job {
    std::vector<TurnRow*> turns;
    CandidateTicket ticket;
  };
  std::vector<Job> jobs;
  for (auto& [key, group] : groups) {
    const ProblemSpec* spec = nullptr;
    for (const auto& p : problems)
      if (p.name == key.first) spec = &p;
    if (!spec) {
      out.errors.push_back("problem '" + key.first + "' of the run is not among the loaded problems");
      continue;
    }
    std::string source;
    if (auto s = store.candidate_source(key.second, &source); !s.ok) {
      out.errors.push_back(s.error);
      continue;
    }
    const TurnRow& first = *group.front();
    jobs.push_back({group, service.submit({spec, source,
                                           first.problem + "/" + std::to_string(first.trajectory) + "/" +
                                               std::to_string(first.turn) + " (rescore)"})});
  }
  for (auto& job : jobs) {
    CandidateResult result;
    try {
      result = job.ticket.wait();
    } catch (const std::exception& e) {
      ++out.infra_errors;
      out.errors.push_back(std::string("judging failed in the harness: ") + e.what());
      progress.message(out.errors.back());
      continue;
    }
    ++out.candidates;
    const EvaluationRecord& r = result.record;
    if (r.verdict == Verdict::infra_error) {
      ++out.infra_errors;
      progress.message("infra_error while rescoring " + job.turns.front()->problem + " " +
                       r.candidate_sha256.substr(0, 12) + ": " + r.reason + " (its old judgment is kept)");
      continue;
    }
    bool first = true;
    std::optional<long long> evaluation_id;  // inserted with the first turn, shared by the others
    for (TurnRow* t : job.turns) {
      if (!first) t->evaluation_id = evaluation_id;
      const std::string before = t->state;
      t->verdict = std::string(to_string(r.verdict));
      t->state = *t->verdict;
      t->target_static = r.target_static;
      t->target_executed = r.target_executed;
      t->target_correct = r.verdict == Verdict::not_run   ? std::nullopt
                          : r.verdict != Verdict::correct ? std::optional<bool>(false)
                                                          : r.target_executed;
      t->speedup_geomean = r.speedup_geomean;
      t->reused_evaluation = !first;
      if (auto s = store.rescore_turn(*t, first ? &r : nullptr); !s.ok) {
        out.errors.push_back("storing the rescore of " + t->problem + "/" + std::to_string(t->trajectory) + "/" +
                             std::to_string(t->turn) + ": " + s.error);
        progress.message(out.errors.back());
        break;
      }
      if (first) evaluation_id = t->evaluation_id;
      first = false;
      ++out.turns;
      if (before != t->state) ++out.changed[before + " -> " + t->state];
      progress.turn_done(t->state, false);
    }
  }
  return out;
}

}  // namespace ptxbench
