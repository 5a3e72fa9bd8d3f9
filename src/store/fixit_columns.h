// The Fixit tables by column name (store-internal; row_columns.h): each column named once, beside
// the member of its typed row (fixit_store.h).
#pragma once
#include "store/fixit_store.h"
#include "store/row_columns.h"

namespace ptxbench::store_detail {

// What the tables hold beyond the rows the store hands out.
struct StoredFixitItem : FixitItemRow {
  std::string updated_at;
};
struct StoredFixitAttempt : FixitAttemptRow {
  std::string request_sha256, response_sha256, system_sha256;  // the bytes live in blobs
  std::string created_at, updated_at;
};

const Columns<FixitBuildRow>& fixit_build_columns();         // fixit_builds
const Columns<StoredFixitItem>& fixit_item_columns();        // fixit_items
const Columns<StoredFixitAttempt>& fixit_attempt_columns();  // fixit_attempts
const Columns<FixitRecordRow>& fixit_record_columns();       // fixit_records

}  // namespace ptxbench::store_detail
