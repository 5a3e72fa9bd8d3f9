// Reads the cubins of a candidate's .nv_fatbin section and the kernels each defines.
#include "runner/integrity/cubin_image.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace ptxbench {
namespace {

template <typename T>
T read_at(std::string_view data, size_t offset, const char* what) {
  if (offset > data.size() || data.size() - offset < sizeof(T)) fail(std::string("truncated ELF: ") + what);
  T v;
  std::memcpy(&v, data.data() + offset, sizeof(T));
  return v;
}

struct Elf64View {
  std::string_view data;
  Elf64_Ehdr header{};

  explicit Elf64View(std::string_view d) : data(d) {
    if (d.size() < sizeof(Elf64_Ehdr) || std::memcmp(d.data(), ELFMAG, SELFMAG) != 0) fail("not an ELF image");
    header = read_at<Elf64_Ehdr>(d, 0, "header");
    if (header.e_ident[EI_CLASS] != ELFCLASS64) fail("not a 64-bit ELF image");
    if (header.e_shentsize != sizeof(Elf64_Shdr)) fail("unexpected ELF section header size");
  }
  Elf64_Shdr section(size_t i) const {
    if (i >= header.e_shnum) fail("ELF section index out of range");
    return read_at<Elf64_Shdr>(data, header.e_shoff + i * sizeof(Elf64_Shdr), "section header");
  }
  std::string_view bytes(const Elf64_Shdr& s) const {
    if (s.sh_type == SHT_NOBITS) return {};
    if (s.sh_offset > data.size() || data.size() - s.sh_offset < s.sh_size) fail("ELF section runs past the file");
    return data.substr(s.sh_offset, s.sh_size);
  }
  std::string_view string_at(const Elf64_Shdr& strtab, size_t offset) const {
    std::string_view t = bytes(strtab);
    if (offset >= t.size()) return {};
    const size_t end = t.find('\0', offset);
    return t.substr(offset, end == std::string_view::npos ? std::string_view::npos : end - offset);
  }
  std::string_view section_name(const Elf64_Shdr& s) const { return string_at(section(header.e_shstrndx), s.sh_name); }
};

// Fatbin container: a 16-byte header (magic, version, header size, payload size) followed by
// entries, each with its own header (kind, version, header size, payload size, flags, ...).
constexpr uint32_t kFatbinMagic = 0xBA55ED50;
constexpr uint16_t kEntryElf = 2;
constexpr uint64_t kEntryCompressed = 0x2000;

#pragma pack(push, 1)
struct FatbinHeader {
  uint32_t magic;
  uint16_t version;
  uint16_t header_size;
  uint64_t payload_size;
};
struct FatbinEntryHeader {
  uint16_t kind;
  uint16_t version;
  uint32_t header_size;
  uint64_t payload_size;
  uint32_t unknown0;
  uint32_t unknown1;
  uint64_t flags;
};
#pragma pack(pop)

}  // namespace

std::vector<std::string> cubin_functions(std::string_view elf) {
  Elf64View v(elf);
  std::vector<std::string> out;
  for (size_t i = 0; i < v.header.e_shnum; ++i) {
    const Elf64_Shdr symtab = v.section(i);
    if (symtab.sh_type != SHT_SYMTAB || symtab.sh_entsize != sizeof(Elf64_Sym)) continue;
    const Elf64_Shdr strtab = v.section(symtab.sh_link);
    const std::string_view syms = v.bytes(symtab);
    for (size_t k = 0; k + sizeof(Elf64_Sym) <= syms.size(); k += sizeof(Elf64_Sym)) {
      const auto sym = read_at<Elf64_Sym>(syms, k, "symbol");
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= v.header.e_shnum)
        continue;
      // Kernels live in ".text.<name>" (local when in an anonymous namespace, marked as entries in
      // st_other); non-inlined device functions do too, which does no harm: they are never launched.
      if (!v.section_name(v.section(sym.st_shndx)).starts_with(".text.")) continue;
      out.emplace_back(v.string_at(strtab, sym.st_name));
    }
  }
  return out;
}

std::vector<CubinImage> parse_fatbin(std::string_view fatbin) {
  std::vector<CubinImage> out;
  size_t at = 0;
  while (at + sizeof(FatbinHeader) <= fatbin.size()) {
    const auto h = read_at<FatbinHeader>(fatbin, at, "fatbin header");
    if (h.magic != kFatbinMagic) {
      at += 8;  // fatbins are 8-byte aligned inside the section; skip padding
      continue;
    }
    if (h.header_size < sizeof(FatbinHeader) || h.payload_size > fatbin.size() - at - h.header_size)
      fail("malformed fatbin header at offset " + std::to_string(at));
    size_t e = at + h.header_size;
    const size_t end = e + h.payload_size;
    while (e + sizeof(FatbinEntryHeader) <= end) {
      const auto eh = read_at<FatbinEntryHeader>(fatbin, e, "fatbin entry");
      if (eh.header_size < sizeof(FatbinEntryHeader) || eh.payload_size > end - e - eh.header_size)
        fail("malformed fatbin entry at offset " + std::to_string(e));
      if (eh.kind == kEntryElf) {
        if (eh.flags & kEntryCompressed)
          fail("the fatbin holds a compressed cubin, which cannot be compared with what the driver loads");
        CubinImage c;
        c.bytes = std::string(fatbin.substr(e + eh.header_size, eh.payload_size));
        c.functions = cubin_functions(c.bytes);
        out.push_back(std::move(c));
      }
      e += eh.header_size + eh.payload_size;
    }
    at = end;
  }
  return out;
}

bool CubinImage::matches(std::string_view loaded) const {
  if (loaded.size() > bytes.size() || std::memcmp(loaded.data(), bytes.data(), loaded.size()) != 0) return false;
  // The fatbin payload may be padded after the image with zeros.
  for (size_t i = loaded.size(); i < bytes.size(); ++i)
    if (bytes[i] != 0) return false;
  return true;
}

std::vector<CubinImage> read_fatbin_cubins(const std::filesystem::path& shared_object) {
  std::ifstream in(shared_object, std::ios::binary);
  if (!in) fail("cannot read " + shared_object.string());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string file = ss.str();
  try {
    Elf64View v(file);
    for (size_t i = 0; i < v.header.e_shnum; ++i) {
      const Elf64_Shdr s = v.section(i);
      if (v.section_name(s) == ".nv_fatbin") return parse_fatbin(v.bytes(s));
    }
    return {};
  } catch (const Error& e) {
    fail(shared_object.string() + ": " + e.what());
  }
}

std::vector<CubinImage> read_cubin_files(const std::vector<std::filesystem::path>& cubins) {
  std::vector<CubinImage> out;
  for (const auto& f : cubins) {
    std::ifstream in(f, std::ios::binary);
    if (!in) fail("cannot read " + f.string());
    std::stringstream ss;
    ss << in.rdbuf();
    CubinImage c;
    c.bytes = ss.str();
    try {
      c.functions = cubin_functions(c.bytes);
    } catch (const Error& e) {
      fail(f.string() + ": " + e.what());
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace ptxbench
