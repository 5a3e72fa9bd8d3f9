// ptxbench prompt -p NAME [--arch A] [--knowledge params,ptx,contract|none]: print the model prompt.
#include <iostream>

#include "agent/prompt_builder.h"
#include "core/language.h"
#include "cli/commands.h"
#include "problems/registry.h"

namespace ptxbench::cli {

void add_prompt_command(CLI::App& app, GlobalOptions& g, ExitCode&) {
  struct Args {
    std::string problem = "gemm", arch = "sm_90a", knowledge = "all", language = "cuda";
  };
  auto a = std::make_shared<Args>();
  auto* cmd =
      app.add_subcommand("prompt", "Print the prompt a model gets for a problem (knowledge components selectable)");
  cmd->add_option("-p,--problem", a->problem, "Problem name")->capture_default_str();
  cmd->add_option("--arch", a->arch, "Target architecture")->check(arch_validator())->capture_default_str();
  cmd->add_option("--knowledge", a->knowledge, "Components: params,ptx,contract, all or none")->capture_default_str();
  cmd->add_option("--language", a->language, "cuda, or triton (ptx and contract are then the pack's Triton files)")
      ->check(CLI::IsMember(language_names()))
      ->capture_default_str();
  cmd->callback([a, &g] {
    ProblemRegistry registry(g.problems.empty() ? ProblemRegistry::default_root() : std::filesystem::path(g.problems));
    PromptOptions o;
    o.arch = a->arch;
    o.language = *language_from_string(a->language);
    o.components = parse_components(a->knowledge);
    o.knowledge_root = registry.root().parent_path() / "knowledge";
    std::cout << build_prompt(registry.load(a->problem), o);
  });
}

}  // namespace ptxbench::cli
