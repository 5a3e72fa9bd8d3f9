// What the text formats (terminal table, markdown, the HTML's tables) print: a preamble (generator,
// inputs, settings) and grids. A metrics report (ptxbench.report/1) prints the sections that the
// report's tables register (metric_tables/*.cpp: the paper's layouts, in their order); any other
// report its tables as they are. A grid holds text only; every number in it is one of the report's
// fields, formatted.
#pragma once
#include <string>
#include <vector>

#include "report/result_schema.h"

namespace ptxbench::report {

struct Grid {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string note;  // printed under the grid
};

struct TextView {
  std::vector<std::string> preamble;
  std::vector<Grid> grids;
};
TextView text_view(const Report& r);

// A section of the metrics report's text view: the grids it lays out from the report (none when
// its table is absent or empty).
using TextSection = std::vector<Grid> (*)(const Report& r);

struct TextSectionRegistrar {
  // `rank`: where the section comes in the text view, lowest first.
  TextSectionRegistrar(int rank, TextSection section);
};

}  // namespace ptxbench::report

#define PTXBENCH_TEXT_SECTION_CAT2(a, b) a##b
#define PTXBENCH_TEXT_SECTION_CAT(a, b) PTXBENCH_TEXT_SECTION_CAT2(a, b)
// In a report table's file: PTXBENCH_REGISTER_TEXT_SECTION(90, transition_grids);
#define PTXBENCH_REGISTER_TEXT_SECTION(rank, section)                                                             \
  static ::ptxbench::report::TextSectionRegistrar PTXBENCH_TEXT_SECTION_CAT(ptxbench_text_section_, __COUNTER__)( \
      rank, section)
