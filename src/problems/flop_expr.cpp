// A tiny arithmetic evaluator for problem.toml's FLOP formulas, errors at their position.
#include "problems/flop_expr.h"

#include <cctype>

#include "core/error.h"

namespace ptxbench {
namespace {

class Parser {
 public:
  Parser(const std::string& s, const std::map<std::string, long long>& v) : s_(s), vars_(v) {}
  double parse() {
    double v = sum();
    skip();
    if (pos_ != s_.size()) error("unexpected '" + std::string(1, s_[pos_]) + "'");
    return v;
  }

 private:
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  [[noreturn]] void error(const std::string& what) {
    throw InputError("flops formula '" + s_ + "' at position " + std::to_string(pos_) + ": " + what);
  }
  double sum() {
    double v = product();
    for (;;) {
      skip();
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) {
        char op = s_[pos_++];
        double r = product();
        v = op == '+' ? v + r : v - r;
      } else return v;
    }
  }
  double product() {
    double v = atom();
    for (;;) {
      skip();
      if (pos_ < s_.size() && (s_[pos_] == '*' || s_[pos_] == '/')) {
        char op = s_[pos_++];
        double r = atom();
        if (op == '/' && r == 0) error("division by zero");
        v = op == '*' ? v * r : v / r;
      } else return v;
    }
  }
  double atom() {
    skip();
    if (pos_ >= s_.size()) error("expression ends early");
    char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      double v = sum();
      skip();
      if (pos_ >= s_.size() || s_[pos_] != ')') error("missing ')'");
      ++pos_;
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      size_t used = 0;
      double v = std::stod(s_.substr(pos_), &used);
      pos_ += used;
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      std::string name = s_.substr(start, pos_ - start);
      auto it = vars_.find(name);
      if (it == vars_.end()) {
        pos_ = start;
        error("unknown name '" + name + "'");
      }
      return static_cast<double>(it->second);
    }
    error("unexpected '" + std::string(1, c) + "'");
  }

  const std::string& s_;
  const std::map<std::string, long long>& vars_;
  size_t pos_ = 0;
};

}  // namespace

double eval_flop_expr(const std::string& expr, const std::map<std::string, long long>& vars) {
  return Parser(expr, vars).parse();
}

}  // namespace ptxbench
