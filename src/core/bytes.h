// Bytes, not text, at the boundaries: a candidate's source, its diagnostics and its output may hold
// any bytes. JSON strings must be UTF-8, so a record keeps every string that is not as its
// readable form (each invalid byte as U+FFFD) plus the exact bytes in base64 under "non_utf8",
// keyed by the string's JSON pointer; reading the record back restores them.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include "core/json.h"

namespace ptxbench {

// A file's exact bytes; an InputError naming `what` and the file, and why, when it is not a
// regular file or cannot be read (never an empty string in its place).
std::string read_file_bytes(const std::filesystem::path& path, const std::string& what);

bool is_valid_utf8(std::string_view s);
std::string to_valid_utf8(std::string_view s);  // each byte of an invalid sequence -> U+FFFD

std::string base64_encode(std::string_view bytes);
std::string base64_decode(std::string_view text);  // throws InputError on a malformed text

// Makes every string in `j` (object keys too) valid UTF-8 and returns {"/json/pointer": base64}
// for the strings it changed (an object, empty when all were valid).
json make_utf8_safe(json& j);
// Puts the exact bytes back (the inverse of make_utf8_safe). Throws InputError on a bad entry.
void restore_bytes(json& j, const json& non_utf8);

}  // namespace ptxbench
