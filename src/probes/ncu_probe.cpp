// Nsight Compute's executed SASS opcode counts over the worker's NVTX range: the command and its CSV parsed.
#include "probes/ncu_probe.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "core/error.h"
#include "probes/tool_locator.h"

namespace ptxbench {
namespace {

// RFC 4180 fields of one CSV line ("" inside quotes is a quote).
std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') quoted = false;
      else cur += c;
    } else if (c == '"') quoted = true;
    else if (c == ',') {
      fields.push_back(cur);
      cur.clear();
    } else cur += c;
  }
  fields.push_back(cur);
  return fields;
}

long long parse_grouped_int(const std::string& s) {
  long long v = 0;
  bool any = false;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      v = v * 10 + (c - '0');
      any = true;
    } else if (c == ',' || c == ' ') continue;
    else break;
  }
  if (!any) throw Error("not a count: '" + s + "'");
  return v;
}

}  // namespace

std::filesystem::path find_ncu() { return find_tool("ncu", "PTXBENCH_NCU"); }

std::vector<std::string> ncu_command_prefix(const std::filesystem::path& ncu) {
  // --clock-control none: measure the card as it is, never touch its clocks.
  return {ncu.string(),
          "--clock-control",
          "none",
          "--nvtx",
          "--nvtx-include",
          std::string(kCandidateNvtxRange) + "/",
          "--metrics",
          "sass__inst_executed_per_opcode",
          "--print-metric-instances",
          "details",
          "--csv"};
}

std::map<std::string, long long> parse_opcode_instances(const std::string& value) {
  std::map<std::string, long long> out;
  auto open = value.find('(');
  auto close = value.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return out;
  std::stringstream ss(value.substr(open + 1, close - open - 1));
  std::string item;
  while (std::getline(ss, item, ';')) {
    auto colon = item.find(':');
    if (colon == std::string::npos) continue;
    std::string op = item.substr(0, colon);
    op.erase(0, op.find_first_not_of(' '));
    op.erase(op.find_last_not_of(' ') + 1);
    out[op] += parse_grouped_int(item.substr(colon + 1));
  }
  return out;
}

NcuReport parse_ncu_csv(const std::string& csv) {
  NcuReport r;
  std::stringstream ss(csv);
  std::string line;
  int name_col = -1, metric_col = -1, value_col = -1;
  bool found_row = false;
  while (std::getline(ss, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("\"ID\"", 0) == 0) {
      auto header = split_csv_line(line);
      for (int i = 0; i < static_cast<int>(header.size()); ++i) {
        if (header[i] == "Kernel Name") name_col = i;
        if (header[i] == "Metric Name") metric_col = i;
        if (header[i] == "Metric Value") value_col = i;
      }
      continue;
    }
    if (metric_col < 0 || line.empty() || line[0] != '"') continue;
    auto f = split_csv_line(line);
    if (static_cast<int>(f.size()) <= std::max({name_col, metric_col, value_col})) continue;
    if (f[metric_col] != "sass__inst_executed_per_opcode") continue;
    found_row = true;
    NcuKernel k{f[name_col], parse_opcode_instances(f[value_col])};
    for (const auto& [op, n] : k.opcodes) r.total[op] += n;
    r.kernels.push_back(std::move(k));
  }
  if (metric_col < 0) throw Error("ncu output has no CSV header (did ncu fail?)");
  if (!found_row) throw Error("ncu profiled no kernel inside the candidate call");
  return r;
}

}  // namespace ptxbench
