#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "build/static_checks.h"
#include "core/error.h"

namespace ptxbench {
namespace {

struct Library {
  std::string_view symbol_prefix;  // host API functions
  std::string_view soname_prefix;  // the shared library
  std::string_view why;
};

// cublasLt precedes cublas so the more precise name is reported.
constexpr std::array<Library, 10> kLibraries{{
    {"cublasLt", "libcublasLt.so", "library kernels (cuBLASLt) are forbidden"},
    {"cublas", "libcublas.so", "library kernels (cuBLAS) are forbidden"},
    {"cudnn", "libcudnn", "library kernels (cuDNN) are forbidden"},
    {"cufft", "libcufft", "library kernels (cuFFT) are forbidden"},
    {"cusparse", "libcusparse", "library kernels (cuSPARSE) are forbidden"},
    {"cusolver", "libcusolver", "library kernels (cuSOLVER) are forbidden"},
    {"curand", "libcurand", "the cuRAND host API is forbidden (device-side curand_kernel.h is fine)"},
    {"nccl", "libnccl", "NCCL is forbidden"},
    {"nvrtc", "libnvrtc", "compiling code at run time (NVRTC) is forbidden"},
    {"nvJitLink", "libnvJitLink", "linking code at run time (nvJitLink) is forbidden"},
}};

struct Prefix {
  std::string_view prefix;
  std::string_view why;
};

constexpr std::array<Prefix, 4> kForbiddenPrefixes{{
    {"cuModuleLoad", "loading code at run time is forbidden"},
    {"cuLibraryLoad", "loading code at run time is forbidden"},
    {"cudaLibraryLoad", "loading code at run time is forbidden"},
    {"cuLinkCreate", "linking code at run time is forbidden"},
}};

struct Names {
  std::vector<std::string_view> names;
  std::string_view why;
};

// Exact names, compared after dropping a driver API version suffix (cuCtxCreate_v4 -> cuCtxCreate).
const std::vector<Names>& forbidden_names() {
  static const std::vector<Names> table{
      {{"dlopen", "dlsym", "dlvsym", "dlmopen", "__libc_dlopen_mode"}, "dynamic loading is forbidden"},
      {{"cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority", "cuStreamCreate",
        "cuStreamCreateWithPriority"},
       "creating streams is forbidden (enqueue all work on the given stream)"},
      {{"cuCtxCreate"}, "creating a context is forbidden"},
      {{"cudaDeviceReset"}, "resetting the device is forbidden"},
      {{"cudaDeviceSetLimit", "cuCtxSetLimit"}, "changing device limits is forbidden"},
      {{"cudaCtxResetPersistingL2Cache", "cuCtxResetPersistingL2Cache", "cudaStreamSetAttribute",
        "cuStreamSetAttribute"},
       "changing L2 persistence or stream attributes is forbidden"},
      {{"pthread_create", "thrd_create"}, "creating threads is forbidden"},
      {{"fork", "vfork", "clone", "clone3", "execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle",
        "system", "popen", "posix_spawn", "posix_spawnp"},
       "starting processes is forbidden"},
      {{"syscall"}, "raw system calls are forbidden"},
      {{"write", "writev", "pwrite", "pwrite64", "pwritev", "send", "sendto", "sendmsg"},
       "raw output is forbidden"},
      // __open_2 and friends are what _FORTIFY_SOURCE turns open() into.
      {{"open", "open64", "openat", "openat64", "__open_2", "__open64_2", "__openat_2", "__openat64_2", "creat",
        "fopen", "fopen64", "freopen", "fdopen"},
       "opening files is forbidden"},
      {{"mmap", "mmap64", "mprotect"}, "mapping memory or changing its protection is forbidden"},
      {{"ptrace", "signal", "sigaction", "kill", "raise", "tgkill", "pthread_kill", "killpg"}, "signals and tracing are forbidden"},
      {{"dup", "dup2", "dup3"}, "duplicating file descriptors is forbidden"},
  };
  return table;
}

// "cuCtxCreate_v4" -> "cuCtxCreate"; anything from a stray '@' (symbol version) is dropped first.
std::string base_name(const std::string& symbol) {
  std::string name = symbol.substr(0, symbol.find('@'));
  const size_t v = name.rfind("_v");
  if (v != std::string::npos && v + 2 < name.size() && v > 0) {
    bool digits = true;
    for (size_t i = v + 2; i < name.size(); ++i) digits = digits && std::isdigit(static_cast<unsigned char>(name[i]));
    if (digits) name.resize(v);
  }
  return name;
}

std::string symbol_reason(const std::string& symbol) {
  const std::string name = base_name(symbol);
  auto reason = [&](std::string_view why) { return "calls " + symbol + ": " + std::string(why); };
  for (const auto& lib : kLibraries)
    if (name.starts_with(lib.symbol_prefix)) return reason(lib.why);
  for (const auto& p : kForbiddenPrefixes)
    if (name.starts_with(p.prefix)) return reason(p.why);
  for (const auto& group : forbidden_names())
    for (auto forbidden : group.names)
      if (name == forbidden) return reason(group.why);
  // std::thread (and std::jthread, std::async) start threads inside libstdc++, not through pthread_create.
  if (name.find("_ZNSt6thread") != std::string::npos) return "uses std::thread: creating threads is forbidden";
  return "";
}

bool soname_is(const std::string& lib, std::string_view base) {
  return lib == base || (lib.starts_with(base) && lib[base.size()] == '.');
}

std::string needed_reason(const std::string& lib) {
  for (std::string_view allowed : {"libcudart.so", "libcuda.so", "libc.so", "libm.so", "libstdc++.so", "libgcc_s.so",
                                   "libpthread.so", "librt.so", "libdl.so"})
    if (soname_is(lib, allowed)) return "";
  if (lib.starts_with("ld-linux")) return "";
  for (const auto& l : kLibraries)
    if (lib.starts_with(l.soname_prefix)) return "links " + lib + ": " + std::string(l.why);
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
      } else if (bind == STB_GLOBAL || bind == STB_WEAK) {
        defined.push_back({name, GELF_ST_TYPE(sym.st_info) == STT_FUNC});
      }
    }
  });

  for (const auto& lib : report.needed)
    if (auto why = needed_reason(lib); !why.empty()) report.forbidden.push_back(why);
  for (const auto& symbol : report.undefined) {
    const std::string why = symbol_reason(symbol);
    if (!why.empty() && std::find(report.forbidden.begin(), report.forbidden.end(), why) == report.forbidden.end())
      report.forbidden.push_back(why);
  }
  for (const auto& s : defined) report.entry_exported = report.entry_exported || (s.name == entry_symbol && s.function);
  if (!report.entry_exported) report.forbidden.push_back(entry_reason(entry_symbol, defined));
  return report;
}

}  // namespace ptxbench
