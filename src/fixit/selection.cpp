// Selects which turns become Fixit items before any teacher call, and says why each other turn is not one.
#include "fixit/selection.h"

#include <algorithm>
#include <random>
#include <set>
#include <tuple>

#include "core/content_hash.h"
#include "fixit/fix_rule.h"
#include "fixit_core/kernel_hash.h"

namespace ptxbench::fixit {
namespace {

std::string item_key(Template t, const SourceTurn& s) {
  return content_sha256(std::string(to_string(t)) + "|" + s.run + "|" + s.problem + "|" + std::to_string(s.trajectory) +
                        "|" + std::to_string(s.turn))
      .substr(0, 16);
}

bool judged_with_kernel(const SourceTurn& t) { return t.phase == "done" && t.evaluation && !t.candidate.empty(); }

}  // namespace

std::vector<std::string> balance_cut(const std::vector<BalanceEntry>& entries, const Recipe& recipe,
                                     const std::string& stage) {
  std::vector<std::string> cut(entries.size());
  std::mt19937_64 rng(recipe.seed);
  // problem -> signature -> entry indexes (input order, then shuffled)
  std::map<std::string, std::map<std::string, std::vector<size_t>>> groups;
  for (size_t i = 0; i < entries.size(); ++i) groups[entries[i].problem][entries[i].signature].push_back(i);
  std::map<std::string, int> per_class;
  for (auto& [problem, by_signature] : groups) {
    for (auto& [sig, idx] : by_signature) std::shuffle(idx.begin(), idx.end(), rng);
    // Round-robin over signatures: the first of each, then the second of each, ...
    std::vector<size_t> order;
    for (size_t round = 0;; ++round) {
      bool any = false;
      for (auto& [sig, idx] : by_signature)
        if (round < idx.size()) order.push_back(idx[round]), any = true;
      if (!any) break;
    }
    int taken = 0;
    std::map<std::string, int> per_signature;
    for (size_t i : order) {
      const BalanceEntry& e = entries[i];
      if (recipe.per_signature > 0 && per_signature[e.signature] >= recipe.per_signature) {
        cut[i] = stage + ": signature cap " + std::to_string(recipe.per_signature) + " (" + e.signature + ")";
        continue;
      }
      if (recipe.per_problem > 0 && taken >= recipe.per_problem) {
        cut[i] = stage + ": problem cap " + std::to_string(recipe.per_problem) + " (" + e.problem + ")";
        continue;
      }
      if (auto c = recipe.caps.find(e.error_class); c != recipe.caps.end() && per_class[e.error_class] >= c->second) {
        cut[i] = stage + ": class cap " + std::to_string(c->second) + " (" + e.error_class + ")";
        continue;
      }
      ++taken;
      ++per_signature[e.signature];
      ++per_class[e.error_class];
    }
  }
  return cut;
}

Selection select_items(const std::vector<SourceTurn>& turns, const Recipe& recipe, const SuiteSplits& suite,
                       const std::map<std::string, const ProblemSpec*>& problems) {
  Selection out;
  out.turns_read = static_cast<long long>(turns.size());
  // In address order, so "earliest failure of a trajectory" and "first of duplicates" are fixed.
  std::vector<const SourceTurn*> ordered;
  for (const auto& t : turns) ordered.push_back(&t);
  std::stable_sort(ordered.begin(), ordered.end(), [](const SourceTurn* a, const SourceTurn* b) {
    return std::tie(a->run, a->problem, a->trajectory, a->turn) < std::tie(b->run, b->problem, b->trajectory, b->turn);
  });
  const ClassifyOptions co{recipe.fix.slow_below};
  auto spec_of = [&](const std::string& p) -> const ProblemSpec* {
    auto it = problems.find(p);
    return it == problems.end() ? nullptr : it->second;
  };

  std::map<std::tuple<std::string, std::string, int>, int> taken_in_trajectory;
  std::map<std::pair<std::string, std::string>, std::string> first_with_kernel;  // (problem, hash) -> item key
  for (size_t i = 0; i < ordered.size(); ++i) {
    const SourceTurn& t = *ordered[i];
    if (!judged_with_kernel(t)) {
      ++out.not_items[t.evaluation || t.phase != "done" ? "not_judged" : "no_kernel"];
      continue;
    }
    if (!counts_against_candidate(t.evaluation->verdict)) {
      ++out.not_items["not_judged"];  // infra_error, not_run: says nothing about the kernel
      continue;
    }
    Item item;
    item.template_kind = recipe.template_kind;
    item.problem = t.problem;
    item.turn = &t;
    item.key = item_key(recipe.template_kind, t);
    item.kernel_hash = kernel_hash(t.candidate);
    if (recipe.template_kind == Template::fixit) {
      item.error = classify(*t.evaluation, spec_of(t.problem), co);
      if (!item.error) {
        ++out.not_items["no_failure"];
        continue;
      }
      if (std::find(recipe.classes.begin(), recipe.classes.end(), item.error->name) == recipe.classes.end()) {
        ++out.not_items["class_not_in_recipe"];
        continue;
      }
      const FixTarget target{item.error->name, t.evaluation->speedup_geomean};
      for (size_t j = i + 1; j < ordered.size(); ++j) {
        const SourceTurn& later = *ordered[j];
        if (later.run != t.run || later.problem != t.problem || later.trajectory != t.trajectory) break;
        if (judged_with_kernel(later) && why_not_a_fix(*later.evaluation, target, recipe.fix).empty())
          item.later.push_back(&later);
      }
    } else if (!why_not_a_fix(*t.evaluation, FixTarget{}, recipe.fix).empty()) {
      ++out.not_items["not_a_kernelgen_kernel"];
      continue;
    }
    const auto split = suite.splits.find(t.problem);
    item.split = split == suite.splits.end() ? "" : split->second;
    if (split == suite.splits.end()) {
      item.status = "skipped";
      item.reason = "outside_recipe: problem " + t.problem + " is not in suite " + suite.name;
    } else if (split->second != "train") {
      item.status = "refused";
      item.reason = "held_out: suite " + suite.name + " holds problem " + t.problem + " out (split " + split->second +
                    "); no record of it may be trained on";
    } else if (recipe.template_kind == Template::fixit && recipe.per_trajectory > 0 &&
               taken_in_trajectory[{t.run, t.problem, t.trajectory}] >= recipe.per_trajectory) {
      item.status = "skipped";
      item.reason = "per_trajectory: the recipe takes the first " + std::to_string(recipe.per_trajectory) +
                    " failing turn(s) of a trajectory";
    } else if (auto [it, fresh] = first_with_kernel.try_emplace({t.problem, item.kernel_hash}, item.key); !fresh) {
      item.status = "skipped";
      item.reason = "duplicate: the same kernel (normalized) is item " + it->second;
    } else {
      ++taken_in_trajectory[{t.run, t.problem, t.trajectory}];
    }
    out.items.push_back(std::move(item));
  }

  // Pre-balancing (and class caps unless the recipe balances after): over the selected items.
  if (recipe.balance != Balance::post) {
    std::vector<size_t> selected;
    std::vector<BalanceEntry> entries;
    for (size_t i = 0; i < out.items.size(); ++i)
      if (out.items[i].status == "selected") {
        selected.push_back(i);
        const Item& it = out.items[i];
        entries.push_back(
            {it.problem, it.error ? it.error->name : "kernelgen", it.error ? it.error->signature : it.kernel_hash});
      }
    Recipe caps_only = recipe;
    if (recipe.balance == Balance::none) caps_only.per_problem = caps_only.per_signature = 0;
    const auto cut =
        balance_cut(entries, caps_only, recipe.balance == Balance::pre ? "capped (pre-balance)" : "capped");
    for (size_t k = 0; k < selected.size(); ++k)
      if (!cut[k].empty()) {
        out.items[selected[k]].status = "skipped";
        out.items[selected[k]].reason = cut[k];
      }
  }
  return out;
}

}  // namespace ptxbench::fixit
