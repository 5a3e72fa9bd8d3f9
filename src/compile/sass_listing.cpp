// Parses the candidate's per-kernel SASS listing by offset, and the FLOPs of its tensor instructions.
#include "compile/sass_listing.h"

#include <cctype>
#include <regex>
#include <sstream>

namespace ptxbench {

SassListing parse_sass_functions(const std::string& out) {
  SassListing listing;
  std::map<uint32_t, SassInstruction>* current = nullptr;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const size_t f = line.find("Function : ");
    if (f != std::string::npos) {
      std::string name = line.substr(f + 11);
      while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
      current = &listing[name];
      continue;
    }
    if (!current) continue;
    const size_t open = line.find("/*");
    if (open == std::string::npos || line.find_first_not_of(" \t") != open) continue;
    const size_t close = line.find("*/", open + 2);
    if (close == std::string::npos) continue;
    const std::string address = line.substr(open + 2, close - open - 2);
    if (address.empty() || address.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) continue;
    std::string rest = line.substr(close + 2);
    const size_t semi = rest.find(';');
    if (semi == std::string::npos) continue;
    rest = rest.substr(0, semi);
    const size_t start = rest.find_first_not_of(" \t{");
    if (start == std::string::npos) continue;
    rest = rest.substr(start);
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.pop_back();
    std::istringstream tokens(rest);
    std::string token;
    tokens >> token;
    if (token.starts_with("@")) tokens >> token;
    std::string opcode = token.substr(0, token.find('.'));
    if (opcode.empty() || !std::isupper(static_cast<unsigned char>(opcode[0]))) continue;
    (*current)[static_cast<uint32_t>(std::stoul(address, nullptr, 16))] = {opcode, rest};
  }
  return listing;
}

bool is_warpgroup_mma(const SassInstruction& i) {
  return i.opcode.size() > 4 && i.opcode.ends_with("GMMA");  // HGMMA, QGMMA (fp8), IGMMA, BGMMA
}

double tensor_flops_per_warp_execution(const SassInstruction& i) {
  static const std::regex mnk(R"(\.(\d+)x(\d+)x(\d+))");
  static const std::regex m_mnk_plain(R"(\d+x\d+x\d+)");
  std::smatch m;
  std::string text = i.text.substr(i.text.find_first_not_of("@!P0123456789T "));  // drop a predicate guard
  if (is_warpgroup_mma(i) && std::regex_search(text, m, mnk)) {
    const double M = std::stod(m[1]), N = std::stod(m[2]), K = std::stod(m[3]);
    return 2 * M * N * K / 4;  // counted once by each of the warpgroup's 4 warps
  }
  // The older MMAs (HMMA, its sparse form HMMA.SP, IMMA, DMMA, BMMA): the shape is the first
  // modifier made of digits, with x (DMMA.8x8x4) or without separators (HMMA.16816 is m16 n8 k16,
  // IMMA.8816 m8 n8 k16, BMMA.168256 m16 n8 k256). A sparse form counts its dense shape: an upper
  // bound. A shape this code cannot read counts 8192, the most of any older MMA on a float problem.
  if (i.opcode.size() == 4 && i.opcode.ends_with("MMA") && text.starts_with(i.opcode + ".")) {
    std::istringstream mods(text.substr(0, text.find(' ')));
    for (std::string mod; std::getline(mods, mod, '.');) {
      if (mod.empty() || !std::isdigit(static_cast<unsigned char>(mod[0]))) continue;
      if (std::regex_match(mod, m_mnk_plain)) {
        std::smatch x;
        const std::string s = "." + mod;
        if (std::regex_search(s, x, mnk)) return 2 * std::stod(x[1]) * std::stod(x[2]) * std::stod(x[3]);
      }
      if (mod.find_first_not_of("0123456789") == std::string::npos && mod.size() >= 3) {
        if (mod.starts_with("16"))
          return 2.0 * 16 * (mod[2] - '0') * std::stod(mod.substr(3).empty() ? "0" : mod.substr(3));
        if (mod[0] == '8') return 2.0 * 8 * (mod[1] - '0') * std::stod(mod.substr(2));
      }
      break;
    }
    return 8192;
  }
  return 0;
}

}  // namespace ptxbench
