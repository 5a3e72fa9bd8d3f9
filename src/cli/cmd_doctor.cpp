// ptxbench doctor [--json]: what this machine can do (GPU and driver, CUDA, cuDNN, CUPTI's
// counters, the sanitizer, the Triton toolchain, the sandbox's mechanisms) and, for each missing
// piece, the exact fix (cli/doctor_checks.h). Exit 0 when the GPU stages can run, 2 when they
// cannot (as `eval`'s not_run).
#include <iostream>

#include "cli/commands.h"
#include "cli/doctor_checks.h"

namespace ptxbench::cli {

void add_doctor_command(CLI::App& app, GlobalOptions& g, ExitCode& code) {
  auto as_json = std::make_shared<bool>(false);
  auto* cmd =
      app.add_subcommand("doctor", "Say what this machine can do for the harness, and how to fix what is missing");
  cmd->add_flag("--json", *as_json, "Print one JSON object");
  cmd->callback([as_json, &g, &code] {
    const HostFacts facts = gather_host_facts(g);
    const std::vector<Finding> findings = diagnose(facts);
    const std::string summary =
        facts.gpu_stages ? "the GPU stages run on " + facts.gpu : "no GPU stage can run (" + facts.gpu_reason + ")";
    if (*as_json) {
      json list = json::array();
      for (const auto& f : findings)
        list.push_back({{"name", f.name}, {"status", f.status}, {"found", f.found}, {"fix", f.fix}});
      std::cout << json{{"gpu_stages", facts.gpu_stages}, {"summary", summary}, {"checks", list}}.dump(2) << "\n";
    } else {
      for (const auto& f : findings) {
        std::cout << (f.status == "ok"        ? "  ok       "
                      : f.status == "missing" ? "  MISSING  "
                                              : "  limited  ")
                  << f.name << ": " << f.found << "\n";
        if (!f.fix.empty()) std::cout << "           fix: " << f.fix << "\n";
      }
      std::cout << summary << "\n";
    }
    code.value = facts.gpu_stages ? 0 : 2;
  });
}

}  // namespace ptxbench::cli
