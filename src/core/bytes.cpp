// Bytes at the boundaries: reading files, UTF-8 checks, readable strings, base64 of the exact bytes.
#include "core/bytes.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/error.h"

namespace ptxbench {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Length of the valid UTF-8 sequence at s[i], or 0 when it is not one (RFC 3629: no overlongs,
// no surrogates, nothing above U+10FFFF).
size_t sequence_length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c == 0xE0) n = 3, lo = 0xA0;
  else if (c >= 0xE1 && c <= 0xEC) n = 3;
  else if (c == 0xED) n = 3, hi = 0x9F;
  else if (c >= 0xEE && c <= 0xEF) n = 3;
  else if (c == 0xF0) n = 4, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3) n = 4;
  else if (c == 0xF4) n = 4, hi = 0x8F;
  else return 0;
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

std::string escape_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

void walk(json& j, const std::string& pointer, json& changed) {
  if (j.is_string()) {
    std::string& s = j.get_ref<std::string&>();
    if (!is_valid_utf8(s)) {
      changed[pointer.empty() ? "/" : pointer] = base64_encode(s);
      s = to_valid_utf8(s);
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) walk(j[i], pointer + "/" + std::to_string(i), changed);
  } else if (j.is_object()) {
    std::vector<std::string> bad_keys;
    for (auto it = j.begin(); it != j.end(); ++it)
      if (!is_valid_utf8(it.key())) bad_keys.push_back(it.key());
    for (const auto& k : bad_keys) {  // keys are display only: replaced, never needed exactly
      json v = std::move(j[k]);
      j.erase(k);
      j[to_valid_utf8(k)] = std::move(v);
    }
    for (auto it = j.begin(); it != j.end(); ++it)
      walk(it.value(), pointer + "/" + escape_pointer_token(it.key()), changed);
  }
}

}  // namespace

std::string read_file_bytes(const std::filesystem::path& p, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec))
    throw InputError(what + " '" + p.string() + "' does not exist or is not a file");
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(what + " '" + p.string() + "' cannot be opened: " + std::strerror(errno));
  std::string bytes;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw InputError(what + " '" + p.string() + "' cannot be read: " + std::strerror(err));
    }
    if (n == 0) break;
    bytes.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return bytes;
}

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = sequence_length(s, i);
    if (!n) return false;
    i += n;
  }
  return true;
}

std::string to_valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = sequence_length(s, i);
    if (n) out.append(s.substr(i, n)), i += n;
    else out += "\xEF\xBF\xBD", ++i;
  }
  return out;
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = unsigned(static_cast<unsigned char>(bytes[i])) << 16 |
                       unsigned(static_cast<unsigned char>(bytes[i + 1])) << 8 |
                       unsigned(static_cast<unsigned char>(bytes[i + 2]));
    out += kAlphabet[v >> 18], out += kAlphabet[(v >> 12) & 63], out += kAlphabet[(v >> 6) & 63],
        out += kAlphabet[v & 63];
  }
  if (i < bytes.size()) {
    unsigned v = unsigned(static_cast<unsigned char>(bytes[i])) << 16;
    if (i + 1 < bytes.size()) v |= unsigned(static_cast<unsigned char>(bytes[i + 1])) << 8;
    out += kAlphabet[v >> 18], out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string base64_decode(std::string_view text) {
  std::array<int, 256> value;
  value.fill(-1);
  for (int k = 0; k < 64; ++k) value[static_cast<unsigned char>(kAlphabet[k])] = k;
  if (text.size() % 4) throw InputError("base64: length " + std::to_string(text.size()) + " is not a multiple of 4");
  std::string out;
  for (size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + k];
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        v[k] = 0, ++pad;
        continue;
      }
      if (pad || (v[k] = value[static_cast<unsigned char>(c)]) < 0)
        throw InputError("base64: bad character at " + std::to_string(i + k));
    }
    const unsigned n = unsigned(v[0]) << 18 | unsigned(v[1]) << 12 | unsigned(v[2]) << 6 | unsigned(v[3]);
    out += static_cast<char>(n >> 16);
    if (pad < 2) out += static_cast<char>((n >> 8) & 255);
    if (pad < 1) out += static_cast<char>(n & 255);
  }
  return out;
}

json make_utf8_safe(json& j) {
  json changed = json::object();
  walk(j, "", changed);
  return changed;
}

void restore_bytes(json& j, const json& non_utf8) {
  if (!non_utf8.is_object()) throw InputError("non_utf8 must be an object of JSON pointers to base64 strings");
  for (const auto& [pointer, b64] : non_utf8.items()) {
    if (!b64.is_string()) throw InputError("non_utf8['" + pointer + "'] is not a base64 string");
    try {
      json::json_pointer p(pointer == "/" ? "" : pointer);
      json& target = j.at(p);
      if (!target.is_string()) throw InputError("non_utf8['" + pointer + "'] does not point at a string");
      target = base64_decode(b64.get<std::string>());
    } catch (const json::exception& e) {
      throw InputError("non_utf8['" + pointer + "']: " + e.what());
    }
  }
}

}  // namespace ptxbench
