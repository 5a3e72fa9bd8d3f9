// Removes C/C++/PTX comments from source text, keeping line breaks so line numbers stay valid.
#pragma once
#include <string>

namespace ptxbench {

enum class StringLiterals { keep, blank };

// `//` and `/* */` comments become spaces (their newlines are kept). Comment markers inside
// string and character literals are left alone; with StringLiterals::blank the literals' contents
// are replaced by spaces too (the quotes stay).
std::string strip_comments(const std::string& text, StringLiterals literals);

}  // namespace ptxbench
