// A tiny arithmetic evaluator for problem.toml's FLOP formulas: integers, decimals, dim names,
// + - * / and parentheses. Throws InputError with the position of a syntax error.
#pragma once
#include <map>
#include <string>

namespace ptxbench {
double eval_flop_expr(const std::string& expr, const std::map<std::string, long long>& vars);
}
