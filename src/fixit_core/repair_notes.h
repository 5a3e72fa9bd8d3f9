// Repair notes (prompt-time supervision, the paper's alternative to fine-tuning): Fixit records
// as notes retrieved for a failing turn and shown in its feedback. A note's key is its error
// signature (class and the deciding stage's structured parts), its problem, and the features of
// the failing kernel (kernel_features.h); its value is the explanation and, optionally, the fixed
// kernel (the note's fields, declared once: store/repair_note_row.h). Retrieval ranks by BM25 (SQLite FTS5's bm25,
// signature words weighted over features) the notes that share words with the failing turn's key. Notes of the problem
// being solved are excluded unless asked (the paper's in-distribution condition), and so are notes of problems the
// run's suite holds out; what was excluded is counted in what the turn records.
#pragma once
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/record.h"
#include "problems/problem_spec.h"
#include "store/repair_note_row.h"
#include "store/text_index.h"

namespace ptxbench::fixit {

inline constexpr const char* kNotesVersion = "repair-notes/1";

struct NotesQuery {
  std::string problem, error_class, signature;
  std::vector<std::string> features;
  std::string text() const;  // the words searched for
};

struct NotesOptions {
  int k = 3;
  bool with_fixed_kernel = false;
  bool same_problem = false;       // include notes of the problem being solved
  std::set<std::string> held_out;  // the run's held-out problems: their notes are never shown
};

struct ShownNote {
  const RepairNote* note = nullptr;
  double score = 0;  // BM25 (higher is better: FTS5's bm25() negated)
};

struct Retrieval {
  std::vector<ShownNote> shown;
  int excluded_same_problem = 0, excluded_held_out = 0;  // matching notes left out by the rules
  json to_json(const NotesOptions& o) const;             // what the turn records
};

class RepairNotes {
 public:
  // Notes from ptxbench.fixit/1 records (Fixit template only; KernelGen records have no failure).
  // Throws InputError naming `source` for a malformed record or an index SQLite cannot make.
  RepairNotes(const std::vector<json>& records, std::string source);
  ~RepairNotes();
  RepairNotes(const RepairNotes&) = delete;
  RepairNotes& operator=(const RepairNotes&) = delete;

  Retrieval retrieve(const NotesQuery& q, const NotesOptions& o) const;  // thread-safe
  size_t size() const { return notes_.size(); }
  const std::string& source() const { return source_; }
  const std::string& sha256() const { return sha256_; }  // of the notes' ids, keys and values

 private:
  std::vector<RepairNote> notes_;
  std::string source_, sha256_;
  std::unique_ptr<TextIndex> index_;
  mutable std::mutex mutex_;
};

// A Fixit build of the workspace (its records in the dataset), or a `fixit export --format
// records` JSONL file. Throws InputError naming what is missing.
std::unique_ptr<RepairNotes> load_repair_notes(const std::string& source, const std::filesystem::path& workspace_db);

// The key of a failing turn; nullopt when its judgment is no failure (no note applies).
std::optional<NotesQuery> notes_query(const EvaluationRecord& r, const ProblemSpec* problem, const std::string& kernel);

// The feedback's notes section ("" for none).
std::string render_notes(const Retrieval& r, const NotesOptions& o);

}  // namespace ptxbench::fixit
