// `ptxbench results`: stored evaluation records as one table of the result schema, each row with
// its arch and provenance (harness version and commit, nvcc, driver, GPU, seed policy).
#pragma once
#include <utility>
#include <vector>

#include "core/record.h"
#include "report/result_schema.h"

namespace ptxbench::report {

Report build_results_report(const std::vector<std::pair<long long, EvaluationRecord>>& rows, const std::string& source);

}  // namespace ptxbench::report
