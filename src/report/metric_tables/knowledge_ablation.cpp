// The knowledge ablation (the paper's Table 3): the correctness table laid out per (arch, model)
// with the knowledge settings as rows, when the report groups by knowledge and some block has more
// than one setting. Text only: its numbers are the correctness table's.
#include "report/paper_layout.h"
#include "report/text_view.h"

namespace ptxbench::report {
namespace {

std::vector<Grid> knowledge_ablation_grids(const Report& r) {
  bool by_knowledge = false;
  if (r.meta.contains("group_by"))
    for (const auto& d : r.meta["group_by"]) by_knowledge = by_knowledge || d == "knowledge";
  if (!by_knowledge) return {};
  return budget_grids(
      r, "correctness", "Knowledge ablation, turn correctness (%): target-instruction (unrestricted)", "target_rate",
      "correct_rate", [](const Table& t, size_t i, const char* f) { return percent_cell(t.at(i, f)); },
      "Rows: the prompt's knowledge components (params = architecture parameters, ptx = PTX template functions, "
      "contract = architecture contract); +notes = repair notes in the feedback after a failing turn, +notes+kernel = "
      "with their fixed kernels (@same-problem: notes of the problem itself allowed).",
      true);
}

PTXBENCH_REGISTER_TEXT_SECTION(70, knowledge_ablation_grids);

}  // namespace
}  // namespace ptxbench::report
