// Which turns become Fixit items, before any teacher call: the failing turns of the recipe's
// classes (fixit) or the correct turns (kernelgen) of the recipe's suite, each with its problem's
// split. Nothing is dropped silently: every turn that could have been an item and is not says why,
// in its item's status (every status and reason is stored and counted by `fixit stats`):
//   refused         held_out: the suite holds the problem out (decontamination by problem identity)
//   skipped         outside_recipe (the problem is not in the suite), per_trajectory (the recipe takes
//                   the first N failures of a trajectory), duplicate (the same normalized kernel
//                   already is an item of that problem), capped (pre-balance: a problem, signature or
//                   class cap)
//   selected        goes on to be fixed
// Items come in a fixed order (run, problem, trajectory, turn); the balancing draws are seeded.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fixit_core/error_class.h"
#include "fixit/recipe.h"
#include "fixit/source_turns.h"

namespace ptxbench::fixit {

struct Item {
  std::string key;  // stable id: the template and the turn's address, hashed (16 hex digits)
  Template template_kind = Template::fixit;
  std::string problem, split;
  const SourceTurn* turn = nullptr;      // the failing turn (fixit), the correct turn (kernelgen)
  std::optional<ErrorClass> error;       // fixit
  std::vector<const SourceTurn*> later;  // fixit: later turns of its trajectory whose stored judgment fixes it
  std::string kernel_hash;
  std::string status = "selected";  // selected, refused, skipped
  std::string reason;               // why not selected ("" when selected)
};

struct Selection {
  std::vector<Item> items;
  long long turns_read = 0;
  std::map<std::string, long long>
      not_items;  // turns that are no item, by why: no_kernel, not_judged, no_failure, class_not_in_recipe
};

struct SuiteSplits {
  std::string name;
  std::map<std::string, std::string> splits;  // problem -> train / held-out
};

// `problems`: name -> spec (for the target groups); a turn of an unknown problem is an InputError.
Selection select_items(const std::vector<SourceTurn>& turns, const Recipe& recipe, const SuiteSplits& suite,
                       const std::map<std::string, const ProblemSpec*>& problems);

// Balancing, shared by pre- (items) and post-balancing (records): for each entry, "" when kept, else
// why it is cut. Within a problem, entries are taken round-robin over signatures (each signature's
// entries in a seeded shuffle), so a cap keeps the most varied set; class caps apply too.
struct BalanceEntry {
  std::string problem, error_class, signature;
};
std::vector<std::string> balance_cut(const std::vector<BalanceEntry>& entries, const Recipe& recipe,
                                     const std::string& stage);

}  // namespace ptxbench::fixit
