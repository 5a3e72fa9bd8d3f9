// Takes the candidate file out of a model's reply by the fence rules of docs/agent.md, flagging what it did.
#include "agent/extractor.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <vector>

namespace ptxbench {
namespace {

struct Block {
  std::string language;
  std::string text;
  bool terminated = false;
};

struct Fence {
  char ch = 0;
  size_t length = 0;
  std::string info;
};

// A fence line: up to 3 spaces, then >= 3 backticks or tildes; for backticks the info string
// holds no backtick (CommonMark), so an inline ```x``` in prose is no fence.
bool parse_fence(const std::string& line, Fence* f) {
  size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (i >= line.size() || (line[i] != '`' && line[i] != '~')) return false;
  const char ch = line[i];
  size_t n = 0;
  while (i + n < line.size() && line[i + n] == ch) ++n;
  if (n < 3) return false;
  std::string info = line.substr(i + n);
  if (ch == '`' && info.find('`') != std::string::npos) return false;
  *f = {ch, n, info};
  return true;
}

bool closes(const std::string& line, const Fence& open) {
  Fence f;
  if (!parse_fence(line, &f) || f.ch != open.ch || f.length < open.length) return false;
  return f.info.find_first_not_of(" \t") == std::string::npos;
}

std::string language_of(const std::string& info) {
  size_t b = info.find_first_not_of(" \t{.");
  if (b == std::string::npos) return "";
  size_t e = info.find_first_of(" \t}", b);
  std::string lang = info.substr(b, e == std::string::npos ? std::string::npos : e - b);
  std::transform(lang.begin(), lang.end(), lang.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lang;
}

bool eligible(const std::string& tag, Language language) {
  static const std::set<std::string> kCuda{"", "cuda", "cu", "cuh", "cpp", "c++", "cxx", "cc", "c", "h", "hpp", "hxx"};
  static const std::set<std::string> kPython{"", "python", "py", "python3", "triton"};
  return (language == Language::triton ? kPython : kCuda).count(tag) > 0;
}

// The entry point named as a function: the symbol, then optional spaces, then '('.
bool names_entry(const std::string& text, const std::string& entry) {
  if (entry.empty()) return false;
  for (size_t at = text.find(entry); at != std::string::npos; at = text.find(entry, at + 1)) {
    const bool starts = at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
    size_t k = at + entry.size();
    while (k < text.size() && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n')) ++k;
    if (starts && k < text.size() && text[k] == '(') return true;
  }
  return false;
}

}  // namespace

json ExtractedCode::to_json() const {
  return {{"version", kExtractorVersion},
          {"found", found},
          {"language", language},
          {"blocks", blocks},
          {"eligible_blocks", eligible_blocks},
          {"chosen", chosen},
          {"rule", rule},
          {"unterminated", unterminated},
          {"crlf", crlf},
          {"bytes", code.size()}};
}

ExtractedCode extract_code(const std::string& reply, const std::string& entry_symbol, Language language) {
  ExtractedCode out;
  std::string text;
  text.reserve(reply.size());
  for (size_t i = 0; i < reply.size(); ++i) {
    if (reply[i] == '\r') {
      out.crlf = true;
      text += '\n';
      if (i + 1 < reply.size() && reply[i + 1] == '\n') ++i;
    } else {
      text += reply[i];
    }
  }

  std::vector<Block> blocks;
  std::optional<Fence> open;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t nl = text.find('\n', pos);
    const std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    if (open) {
      if (closes(line, *open)) {
        blocks.back().terminated = true;
        open.reset();
      } else {
        blocks.back().text += line + "\n";
      }
    } else if (Fence f; parse_fence(line, &f)) {
      open = f;
      blocks.push_back({language_of(f.info), "", false});
    } else {
      out.prose += line + "\n";
    }
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  // A reply ending in "\n" leaves an empty last line inside an unterminated block: drop it.
  if (open && blocks.back().text.ends_with("\n\n")) blocks.back().text.pop_back();

  const size_t prose_begin = out.prose.find_first_not_of(" \t\n");
  out.prose = prose_begin == std::string::npos
                  ? ""
                  : out.prose.substr(prose_begin, out.prose.find_last_not_of(" \t\n") - prose_begin + 1);
  out.blocks = static_cast<int>(blocks.size());
  const std::string kind = language == Language::triton ? "Python" : "C/C++/CUDA";
  int naming = -1, largest = -1;
  for (int i = 0; i < out.blocks; ++i) {
    const Block& b = blocks[static_cast<size_t>(i)];
    if (!eligible(b.language, language) || b.text.find_first_not_of(" \t\n") == std::string::npos) continue;
    ++out.eligible_blocks;
    if (names_entry(b.text, entry_symbol)) naming = i;
    if (largest < 0 || b.text.size() >= blocks[static_cast<size_t>(largest)].text.size()) largest = i;
  }
  if (naming < 0 && largest < 0) {
    out.rule = out.blocks ? "no " + kind + " code block (" + std::to_string(out.blocks) +
                                " block(s) in other languages or empty)"
                          : "no code block in the reply";
    return out;
  }
  out.chosen = naming >= 0 ? naming : largest;
  if (out.eligible_blocks == 1) out.rule = "the only " + kind + " block";
  else if (naming >= 0) out.rule = "the last " + kind + " block naming " + entry_symbol;
  else out.rule = "the largest " + kind + " block (none names " + entry_symbol + ")";
  const Block& b = blocks[static_cast<size_t>(out.chosen)];
  out.found = true;
  out.code = b.text;
  out.language = b.language;
  out.unterminated = !b.terminated;
  return out;
}

}  // namespace ptxbench
