// Scans PTX text for its instruction opcodes (labels and predicates skipped), for the target check.
#include <cctype>
#include <sstream>

#include "compile/static_checks.h"
#include "compile/strip_comments.h"

namespace ptxbench {
namespace {

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%'; }

// Skips leading labels (`$L__BB0_2:`) and a guard predicate (`@%p1`, `@!p`) at `pos`.
size_t skip_labels_and_predicate(const std::string& s, size_t pos) {
  for (;;) {
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
    size_t end = pos;
    while (end < s.size() && is_ident_char(s[end])) ++end;
    // `name:` is a label; `name::` would be part of a state space such as shared::cluster.
    if (end > pos && end < s.size() && s[end] == ':' && (end + 1 == s.size() || s[end + 1] != ':')) {
      pos = end + 1;
      continue;
    }
    if (pos < s.size() && s[pos] == '@') {
      while (pos < s.size() && !std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
      continue;
    }
    return pos;
  }
}

bool looks_like_opcode(const std::string& token) {
  if (token.empty() || !std::isalpha(static_cast<unsigned char>(token[0]))) return false;
  for (char c : token)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != ':') return false;
  return true;
}

// The opcode of one statement, or "" for directives and fragments. Directives such as `.loc` and
// `.file` end at the line's end without a ';', so an instruction can follow them in the same
// statement: the opcode is the first token of the first line that is not a directive.
std::string statement_opcode(const std::string& statement) {
  std::istringstream lines(statement);
  for (std::string line; std::getline(lines, line);) {
    const size_t pos = skip_labels_and_predicate(line, 0);
    if (pos == line.size()) continue;
    if (line[pos] == '.') continue;
    size_t end = pos;
    while (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end]))) ++end;
    const std::string token = line.substr(pos, end - pos);
    return looks_like_opcode(token) ? token : "";
  }
  return "";
}

}  // namespace

std::map<std::string, long long> scan_ptx(const std::string& ptx_text, const std::vector<std::string>& prefixes) {
  std::map<std::string, long long> counts;
  for (const auto& prefix : prefixes) counts[prefix] = 0;
  const std::string code = strip_comments(ptx_text, StringLiterals::blank);
  // Statements end at ';'; braces open and close blocks (and vector operands, whose pieces are
  // never opcodes).
  std::string statement;
  auto flush = [&] {
    const std::string opcode = statement_opcode(statement);
    statement.clear();
    if (opcode.empty()) return;
    for (const auto& prefix : prefixes)
      if (opcode.starts_with(prefix)) ++counts[prefix];
  };
  for (char c : code) {
    if (c == ';' || c == '{' || c == '}') {
      flush();
    } else {
      statement += c;
    }
  }
  flush();
  return counts;
}

}  // namespace ptxbench
