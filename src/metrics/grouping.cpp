// Indexes turns into trajectories and groups them by problem, model, arch, knowledge, run or split.
#include "metrics/grouping.h"

#include <algorithm>
#include <array>
#include <set>
#include <sstream>
#include <tuple>

#include "core/error.h"

namespace ptxbench::metrics {
namespace {

constexpr std::array<std::pair<Dim, std::string_view>, 7> kDims{{
    {Dim::arch, "arch"},
    {Dim::language, "language"},
    {Dim::model, "model"},
    {Dim::knowledge, "knowledge"},
    {Dim::run, "run"},
    {Dim::split, "split"},
    {Dim::problem, "problem"},
}};

}  // namespace

const TurnRow* Trajectory::at(int k) const {
  auto it = std::lower_bound(turns.begin(), turns.end(), k, [](const TurnRow* t, int v) { return t->turn < v; });
  return it != turns.end() && (*it)->turn == k ? *it : nullptr;
}

std::vector<Trajectory> index_trajectories(const TurnSet& set) {
  std::map<std::tuple<std::string, std::string, int>, Trajectory> by_key;
  for (const auto& t : set.turns) {
    const RunInfo* run = set.run(t.run);
    if (!run)
      throw InputError("turn " + std::to_string(t.turn) + " of " + t.problem + " trajectory " +
                       std::to_string(t.trajectory) + " names run '" + t.run + "', which no input defines");
    if (t.turn < 1)
      throw InputError("run '" + t.run + "', " + t.problem + " trajectory " + std::to_string(t.trajectory) + ": turn " +
                       std::to_string(t.turn) + " (turns are numbered from 1)");
    auto& tr = by_key[{t.run, t.problem, t.trajectory}];
    tr.run = t.run, tr.problem = t.problem, tr.id = t.trajectory, tr.info = run;
    tr.turns.push_back(&t);
  }
  std::vector<Trajectory> out;
  out.reserve(by_key.size());
  for (auto& [key, tr] : by_key) {
    std::stable_sort(tr.turns.begin(), tr.turns.end(),
                     [](const TurnRow* a, const TurnRow* b) { return a->turn < b->turn; });
    for (size_t i = 1; i < tr.turns.size(); ++i)
      if (tr.turns[i]->turn == tr.turns[i - 1]->turn)
        throw InputError("run '" + tr.run + "', " + tr.problem + " trajectory " + std::to_string(tr.id) + ": turn " +
                         std::to_string(tr.turns[i]->turn) + " appears twice");
    tr.finished = std::all_of(tr.turns.begin(), tr.turns.end(), [](const TurnRow* t) { return t->finished; });
    out.push_back(std::move(tr));
  }
  return out;
}

std::string_view to_string(Dim d) {
  for (const auto& [dim, name] : kDims)
    if (dim == d) return name;
  return "?";
}

bool GroupBy::has(Dim d) const { return std::find(dims.begin(), dims.end(), d) != dims.end(); }

GroupBy parse_group_by(const std::string& text) {
  std::set<Dim> wanted;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.empty()) continue;
    bool found = false;
    for (const auto& [dim, name] : kDims)
      if (name == item) wanted.insert(dim), found = true;
    if (!found)
      throw InputError("--group-by: unknown dimension '" + item +
                       "' (known: arch, language, model, knowledge, run, split, problem)");
  }
  GroupBy g;
  for (const auto& [dim, name] : kDims)
    if (wanted.count(dim)) g.dims.push_back(dim);
  return g;
}

std::string dim_value(const Trajectory& t, Dim d) {
  const TurnRow& first = *t.turns.front();
  switch (d) {
    case Dim::arch: return first.arch;
    case Dim::language: return first.language;
    case Dim::model: return first.model;
    case Dim::knowledge: return first.knowledge;
    case Dim::run: return t.run;
    case Dim::split: return first.split;
    case Dim::problem: return t.problem;
  }
  return "";
}

std::vector<std::string> problem_order(const TurnSet& set) {
  std::vector<std::string> order;
  auto add = [&](const std::string& p) {
    if (std::find(order.begin(), order.end(), p) == order.end()) order.push_back(p);
  };
  for (const auto& r : set.runs)
    for (const auto& p : r.problems) add(p);
  for (const auto& t : set.turns) add(t.problem);
  return order;
}

std::vector<Group> group_trajectories(const std::vector<Trajectory>& trajectories, const TurnSet& set,
                                      const GroupBy& by) {
  const auto problems = problem_order(set);
  auto problem_rank = [&](const std::string& p) {
    return static_cast<size_t>(std::find(problems.begin(), problems.end(), p) - problems.begin());
  };
  // Sort key: the grouped string dimensions, then the problem's rank.
  using Key = std::tuple<std::vector<std::string>, size_t, std::string>;
  std::map<Key, Group> groups;
  std::map<Key, std::set<std::string>> gpus;
  for (const auto& t : trajectories) {
    std::vector<std::string> dims;
    Group g;
    for (const auto& [dim, name] : kDims) {
      const bool grouped = by.has(dim);
      g.key[dim] = grouped ? dim_value(t, dim) : kPooled;
      if (grouped && dim != Dim::problem) dims.push_back(g.key[dim]);
    }
    Key key{dims, by.has(Dim::problem) ? problem_rank(t.problem) : 0, by.has(Dim::problem) ? t.problem : ""};
    auto [it, inserted] = groups.try_emplace(key, std::move(g));
    it->second.trajectories.push_back(&t);
    for (const auto* turn : t.turns)
      if (!turn->gpu.empty()) gpus[key].insert(turn->gpu);
  }
  std::vector<Group> out;
  for (auto& [key, g] : groups) {
    // Empty values (no split recorded) are left out of the label.
    for (Dim d : by.dims)
      if (!g.key[d].empty()) g.label += (g.label.empty() ? "" : " / ") + g.key[d];
    if (g.label.empty()) g.label = "all";
    for (const auto& gpu : gpus[key]) g.gpu += (g.gpu.empty() ? "" : " + ") + gpu;
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace ptxbench::metrics
