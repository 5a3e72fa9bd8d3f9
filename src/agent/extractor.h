// Takes the candidate file out of a model's reply. The rule (also in docs/agent.md):
//  1. Line endings: CRLF and lone CR become LF first (flagged `crlf`).
//  2. A code block opens with a fence line: up to 3 spaces, then 3 or more backticks (or tildes)
//     and an optional language tag (the first word after the fence, compared case-insensitively);
//     it closes with a line of the same fence character, at least as long, and nothing else. A
//     block still open at the end of the reply runs to the end and is flagged `unterminated`
//     (a truncated reply keeps its code).
//  3. Only C/C++/CUDA blocks are candidates: tags cuda, cu, cuh, cpp, c++, cxx, cc, c, h, hpp, hxx,
//     or no tag. Blocks tagged otherwise (python, bash, ptx, text, ...) are never taken. For a
//     Triton candidate (Language::triton) the tags are python, py, triton, or none instead.
//  4. Of those, the LAST block that names the entry point as a function (`ptxbench_gemm(`) is the
//     candidate; when none names it, the LARGEST block (the later one on a tie).
//  5. No candidate block at all: outcome no_code (the turn is counted, nothing is compiled).
#pragma once
#include <string>

#include "core/json.h"
#include "core/language.h"

namespace ptxbench {

inline constexpr const char* kExtractorVersion = "extractor/1";

struct ExtractedCode {
  bool found = false;         // false: no_code
  std::string code;           // the block's text, ending in a newline
  std::string language;       // the chosen block's tag, "" when untagged
  int blocks = 0;             // fenced blocks in the reply, any language
  int eligible_blocks = 0;    // C/C++/CUDA or untagged blocks
  int chosen = -1;            // 0-based index of the chosen block among all blocks
  std::string rule;           // which part of the rule chose it (or why nothing was taken)
  bool unterminated = false;  // the chosen block had no closing fence
  bool crlf = false;          // line endings were normalized
  // The reply's lines outside every fenced block (fence lines dropped), trimmed: what the model
  // said about its code (Fixit keeps it as the explanation). Not part of to_json().
  std::string prose;
  json to_json() const;
};

ExtractedCode extract_code(const std::string& reply, const std::string& entry_symbol,
                           Language language = Language::cuda);

}  // namespace ptxbench
