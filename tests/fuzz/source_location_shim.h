// Force-included into the fuzz targets only: clang 14 (Debian 12's) lacks __builtin_source_location,
// so libstdc++'s <source_location> declares nothing there; core/error.h needs file_name() and line().
#pragma once
#include <version>
#if !defined(__cpp_lib_source_location)
namespace std {
struct source_location {
  static constexpr source_location current(const char* file = __builtin_FILE(),
                                           unsigned line = __builtin_LINE()) noexcept {
    source_location l;
    l.file_ = file, l.line_ = line;
    return l;
  }
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr unsigned line() const noexcept { return line_; }
  const char* file_ = "";
  unsigned line_ = 0;
};
}  // namespace std
#endif
