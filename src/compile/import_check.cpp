// Reads the candidate's shared object with libelf and refuses any import the import rules forbid.
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <set>
#include <string_view>

#include "compile/import_rules.h"
#include "compile/static_checks.h"
#include "core/error.h"

namespace ptxbench {
namespace {

constexpr std::array<std::string_view, 10> kLibrarySonames{"libcublasLt.so", "libcublas.so", "libcudnn",  "libcufft",
                                                           "libcusparse",    "libcusolver",  "libcurand", "libnccl",
                                                           "libnvrtc",       "libnvJitLink"};

bool soname_is(const std::string& lib, std::string_view base) {
  return lib == base || (lib.starts_with(base) && lib[base.size()] == '.');
}

std::string needed_reason(const std::string& lib) {
  for (std::string_view allowed : {"libcudart.so", "libcuda.so", "libc.so", "libm.so", "libstdc++.so", "libgcc_s.so",
                                   "libpthread.so", "librt.so", "libdl.so"})
    if (soname_is(lib, allowed)) return "";
  if (lib.starts_with("ld-linux")) return "";
  for (auto l : kLibrarySonames)
    if (lib.starts_with(l)) return "links " + lib + ": library kernels and runtimes other than CUDA's are forbidden";
  return "links " + lib + ": only the CUDA runtime and driver and the C/C++ runtime libraries may be linked";
}

class ElfReader {
 public:
  explicit ElfReader(const std::filesystem::path& path) : path_(path) {
    if (elf_version(EV_CURRENT) == EV_NONE) fail(std::string("libelf: ") + elf_errmsg(-1));
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail("cannot open " + path.string() + ": " + std::strerror(errno));
    elf_ = elf_begin(fd_, ELF_C_READ, nullptr);
    if (!elf_ || elf_kind(elf_) != ELF_K_ELF) {
      const std::string why = elf_ ? "not an ELF file" : elf_errmsg(-1);
      cleanup();
      fail(path.string() + " is not a readable ELF shared object: " + why);
    }
  }
  ~ElfReader() { cleanup(); }
  ElfReader(const ElfReader&) = delete;
  ElfReader& operator=(const ElfReader&) = delete;

  // Calls visit(section_header, data) for each section of the given type.
  template <class Visit>
  void for_each_section(Elf64_Word type, Visit visit) {
    for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
      GElf_Shdr shdr;
      if (!gelf_getshdr(scn, &shdr)) fail("libelf: " + path_.string() + ": " + elf_errmsg(-1));
      if (shdr.sh_type != type) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (data) visit(shdr, data);
    }
  }
  std::string string_at(size_t section, size_t offset) {
    const char* s = elf_strptr(elf_, section, offset);
    return s ? s : "";
  }

 private:
  void cleanup() {
    if (elf_) elf_end(elf_);
    if (fd_ >= 0) close(fd_);
    elf_ = nullptr;
    fd_ = -1;
  }
  std::filesystem::path path_;
  int fd_ = -1;
  Elf* elf_ = nullptr;
};

struct DefinedSymbol {
  std::string name;
  bool function = false;
};

std::string entry_reason(const std::string& entry, const std::vector<DefinedSymbol>& defined) {
  for (const auto& s : defined)
    if (s.name == entry) return "bad ABI: `" + entry + "` is exported by the shared object but is not a function";
  for (const auto& s : defined)
    if (s.name.starts_with("_Z") && s.name.find(entry) != std::string::npos)
      return "bad ABI: `" + entry + "` is exported only under its C++ name " + s.name + " (declare it extern \"C\")";
  return "bad ABI: `" + entry + "` is not exported by the shared object (is it declared extern \"C\" and defined?)";
}

}  // namespace

ImportReport check_imports(const std::filesystem::path& shared_object, const std::string& entry_symbol) {
  ImportReport report;
  ElfReader elf(shared_object);
  elf.for_each_section(SHT_DYNAMIC, [&](const GElf_Shdr& shdr, Elf_Data* data) {
    for (size_t i = 0; shdr.sh_entsize && i < shdr.sh_size / shdr.sh_entsize; ++i) {
      GElf_Dyn dyn;
      if (gelf_getdyn(data, static_cast<int>(i), &dyn) && dyn.d_tag == DT_NEEDED)
        report.needed.push_back(elf.string_at(shdr.sh_link, dyn.d_un.d_val));
    }
  });
  std::vector<DefinedSymbol> defined;
  std::set<std::string> weak;
  elf.for_each_section(SHT_DYNSYM, [&](const GElf_Shdr& shdr, Elf_Data* data) {
    for (size_t i = 1; shdr.sh_entsize && i < shdr.sh_size / shdr.sh_entsize; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
      std::string name = elf.string_at(shdr.sh_link, sym.st_name);
      name = name.substr(0, name.find('@'));
      if (name.empty()) continue;
      const int bind = GELF_ST_BIND(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF) {
        report.undefined.push_back(name);
        if (bind == STB_WEAK) weak.insert(name);
      } else if (bind == STB_GLOBAL || bind == STB_WEAK) {
        defined.push_back({name, GELF_ST_TYPE(sym.st_info) == STT_FUNC});
      }
    }
  });

  for (const auto& lib : report.needed)
    if (auto why = needed_reason(lib); !why.empty()) report.forbidden.push_back(why);
  for (const auto& symbol : report.undefined) {
    const std::string why = import_reason(symbol, weak.count(symbol) > 0);
    if (!why.empty() && std::find(report.forbidden.begin(), report.forbidden.end(), why) == report.forbidden.end())
      report.forbidden.push_back(why);
  }
  for (const auto& s : defined) report.entry_exported = report.entry_exported || (s.name == entry_symbol && s.function);
  if (!report.entry_exported) report.forbidden.push_back(entry_reason(entry_symbol, defined));
  return report;
}

}  // namespace ptxbench
