// Human-readable views of evaluation records: one record in full, or many as a table.
#pragma once
#include <string>
#include <vector>

#include "core/record.h"

namespace ptxbench::report {

std::string format_summary(const EvaluationRecord& r);
// One line per record: id, problem, verdict, targets, geomean speedup, candidate.
std::string format_table(const std::vector<std::pair<long long, EvaluationRecord>>& rows);

}  // namespace ptxbench::report
