// Parses a TOML file people write, every error an InputError "FILE:LINE:COL: what".
#include "problems/toml_file.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.h"

namespace ptxbench {

toml::table parse_toml_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file.string() + ": cannot be read");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  size_t line = 1, column = 1;
  for (const char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte >= 0x80) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", byte);
      throw InputError(file.string() + ":" + std::to_string(line) + ":" + std::to_string(column) + ": byte " + hex +
                       " is not ASCII (these files must be ASCII: the TOML parser mishandles some other characters)");
    }
    if (ch == '\n') ++line, column = 1;
    else ++column;
  }
  try {
    return toml::parse(text, file.string());
  } catch (const toml::parse_error& e) {
    throw InputError(file.string() + ":" + std::to_string(e.source().begin.line) + ":" +
                     std::to_string(e.source().begin.column) + ": " + std::string(e.description()));
  }
}

}  // namespace ptxbench
