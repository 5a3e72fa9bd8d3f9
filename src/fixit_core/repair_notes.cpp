// Repair notes: Fixit records made notes, indexed, retrieved for a failing turn and rendered into its feedback.
#include "fixit_core/repair_notes.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "core/content_hash.h"
#include "core/error.h"
#include "fixit_core/error_class.h"
#include "fixit_core/kernel_features.h"
#include "fixit_core/record_format.h"
#include "store/fixit_store.h"

namespace ptxbench::fixit {
namespace {

// Lowercase words (letters and digits); everything else separates, as FTS5's unicode61 does.
std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::string w;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!w.empty()) {
      out.push_back(w);
      w.clear();
    }
  }
  if (!w.empty()) out.push_back(w);
  return out;
}

std::string joined(const std::vector<std::string>& v, const char* sep = " ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string signature_text(const std::string& problem, const std::string& signature) {
  return joined(words(problem + " " + signature));
}

// What a note's field is made of (store/repair_note_row.h's `make`).
std::string note_text(const std::string& s) { return s; }
std::string note_text(const std::optional<std::string>& s) { return s.value_or(""); }

RepairNote note_of(const FixitRecord& r) {
  RepairNote n;
#define PTXBENCH_REPAIR_NOTE_MAKE(type, member, from, make, index, note) n.member = make(r.from);
  PTXBENCH_REPAIR_NOTE_FIELDS(PTXBENCH_REPAIR_NOTE_MAKE)
#undef PTXBENCH_REPAIR_NOTE_MAKE
  return n;
}

// The index's columns: the words of a note's fields that the declaration puts in that column.
enum class Index { none, primary, secondary };
void add_words(std::vector<std::string>& out, const std::string& s) {
  for (auto& w : words(s)) out.push_back(std::move(w));
}
void add_words(std::vector<std::string>& out, const std::vector<std::string>& v) {  // already words
  out.insert(out.end(), v.begin(), v.end());
}
std::string index_text(const RepairNote& n, Index column) {
  std::vector<std::string> w;
#define PTXBENCH_REPAIR_NOTE_INDEX(type, member, from, make, index, note) \
  if (Index::index == column) add_words(w, n.member);
  PTXBENCH_REPAIR_NOTE_FIELDS(PTXBENCH_REPAIR_NOTE_INDEX)
#undef PTXBENCH_REPAIR_NOTE_INDEX
  return joined(w);
}

}  // namespace

std::string NotesQuery::text() const { return signature_text(problem, signature) + " " + joined(features); }

json Retrieval::to_json(const NotesOptions& o) const {
  json shown_json = json::array();
  for (const auto& s : shown)
    shown_json.push_back(
        {{"id", s.note->id}, {"score", s.score}, {"problem", s.note->problem}, {"signature", s.note->signature}});
  return {{"version", kNotesVersion},
          {"k", o.k},
          {"with_fixed_kernel", o.with_fixed_kernel},
          {"same_problem", o.same_problem},
          {"shown", shown_json},
          {"excluded", {{"same_problem", excluded_same_problem}, {"held_out", excluded_held_out}}}};
}

RepairNotes::RepairNotes(const std::vector<json>& records, std::string source)
    : source_(std::move(source)), index_(std::make_unique<TextIndex>(source_ + ": the repair notes' index")) {
  std::string identity;
  for (size_t i = 0; i < records.size(); ++i) {
    const std::string where = source_ + ": record " + std::to_string(i + 1);
    const FixitRecord r = check_record(records[i], where);
    if (r.template_kind != "fixit") continue;  // a KernelGen record fixes no failure
    if (!r.error_class) throw InputError(where + ": a fixit record without its error class");
    notes_.push_back(note_of(r));
    const RepairNote& n = notes_.back();
    identity += n.id + "\x1f" + n.signature + "\x1f" + n.explanation + "\x1f" + n.fixed_kernel + "\x1e";
  }
  sha256_ = content_sha256(identity);
  for (size_t i = 0; i < notes_.size(); ++i)
    index_->add(i, index_text(notes_[i], Index::primary), index_text(notes_[i], Index::secondary),
                "note " + notes_[i].id);
}

RepairNotes::~RepairNotes() = default;

Retrieval RepairNotes::retrieve(const NotesQuery& q, const NotesOptions& o) const {
  Retrieval out;
  std::vector<std::string> terms = words(q.text());
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  if (terms.empty() || o.k <= 0) return out;
  std::lock_guard lock(mutex_);
  // Signature words weigh twice the kernel's features; ties keep the records' order.
  for (const auto& m : index_->search(terms, 2.0)) {
    const RepairNote& n = notes_[m.document];
    if (o.held_out.count(n.problem)) {
      ++out.excluded_held_out;
      continue;
    }
    if (!o.same_problem && n.problem == q.problem) {
      ++out.excluded_same_problem;
      continue;
    }
    if (static_cast<int>(out.shown.size()) < o.k) out.shown.push_back({&n, m.score});
  }
  return out;
}

std::unique_ptr<RepairNotes> load_repair_notes(const std::string& source, const std::filesystem::path& workspace_db) {
  namespace fs = std::filesystem;
  std::vector<json> records;
  if (fs::is_regular_file(source)) {
    std::ifstream in(source, std::ios::binary);
    int n = 0;
    for (std::string line; std::getline(in, line);) {
      ++n;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      json j = json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object())
        throw InputError(source + ":" + std::to_string(n) +
                         ": not a JSON object (make the file with `ptxbench fixit export --format records`)");
      records.push_back(std::move(j));
    }
  } else {
    if (!fs::is_regular_file(workspace_db) || !FixitStore::has_builds(workspace_db))
      throw InputError("--repair-notes " + source +
                       ": no such file, and the workspace holds no Fixit build (make one with `ptxbench "
                       "fixit build`, or give a `fixit export --format records` file)");
    FixitStore store(workspace_db);
    std::vector<FixitRecordRow> rows;
    if (auto s = store.load_records(source, &rows); !s.ok)
      throw InputError("--repair-notes " + source + ": " + s.error);
    FixitBuildRow b;
    if (auto s = store.get_build(source, &b); !s.ok)
      throw InputError("--repair-notes " + source + ": " + s.error + " (see `ptxbench fixit stats`)");
    for (auto& r : rows)
      if (r.in_dataset) records.push_back(std::move(r.record));
  }
  auto notes = std::make_unique<RepairNotes>(records, source);
  if (notes->size() == 0) throw InputError("--repair-notes " + source + ": no Fixit record to make a note of");
  return notes;
}

std::optional<NotesQuery> notes_query(const EvaluationRecord& r, const ProblemSpec* problem,
                                      const std::string& kernel) {
  auto c = classify(r, problem, {0});
  if (!c) return std::nullopt;
  return NotesQuery{r.problem, c->name, c->signature, kernel_features(kernel)};
}

std::string render_notes(const Retrieval& r, const NotesOptions& o) {
  if (r.shown.empty()) return "";
  std::ostringstream s;
  s << "\n## Repair notes from similar failures (" << r.shown.size() << ")\n\n"
    << "Other attempts failed in a similar way; this is what was wrong there and how it was fixed. Use what applies to "
       "your kernel.\n";
  int i = 0;
  for (const auto& n : r.shown) {
    s << "\n### Note " << ++i << " (" << n.note->problem << ", " << n.note->error_class << ")\n\n"
      << n.note->explanation << "\n";
    if (o.with_fixed_kernel) s << "\nThe fixed kernel:\n\n" << target_message("", n.note->fixed_kernel);
  }
  return s.str();
}

}  // namespace ptxbench::fixit
