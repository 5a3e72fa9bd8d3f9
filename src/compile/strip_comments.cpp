// Removes C/C++/PTX comments from source text, keeping line breaks so line numbers stay valid.
#include "compile/strip_comments.h"

#include <cctype>

namespace ptxbench {

std::string strip_comments(const std::string& text, StringLiterals literals) {
  enum class State { code, line_comment, block_comment, literal };
  State state = State::code;
  char quote = 0;
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    switch (state) {
      case State::code:
        if (c == '/' && next == '/') {
          state = State::line_comment;
          out += "  ";
          ++i;
        } else if (c == '/' && next == '*') {
          state = State::block_comment;
          out += "  ";
          ++i;
        } else {
          // A quote after a digit or letter is a digit separator (1'000) or a prefix (L'x'), not an opener.
          const bool after_word = i > 0 && std::isalnum(static_cast<unsigned char>(text[i - 1]));
          if (c == '"' || (c == '\'' && !after_word)) {
            state = State::literal;
            quote = c;
          }
          out += c;
        }
        break;
      case State::line_comment:
        if (c == '\n') state = State::code;
        out += c == '\n' ? '\n' : ' ';
        break;
      case State::block_comment:
        if (c == '*' && next == '/') {
          state = State::code;
          out += "  ";
          ++i;
        } else {
          out += c == '\n' ? '\n' : ' ';
        }
        break;
      case State::literal: {
        const bool blank = literals == StringLiterals::blank;
        if (c == '\\' && next != '\0' && next != '\n') {
          out += blank ? "  " : std::string{c, next};
          ++i;
        } else if (c == quote || c == '\n') {  // an unterminated literal ends at the line's end
          state = State::code;
          out += c;
        } else {
          out += blank ? ' ' : c;
        }
        break;
      }
    }
  }
  return out;
}

}  // namespace ptxbench
