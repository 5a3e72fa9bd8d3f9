// Renders a problem's prompt.md for one arch, its placeholders filled from problem.toml and the toolchain.
#include "agent/problem_prompt.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/arch.h"
#include "core/error.h"
#include "judge/toolchain_info.h"

namespace ptxbench {
namespace {

std::string code_list(const std::vector<std::string>& items, const std::string& last_joiner) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) s += i + 1 == items.size() ? " " + last_joiner + " " : ", ";
    s += "`" + items[i] + "`";
  }
  return s;
}

}  // namespace

std::string target_instructions_text(const ProblemSpec& p, const std::string& arch) {
  const ArchInfo& a = arch_info(arch);
  const ArchTargets* t = p.targets_for(arch);
  if (!t)
    throw InputError(p.dir.string() + "/problem.toml: no [targets." + arch +
                     "] table, so the problem cannot be posed for " + arch);
  std::ostringstream o;
  o << "The file is compiled for `" << arch << "` only: " << a.title << ".";
  if (!t->ptx.empty()) o << " The target instructions are PTX " << code_list(t->ptx, "and") << ".";
  if (!t->groups.empty()) {
    std::vector<std::string> groups;
    for (const auto& g : t->groups) groups.push_back(g.size() == 1 ? "`" + g[0] + "`" : "one of " + code_list(g, "or"));
    o << " A correct kernel counts as using them only when, in the machine code (SASS) that runs, each of these "
         "instruction groups executes: ";
    for (size_t i = 0; i < groups.size(); ++i) o << (i ? "; " : "") << groups[i];
    o << ".";
  }
  if (!a.prompt_note.empty()) o << " " << a.prompt_note;
  return o.str();
}

std::string benchmark_shapes_table(const ProblemSpec& p) {
  std::ostringstream o;
  o << "|";
  for (const auto& d : p.dims) o << " " << d << " |";
  o << "\n|";
  for (size_t i = 0; i < p.dims.size(); ++i) o << "---|";
  o << "\n";
  for (const auto& s : p.benchmark_shapes) {
    o << "|";
    for (const auto& d : p.dims) o << " " << s.at(d) << " |";
    o << "\n";
  }
  return o.str();
}

std::string render_problem_prompt(const ProblemSpec& p, const std::string& arch, Language language) {
  if (language == Language::triton) return render_triton_problem_prompt(p, arch);
  return render_prompt_template(read_prompt_file(p.prompt_file()), p.prompt_file(), p, arch, {});
}

std::string read_prompt_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw InputError("cannot read " + file.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string render_prompt_template(const std::string& text, const std::filesystem::path& file, const ProblemSpec& p,
                                   const std::string& arch, const std::map<std::string, std::string>& more) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t open = text.find("{{", pos);
    if (open == std::string::npos) {
      out += text.substr(pos);
      break;
    }
    out += text.substr(pos, open - pos);
    const size_t close = text.find("}}", open + 2);
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(open), '\n');
    if (close == std::string::npos)
      throw InputError(file.string() + ":" + std::to_string(line) + ": '{{' without a closing '}}'");
    const std::string name = text.substr(open + 2, close - open - 2);
    if (name == "build_command") out += "`" + candidate_build_line(arch) + "`";
    else if (name == "target_instructions") out += target_instructions_text(p, arch);
    else if (name == "benchmark_shapes") out += benchmark_shapes_table(p);
    else if (auto it = more.find(name); it != more.end()) out += it->second;
    else {
      std::string known = "build_command, target_instructions, benchmark_shapes";
      for (const auto& [k, v] : more) known += ", " + k;
      throw InputError(file.string() + ":" + std::to_string(line) + ": unknown placeholder {{" + name +
                       "}} (known: " + known + ")");
    }
    pos = close + 2;
  }
  return out;
}

}  // namespace ptxbench
