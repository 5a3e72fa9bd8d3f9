// A `ptxbench-worker` stand-in for tests on machines without a GPU: a folder holding a copy of
// tests/e2e/fake_worker.py and a `ptxbench-worker` script that runs it with `scenario` (see the
// script's docstring: ok, forge, marker, probe:PORT, ...). Pass the returned path as --worker.
#pragma once
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli.h"

namespace ptxbench::test {

inline std::filesystem::path stand_in_worker(const std::filesystem::path& folder, const std::string& scenario) {
  namespace fs = std::filesystem;
  fs::create_directories(folder);
  fs::copy_file(source_dir() / "tests/e2e/fake_worker.py", folder / "fake_worker.py",
                fs::copy_options::overwrite_existing);
  const fs::path w = folder / "ptxbench-worker";
  std::ofstream(w) << "#!/bin/sh\nexec /usr/bin/python3 " << (folder / "fake_worker.py").string() << " " << scenario
                   << " \"$@\"\n";
  chmod(w.c_str(), 0755);
  return w;
}

}  // namespace ptxbench::test
