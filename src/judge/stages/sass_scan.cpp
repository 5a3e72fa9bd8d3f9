// Starts the cuobjdump scan of the candidate's SASS beside the other stages and records target_static.
#include "judge/stages/sass_scan.h"

#include <chrono>

#include "compile/static_checks.h"
#include "core/error.h"

namespace ptxbench {

std::shared_ptr<PreparedCandidate::SassScan> start_sass_scan(const std::filesystem::path& so,
                                                             const std::filesystem::path& cuobjdump,
                                                             const ArchTargets& targets_in) {
  return start_sass_scan(std::vector<std::filesystem::path>{so}, cuobjdump, targets_in);
}

std::shared_ptr<PreparedCandidate::SassScan> start_sass_scan(std::vector<std::filesystem::path> objects,
                                                             const std::filesystem::path& cuobjdump,
                                                             const ArchTargets& targets_in) {
  auto sass = std::make_shared<PreparedCandidate::SassScan>();
  sass->done = std::async(
      std::launch::async, [objects = std::move(objects), cuobjdump, targets = &targets_in, scan = sass.get()] {
        const auto t = std::chrono::steady_clock::now();
        PreparedCandidate::SassScan& out = *scan;
        try {
          std::string text;
          for (const auto& o : objects) text += sass_text(o, cuobjdump);
          auto counts = parse_sass_listing(text);
          out.listing = parse_sass_functions(text);
          out.families = select_families(counts, targets->groups);
          out.satisfied = groups_satisfied(counts, targets->groups);
          long long n = 0;
          for (auto& [k, v] : counts) n += v;
          out.detail["sass_instructions"] = n;
        } catch (const Error& e) {
          out.detail["sass_error"] = e.what();
        }
        out.detail["sass_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
      });
  return sass;
}

const SassListing& finished_listing(PreparedCandidate::SassScan* scan) {
  static const SassListing no_listing;
  if (scan && scan->done.valid()) scan->done.get();
  return scan ? scan->listing : no_listing;
}

void record_sass_scan(PreparedCandidate::SassScan& scan, EvaluationRecord& r) {
  if (scan.done.valid()) scan.done.get();
  r.static_families = std::move(scan.families);
  r.target_static = scan.satisfied;
  StageResult* st = r.stage("static");
  st->detail.update(scan.detail);
  if (st->status == StageStatus::ok)
    st->message = r.target_static ? "target families present in SASS" : "no target family in SASS";
}

}  // namespace ptxbench
