// Errors inside a process are exceptions that carry context (what failed and where).
#pragma once
#include <source_location>
#include <stdexcept>
#include <string>

namespace ptxbench {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad user input (spec, flag, candidate file): reported plainly, never as a crash.
class InputError : public Error {
 public:
  using Error::Error;
};

[[noreturn]] inline void fail(const std::string& what, std::source_location where = std::source_location::current()) {
  throw Error(what + " [" + where.file_name() + ":" + std::to_string(where.line()) + "]");
}

}  // namespace ptxbench
