// `ptxbench fixit export`: a build's kept records as trl, sharegpt, openai or records lines, and the card.
#include "fixit/export.h"

#include <map>
#include <sstream>

#include "core/error.h"
#include "fixit_core/record_format.h"

namespace ptxbench::fixit {
namespace {

json message(const char* role, const std::string& content) { return {{"role", role}, {"content", content}}; }

struct Chat {
  std::string system;
  std::vector<json> prompt;  // user / assistant / user ...
  json completion;           // the assistant's fix
};

Chat chat_of(const FixitRecord& r, const ExportOptions& o) {
  Chat c;
  c.system = o.system ? r.system : "";
  c.prompt.push_back(message("user", r.problem_prompt));
  if (r.template_kind == "fixit") {
    c.prompt.push_back(message("assistant", r.failed_reply));
    c.prompt.push_back(message("user", r.feedback));
  }
  c.completion = message("assistant", r.message);
  return c;
}

}  // namespace

ExportFormat parse_export_format(const std::string& s) {
  if (s == "trl") return ExportFormat::trl;
  if (s == "sharegpt") return ExportFormat::sharegpt;
  if (s == "openai") return ExportFormat::openai;
  if (s == "records") return ExportFormat::records;
  throw InputError("--format '" + s + "': not an export format (known: trl, sharegpt, openai, records)");
}

std::string_view to_string(ExportFormat f) {
  switch (f) {
    case ExportFormat::trl: return "trl";
    case ExportFormat::sharegpt: return "sharegpt";
    case ExportFormat::openai: return "openai";
    case ExportFormat::records: return "records";
  }
  return "trl";
}

json export_line(const json& record, const ExportOptions& o) {
  const FixitRecord r = check_record(record, "record " + record.value("id", std::string("?")));
  if (o.format == ExportFormat::records) return record;  // as stored, byte for byte
  const Chat c = chat_of(r, o);
  if (o.format == ExportFormat::trl) {
    json prompt = json::array();
    if (!c.system.empty()) prompt.push_back(message("system", c.system));
    for (const auto& m : c.prompt) prompt.push_back(m);
    return {{"prompt", prompt}, {"completion", json::array({c.completion})}};
  }
  if (o.format == ExportFormat::sharegpt) {
    json conv = json::array();
    for (const auto& m : c.prompt)
      conv.push_back({{"from", m["role"] == "user" ? "human" : "gpt"}, {"value", m["content"]}});
    conv.push_back({{"from", "gpt"}, {"value", c.completion["content"]}});
    json line = {{"conversations", conv}};
    if (!c.system.empty()) line["system"] = c.system;
    return line;
  }
  json messages = json::array();
  if (!c.system.empty()) messages.push_back(message("system", c.system));
  for (auto m : c.prompt) {
    if (m["role"] == "assistant") m["weight"] = 0;  // the failed reply: context, never learned
    messages.push_back(m);
  }
  json fix = c.completion;
  fix["weight"] = 1;
  messages.push_back(fix);
  return {{"messages", messages}};
}

json card_json(const CardInput& in) {
  std::map<std::string, long long> by_problem, by_class, by_source, by_split, by_explanation;
  std::map<std::string, std::map<std::string, long long>> problem_class;
  std::map<std::string, long long> by_teacher;
  double cost = 0;
  for (const auto& j : in.records) {
    const FixitRecord r = check_record(j, "record " + j.value("id", std::string("?")));
    const std::string cls = r.error_class.value_or("kernelgen");
    ++by_problem[r.problem];
    ++by_class[cls];
    ++problem_class[r.problem][cls];
    ++by_split[r.split];
    ++by_source[r.fix_source];
    ++by_explanation[r.explanation_source];
    ++by_teacher[r.teacher_model ? *r.teacher_model + " (" + r.teacher_prompt_version.value_or("") + ")" : "none"];
    cost += r.teacher_cost_usd.value_or(0);
  }
  json pc = json::object();
  for (const auto& [p, m] : problem_class) pc[p] = m;
  const json& cfg = in.build.value("config", json::object());
  return {
      {"format", "ptxbench.fixit-card/1"},
      {"build", in.build.value("id", "")},
      {"recipe", cfg.value("recipe", json::object())},
      {"teacher", cfg.value("teacher", json::object())},
      {"sources", cfg.value("sources", json::array())},
      {"suite", cfg.value("suite", json::object())},
      {"harness", cfg.value("harness", json::object())},
      {"export",
       {{"format", std::string(to_string(in.options.format))}, {"system", in.options.system}, {"file", in.data_file}}},
      {"records", in.records.size()},
      {"by_problem", by_problem},
      {"by_class", by_class},
      {"by_problem_and_class", pc},
      {"by_split", by_split},
      {"by_fix_source", by_source},
      {"by_explanation_source", by_explanation},
      {"by_teacher", by_teacher},
      {"teacher_cost_usd", cost},
      {"items", in.item_counts}};
}

std::string card_markdown(const json& c) {
  std::ostringstream o;
  const json& recipe = c["recipe"];
  o << "# Fixit dataset: " << c["build"].get<std::string>() << "\n\n";
  o << "Made by PTXBench `fixit build` (recipe `" << recipe.value("name", "") << "`: " << recipe.value("title", "")
    << ").\n"
    << "Every fix in it was judged by the harness before it became a record: correct"
    << (recipe.value("fix", json::object()).value("require_target", true)
            ? ", with every target instruction group executed"
            : "")
    << ".\n\n";
  o << "- records: " << c["records"] << "\n- export: `" << c["export"]["format"].get<std::string>() << "` in `"
    << c["export"]["file"].get<std::string>() << "`, system text "
    << (c["export"]["system"].get<bool>() ? "included" : "left out") << "\n- template: " << recipe.value("template", "")
    << "; suite: " << c["suite"].value("name", "") << "\n";
  o << "- teacher: " << (c["teacher"].value("spec", "").empty() ? "none" : c["teacher"].value("spec", ""))
    << "; cost of its calls "
    << "behind these records: $" << c["teacher_cost_usd"].get<double>() << "\n";
  o << "- harness: " << c["harness"].dump() << "\n- sources: " << c["sources"].dump() << "\n\n";
  auto table = [&](const char* title, const json& m) {
    o << "## " << title << "\n\n| | records |\n|---|---|\n";
    for (const auto& [k, v] : m.items()) o << "| " << (k.empty() ? "(none)" : k) << " | " << v << " |\n";
    o << "\n";
  };
  table("Records per problem", c["by_problem"]);
  table("Records per error class", c["by_class"]);
  table("Records per split", c["by_split"]);
  table("Where the fix came from", c["by_fix_source"]);
  table("Where the explanation came from", c["by_explanation_source"]);
  table("Teacher (prompt version)", c["by_teacher"]);
  o << "## Items the build looked at\n\n```json\n" << c["items"].dump(2) << "\n```\n\n";
  o << "## Loading\n\n"
       "- TRL (`--format trl`): `datasets.load_dataset(\"json\", data_files=FILE)`, then "
       "`SFTTrainer(train_dataset=...)`; the\n"
       "  prompt/completion form trains the completion (the fix) only.\n"
       "- LLaMA-Factory (`--format sharegpt`): dataset_info.json entry\n"
       "  `{\"file_name\": FILE, \"formatting\": \"sharegpt\", \"columns\": {\"messages\": \"conversations\", "
       "\"system\": \"system\"}}`,\n"
       "  trained with `mask_history: true` so only the last turn (the fix) is learned.\n"
       "- OpenAI fine-tuning (`--format openai`): upload FILE as is; the failed reply carries `weight: 0`.\n";
  return o.str();
}

}  // namespace ptxbench::fixit
