// `ptxbench fixit export`: a build's records (those post-balancing kept) as chat JSON Lines that
// load unchanged in the trainers people use, and a dataset card beside them:
//   trl       TRL's conversational prompt-completion form: {"prompt": [system, user (the problem),
//             assistant (the failed reply), user (the feedback)], "completion": [assistant (the
//             explanation and the fixed kernel)]}. SFTTrainer trains on the completion only by
//             default (completion_only_loss), so the loss falls on the fix alone; a "messages" form
//             would train the failed reply too under assistant_only_loss.
//   sharegpt  LLaMA-Factory's sharegpt form: {"conversations": [{"from": "human"|"gpt", "value"}],
//             "system"}; trained with LLaMA-Factory's mask_history so only the last turn (the fix) is
//             learned (the card gives the dataset_info entry).
//   openai    OpenAI fine-tuning: {"messages": [...]} with "weight": 0 on the failed assistant turn
//             and 1 on the fix.
//   records   the full ptxbench.fixit/1 records, provenance and all.
// KernelGen records are [system, user] -> assistant. `--system none` leaves the system message
// out (the knowledge pack is ~20k tokens); `full` keeps it as the model saw it.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "core/json.h"

namespace ptxbench::fixit {

enum class ExportFormat { trl, sharegpt, openai, records };
ExportFormat parse_export_format(const std::string& s);  // InputError naming the formats
std::string_view to_string(ExportFormat f);

struct ExportOptions {
  ExportFormat format = ExportFormat::trl;
  bool system = true;  // include the system text
};

// One line per record (each checked: a record missing a field fails the export, naming it).
json export_line(const json& record, const ExportOptions& options);

// The dataset card (markdown) and its JSON twin: counts per problem, class, source and teacher,
// the recipe, the provenance, the loaders' settings.
struct CardInput {
  json build;                 // fixit_builds row as JSON (id, recipe, teacher, config, summary)
  std::vector<json> records;  // the exported records
  json item_counts;           // status -> count, reason -> count
  ExportOptions options;
  std::string data_file;  // the JSONL's file name
};
json card_json(const CardInput& in);
std::string card_markdown(const json& card);

}  // namespace ptxbench::fixit
