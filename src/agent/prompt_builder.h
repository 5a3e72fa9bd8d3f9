// Builds the model's prompt for one problem: the problem's prompt.md plus the architecture's
// knowledge components, each included or not (so the paper's ablation can be rerun).
#pragma once
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "problems/problem_spec.h"

namespace ptxbench {

enum class KnowledgeComponent { params, ptx, contract };

std::string to_string(KnowledgeComponent c);
// "params,ptx,contract" -> set; "none" or "" -> empty. Throws InputError naming a bad entry.
std::set<KnowledgeComponent> parse_components(const std::string& list);

struct PromptOptions {
  std::string arch = "sm_90a";
  std::set<KnowledgeComponent> components{KnowledgeComponent::params, KnowledgeComponent::ptx,
                                          KnowledgeComponent::contract};
  std::filesystem::path knowledge_root;  // knowledge/
};

// Throws InputError when a selected component's file is missing.
std::string build_prompt(const ProblemSpec& problem, const PromptOptions& options);

}  // namespace ptxbench
