// Builds the model's prompt: the system text (role, knowledge components) and the problem's statement.
#include "agent/prompt_builder.h"

#include <fstream>
#include <sstream>

#include "agent/problem_prompt.h"
#include "core/arch.h"
#include "core/error.h"

namespace ptxbench {
namespace {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  if (!in) throw InputError("cannot read " + p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

constexpr const char* kRole =
    "You are an expert GPU kernel engineer. You write complete, correct and fast CUDA C++ files that use "
    "architecture-specific PTX. Each reply you write is compiled, checked and timed; the results come back to "
    "you as feedback, and you improve the kernel turn by turn.\n";

constexpr const char* kTritonRole =
    "You are an expert GPU kernel engineer. You write complete, correct and fast Triton kernels that reach the "
    "architecture's own instructions (warpgroup MMA, TMA). Each reply you write is compiled, checked and timed; the "
    "results come back to you as feedback, and you improve the kernel turn by turn.\n";

}  // namespace

std::string to_string(KnowledgeComponent c) {
  switch (c) {
    case KnowledgeComponent::params: return "params";
    case KnowledgeComponent::ptx: return "ptx";
    case KnowledgeComponent::contract: return "contract";
  }
  return "?";
}

std::set<KnowledgeComponent> parse_components(const std::string& list) {
  std::set<KnowledgeComponent> out;
  if (list.empty() || list == "none") return out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item == "params") out.insert(KnowledgeComponent::params);
    else if (item == "ptx") out.insert(KnowledgeComponent::ptx);
    else if (item == "contract") out.insert(KnowledgeComponent::contract);
    else if (item == "all")
      out.insert({KnowledgeComponent::params, KnowledgeComponent::ptx, KnowledgeComponent::contract});
    else throw InputError("unknown knowledge component '" + item + "' (use params, ptx, contract, all or none)");
  }
  return out;
}

std::string components_to_string(const std::set<KnowledgeComponent>& components) {
  std::string s;
  for (auto c : components) s += (s.empty() ? "" : ",") + to_string(c);
  return s.empty() ? "none" : s;
}

PromptParts build_prompt_parts(const ProblemSpec& problem, const PromptOptions& o) {
  PromptParts parts;
  std::ostringstream p;
  const ArchInfo& arch = arch_info(o.arch);
  const auto pack = o.knowledge_root / std::string(arch.pack);
  if (o.language == Language::triton) {
    p << kTritonRole;
    if (!o.components.empty()) {
      p << "\n# Architecture knowledge: " << arch.title << "\n\n";
      if (o.components.count(KnowledgeComponent::params))
        p << "## Architecture parameters\n\n" << read_text(pack / "params.md") << "\n\n";
      if (o.components.count(KnowledgeComponent::ptx)) p << read_text(pack / "triton.md") << "\n\n";
      if (o.components.count(KnowledgeComponent::contract)) p << read_text(pack / "triton_contract.md") << "\n\n";
    }
    parts.system = p.str();
    parts.problem = render_problem_prompt(problem, o.arch, Language::triton) +
                    "\n## Reply format\n\nReply with one complete Python file in a single ```python code block.\n";
    return parts;
  }
  p << kRole;
  if (!o.components.empty()) {
    p << "\n# Architecture knowledge: " << arch.title << "\n\n";
    if (o.components.count(KnowledgeComponent::params))
      p << "## Architecture parameters\n\n" << read_text(pack / "params.md") << "\n\n";
    if (o.components.count(KnowledgeComponent::ptx))
      p << "## PTX template functions\n\nThese helpers are available with `#include \"ptx.cuh\"`.\n\n```cuda\n"
        << read_text(pack / "ptx.cuh") << "\n```\n\n";
    if (o.components.count(KnowledgeComponent::contract))
      p << "## Architecture contract\n\n" << read_text(pack / "contract.md") << "\n\n";
  }
  parts.system = p.str();
  parts.problem = render_problem_prompt(problem, o.arch) +
                  "\n## Reply format\n\nReply with one complete CUDA C++ source file in a single ```cuda code block.\n";
  return parts;
}

std::string build_prompt(const ProblemSpec& problem, const PromptOptions& options) {
  const PromptParts parts = build_prompt_parts(problem, options);
  return parts.system + "\n---\n\n" + parts.problem;
}

}  // namespace ptxbench
