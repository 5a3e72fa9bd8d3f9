// Moves options given before the subcommand to after it (`ptxbench --json eval a.cu`); global ones stay.
#include "cli/argv_order.h"

namespace ptxbench::cli {

std::vector<std::string> options_after_subcommand(const std::vector<std::string>& args,
                                                  const std::set<std::string>& subcommands,
                                                  const GlobalOptionNames& globals) {
  std::vector<std::string> head, moved;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") return args;
    if (subcommands.count(a)) {
      std::vector<std::string> out = head;
      out.push_back(a);
      out.insert(out.end(), moved.begin(), moved.end());
      out.insert(out.end(), args.begin() + static_cast<long>(i) + 1, args.end());
      return out;
    }
    const std::string name = a.substr(0, a.find('='));
    if (globals.with_value.count(name)) {
      head.push_back(a);
      if (a.find('=') == std::string::npos && i + 1 < args.size()) head.push_back(args[++i]);
    } else if (globals.flags.count(a)) {
      head.push_back(a);
    } else {
      moved.push_back(a);
    }
  }
  return args;
}

}  // namespace ptxbench::cli
