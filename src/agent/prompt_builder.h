// Builds the model's prompt for one problem: a system text (the role, then the architecture's
// knowledge components, each included or not so the paper's ablation can be rerun) and the
// problem's statement for the arch (problem_prompt.h) with the reply format.
#pragma once
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/language.h"
#include "problems/problem_spec.h"

namespace ptxbench {

enum class KnowledgeComponent { params, ptx, contract };

std::string to_string(KnowledgeComponent c);
// "params,ptx,contract" -> set; "none" or "" -> empty. Throws InputError naming a bad entry.
std::set<KnowledgeComponent> parse_components(const std::string& list);
// The canonical spelling: "params,ptx,contract" in that order, or "none".
std::string components_to_string(const std::set<KnowledgeComponent>& components);

struct PromptOptions {
  std::string arch = "sm_90a";
  // Triton: the same three components from the pack's Triton files: params.md (the hardware is the
  // same), triton.md in the place of ptx.cuh (Triton's paths to the target instructions) and
  // triton_contract.md in the place of contract.md.
  Language language = Language::cuda;
  std::set<KnowledgeComponent> components{KnowledgeComponent::params, KnowledgeComponent::ptx,
                                          KnowledgeComponent::contract};
  std::filesystem::path knowledge_root;  // knowledge/
};

struct PromptParts {
  std::string system;   // the role and the knowledge components: the same for every turn
  std::string problem;  // the problem statement for the arch and the reply format: the first user message
};

// Throws InputError when a selected component's file is missing or prompt.md is malformed.
PromptParts build_prompt_parts(const ProblemSpec& problem, const PromptOptions& options);
// Both parts as one text (what `ptxbench prompt` prints).
std::string build_prompt(const ProblemSpec& problem, const PromptOptions& options);

}  // namespace ptxbench
