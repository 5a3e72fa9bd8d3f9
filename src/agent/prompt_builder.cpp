#include "agent/prompt_builder.h"

#include <fstream>
#include <sstream>

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

const char* arch_title(const std::string& arch) {
  if (arch == "sm_90a") return "NVIDIA Hopper (H100/H200, sm_90a)";
  if (arch == "sm_100a") return "NVIDIA Blackwell (B200, sm_100a)";
  throw InputError("no knowledge pack for arch " + arch);
}

std::string pack_folder(const std::string& arch) { return arch == "sm_90a" ? "hopper" : "blackwell"; }

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
    else if (item == "all") out.insert({KnowledgeComponent::params, KnowledgeComponent::ptx, KnowledgeComponent::contract});
    else throw InputError("unknown knowledge component '" + item + "' (use params, ptx, contract, all or none)");
  }
  return out;
}

std::string build_prompt(const ProblemSpec& problem, const PromptOptions& o) {
  std::ostringstream p;
  const auto pack = o.knowledge_root / pack_folder(o.arch);
  if (!o.components.empty()) {
    p << "# Architecture knowledge: " << arch_title(o.arch) << "\n\n";
    if (o.components.count(KnowledgeComponent::params))
      p << "## Architecture parameters\n\n" << read_text(pack / "params.md") << "\n\n";
    if (o.components.count(KnowledgeComponent::ptx))
      p << "## PTX template functions\n\nThese helpers are available with `#include \"ptx.cuh\"`.\n\n```cuda\n"
        << read_text(pack / "ptx.cuh") << "\n```\n\n";
    if (o.components.count(KnowledgeComponent::contract))
      p << "## Architecture contract\n\n" << read_text(pack / "contract.md") << "\n\n";
    p << "---\n\n";
  }
  p << read_text(problem.prompt_file()) << "\n";
  p << "## Reply format\n\nReply with one complete CUDA C++ source file in a single ```cuda code block.\n";
  return p.str();
}

}  // namespace ptxbench
