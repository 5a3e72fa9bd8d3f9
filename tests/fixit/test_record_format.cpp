// The Fixit record's one declaration (store/fixit_record.h) against stored records: the records
// of a real build (tests/fixtures/fixit) read back typed and written again to the same bytes, a
// KernelGen record's null groups, and the check's refusals.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "core/error.h"
#include "fixit_core/record_format.h"
#include "store/fixit_record.h"

using namespace ptxbench;

TEST(RecordFormat, EveryStoredRecordOfARealBuildRoundTripsToTheSameBytes) {
  std::ifstream in(std::string(PTXBENCH_SOURCE_DIR) + "/tests/fixtures/fixit/h200_records.jsonl");
  ASSERT_TRUE(in.good());
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    SCOPED_TRACE("record " + std::to_string(++n));
    const json j = json::parse(line);
    const FixitRecord r = fixit::check_record(j, "fixture");
    EXPECT_EQ(fixit_record_json(r).dump(), j.dump());
    EXPECT_EQ(r.error_class.has_value(), r.template_kind == "fixit");
  }
  EXPECT_EQ(n, 10);
}

TEST(RecordFormat, AKernelGenRecordWithoutATeacherWritesItsGroupsAsNull) {
  FixitRecord r;
  r.id = "b/k", r.template_kind = "kernelgen", r.problem = "gemm", r.split = "train";
  const json j = fixit_record_json(r);
  EXPECT_EQ(j["format"], kFixitRecordFormat);
  EXPECT_TRUE(j["error"].is_null());
  EXPECT_TRUE(j["provenance"]["teacher"].is_null());
  EXPECT_TRUE(j["fix"]["speedup_geomean"].is_null());
  EXPECT_EQ(fixit_record_json(fixit::check_record(j, "again")), j);
  r.teacher_calls = 1;  // one field set: the group is an object
  EXPECT_TRUE(fixit_record_json(r)["provenance"]["teacher"].is_object());
}

TEST(RecordFormat, TheCheckNamesTheFieldARecordLacks) {
  FixitRecord r;
  r.id = "b/k", r.template_kind = "fixit", r.problem = "gemm", r.split = "train";
  json j = fixit_record_json(r);
  EXPECT_NO_THROW(fixit::check_record(j, "r"));
  j["context"].erase("feedback");
  try {
    fixit::check_record(j, "r");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "r: field 'context.feedback' must be a string");
  }
  j["format"] = "ptxbench.fixit/0";
  EXPECT_THROW(fixit::check_record(j, "r"), InputError);
  j = fixit_record_json(r);
  j["fix"]["attempt"] = "one";
  EXPECT_THROW(fixit::check_record(j, "r"), InputError);
}
