// Writes candidates content-addressed into the workspace and finds the helper executables beside ours.
#include "judge/candidate_files.h"

#include <unistd.h>

#include <atomic>
#include <fstream>

#include "core/content_hash.h"
#include "core/error.h"

namespace ptxbench {
namespace fs = std::filesystem;

fs::path write_candidate_file(const fs::path& dir, const std::string& source, const std::string& extension) {
  const fs::path path = dir / (content_sha256(source) + extension);
  std::error_code ec;
  if (fs::is_regular_file(path, ec) && fs::file_size(path, ec) == source.size()) return path;
  static std::atomic<unsigned> counter{0};
  const fs::path tmp = dir / (".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + extension);
  {
    std::ofstream out(tmp, std::ios::binary);
    out << source;
    if (!out) throw Error("cannot write the candidate file " + tmp.string());
  }
  fs::rename(tmp, path);
  return path;
}

fs::path locate_beside_executable(const std::string& name) {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (const auto& dir : {exe.parent_path(), exe.parent_path().parent_path() / "bin", exe.parent_path() / "bin"})
      if (fs::exists(dir / name)) return dir / name;
  return name;
}

fs::path locate_worker() { return locate_beside_executable("ptxbench-worker"); }

}  // namespace ptxbench
