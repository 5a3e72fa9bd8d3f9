// The Fixit tables by column name (store-internal; row_columns.h), made from their rows' declaration
// (store/fixit_rows.h): one column per declared field that is stored.
#pragma once
#include "store/fixit_store.h"
#include "store/row_columns.h"

namespace ptxbench::store_detail {

const Columns<FixitBuildRow>& fixit_build_columns();      // fixit_builds
const Columns<FixitItemRow>& fixit_item_columns();        // fixit_items
const Columns<FixitAttemptRow>& fixit_attempt_columns();  // fixit_attempts
const Columns<FixitRecordRow>& fixit_record_columns();    // fixit_records

}  // namespace ptxbench::store_detail
