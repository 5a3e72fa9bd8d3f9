// Finds and reads plotly.min.js for the self-contained HTML report, saying how to install it when missing.
#include "report/plotly_js.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/subprocess.h"

#ifndef PTXBENCH_PLOTLY_JS_HINT
#define PTXBENCH_PLOTLY_JS_HINT ""
#endif

namespace ptxbench::report {

std::filesystem::path find_plotly_js() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("PTXBENCH_PLOTLY_JS"); env && *env) {
    if (!fs::is_regular_file(env)) throw InputError(std::string("PTXBENCH_PLOTLY_JS=") + env + ": no such file");
    return env;
  }
  if (const fs::path hint = PTXBENCH_PLOTLY_JS_HINT; !hint.empty() && fs::is_regular_file(hint)) return hint;
  std::string why = "python3 could not be run";
  try {
    ProcessOptions o;
    o.timeout = std::chrono::seconds(30);
    auto r = run_process(
        {"python3", "-c",
         "import os, plotly; print(os.path.join(os.path.dirname(plotly.__file__), 'package_data', 'plotly.min.js'))"},
        o);
    if (r.ok()) {
      std::string p = r.out;
      while (!p.empty() && (p.back() == '\n' || p.back() == '\r')) p.pop_back();
      if (fs::is_regular_file(p)) return p;
      why = "python3's plotly package has no " + p;
    } else {
      why = "python3 has no plotly package";
    }
  } catch (const std::exception&) {
  }
  throw InputError("the HTML report inlines plotly.min.js, and it was not found (" + why +
                   "): install PyPI's plotly (scripts/setup.sh does: python3 -m pip install plotly) or set "
                   "PTXBENCH_PLOTLY_JS=/path/to/plotly.min.js");
}

std::string read_plotly_js(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read " + path.string());
  std::stringstream ss;
  ss << in.rdbuf();
  std::string js = ss.str();
  if (js.size() < 1000)
    throw InputError(path.string() + " is not plotly.min.js (" + std::to_string(js.size()) + " bytes)");
  std::string lower = js;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower.find("</script") != std::string::npos)
    throw InputError(path.string() + " contains \"</script\", so it cannot be inlined into the HTML report as is");
  return js;
}

}  // namespace ptxbench::report
