// The four Fixit tables' column lists, one column per stored field of store/fixit_rows.h.
#include "store/fixit_columns.h"

namespace ptxbench::store_detail {

// C::storage(column, &Row::member) for every declared field; `none` ones are no column (their maker
// gives a nameless column, which Columns leaves out).
#define PTXBENCH_FIXIT_COLUMN(storage, type, member, init, column, since, note) C::storage(column, &R::member),

const Columns<FixitBuildRow>& fixit_build_columns() {
  using C = Make<FixitBuildRow>;
  using R = FixitBuildRow;
  static const Columns<R> c("fixit_builds", {PTXBENCH_FIXIT_BUILD_FIELDS(PTXBENCH_FIXIT_COLUMN)});
  return c;
}

const Columns<FixitItemRow>& fixit_item_columns() {
  using C = Make<FixitItemRow>;
  using R = FixitItemRow;
  static const Columns<R> c("fixit_items", {PTXBENCH_FIXIT_ITEM_FIELDS(PTXBENCH_FIXIT_COLUMN)});
  return c;
}

const Columns<FixitAttemptRow>& fixit_attempt_columns() {
  using C = Make<FixitAttemptRow>;
  using R = FixitAttemptRow;
  static const Columns<R> c("fixit_attempts", {PTXBENCH_FIXIT_ATTEMPT_FIELDS(PTXBENCH_FIXIT_COLUMN)});
  return c;
}

const Columns<FixitRecordRow>& fixit_record_columns() {
  using C = Make<FixitRecordRow>;
  using R = FixitRecordRow;
  static const Columns<R> c("fixit_records", {PTXBENCH_FIXIT_RECORD_ROW_FIELDS(PTXBENCH_FIXIT_COLUMN)});
  return c;
}

#undef PTXBENCH_FIXIT_COLUMN

}  // namespace ptxbench::store_detail
