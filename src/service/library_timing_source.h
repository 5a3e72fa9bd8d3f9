// The judge's LibraryTimingSource (judge/caches/library_timings.h) over the workspace database's
// table of the library's clean timings (store/library_timing_store.h). The database is opened on
// first use (a command that never times the library does not touch it); calls are serialized, so
// one source serves every lane of the service.
#pragma once
#include <filesystem>
#include <memory>

#include "judge/caches/library_timings.h"

namespace ptxbench {

std::shared_ptr<LibraryTimingSource> workspace_library_timings(const std::filesystem::path& db_path);

}  // namespace ptxbench
