// The cuobjdump scan of the candidate's SASS (about 1 s): it decides no verdict, only
// target_static, so it runs alongside the forbidden-code checks and the GPU stages. The counted
// calls are read through its per-kernel, per-offset listing; the record takes its families last.
#pragma once
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compile/sass_listing.h"
#include "core/json.h"
#include "core/record.h"
#include "judge/evaluator.h"
#include "problems/problem_spec.h"

namespace ptxbench {

struct PreparedCandidate::SassScan {
  SassListing listing;  // per kernel and offset, for reading counted instructions
  std::map<std::string, long long> families;
  bool satisfied = false;
  json detail = json::object();
  std::future<void> done;  // last: destroyed first, so it waits before the fields it writes go
};

// `targets` must outlive the scan.
std::shared_ptr<PreparedCandidate::SassScan> start_sass_scan(const std::filesystem::path& shared_object,
                                                             const std::filesystem::path& cuobjdump,
                                                             const ArchTargets& targets);

// The same over several objects (a Triton build's cubins), as one listing.
std::shared_ptr<PreparedCandidate::SassScan> start_sass_scan(std::vector<std::filesystem::path> objects,
                                                             const std::filesystem::path& cuobjdump,
                                                             const ArchTargets& targets);

// The listing once the scan has finished; an empty one without a scan.
const SassListing& finished_listing(PreparedCandidate::SassScan* scan);

// Waits for the scan and puts what it found into the record: the static families, target_static,
// and the static stage's SASS detail and message.
void record_sass_scan(PreparedCandidate::SassScan& scan, EvaluationRecord& r);

}  // namespace ptxbench
