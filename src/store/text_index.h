// An in-memory full-text index ranked by BM25 (SQLite's FTS5), for the repair notes' retrieval
// (fixit_core/repair_notes.h): each document is two weighed text fields and the caller's number for it.
// The store owns every use of SQLite; its callers see documents, matches and scores.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace ptxbench {

struct TextMatch {
  size_t document = 0;  // the number given to add()
  double score = 0;     // BM25, higher is better (FTS5's bm25() negated)
};

class TextIndex {
 public:
  // Throws InputError naming `what` when SQLite cannot make the index (no FTS5 in this build).
  explicit TextIndex(std::string what);
  ~TextIndex();
  TextIndex(const TextIndex&) = delete;
  TextIndex& operator=(const TextIndex&) = delete;

  // One document: `primary` words weigh `primary_weight` times `secondary`'s in the score.
  // Throws InputError naming `what` and `name` when SQLite refuses it.
  void add(size_t document, const std::string& primary, const std::string& secondary, const std::string& name);
  // The documents holding any of `terms` (each a word; quoted for FTS5 here), best first, ties in
  // the order they were added. Not thread-safe: the caller serializes.
  std::vector<TextMatch> search(const std::vector<std::string>& terms, double primary_weight) const;

 private:
  struct Db;
  std::unique_ptr<Db> db_;
  std::string what_;
};

}  // namespace ptxbench
