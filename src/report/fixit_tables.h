// The Fixit side of the result schema, read from the workspace's Fixit tables (store/fixit_store.h):
//   fixit_builds   one row per build: recipe, template, teacher, status, items by status, records
//                  (in the dataset after post-balancing), teacher calls and their cost
//   fixit_records  records per build, problem, error class, fix source and teacher (the paper's
//                  Fig. 4 plots records per problem per recipe from it)
//   fixit_items    items per build, problem, status and reason kind: what was refused, skipped,
//                  dropped, and why
// `fixit stats` prints them in every format; `report` adds the first two (and the Fig. 4 plot)
// when the workspace holds builds.
#pragma once
#include <string>
#include <vector>

#include "report/result_schema.h"
#include "store/fixit_store.h"

namespace ptxbench::report {

// `builds` empty: every build in the store, newest first. A failed read is a DbStatus.
DbStatus add_fixit_tables(FixitStore& store, const std::vector<std::string>& builds, bool items_table, Report* out);

}  // namespace ptxbench::report
