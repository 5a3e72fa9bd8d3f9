// The allowlist of what a candidate's shared object may import: CUDA runtime, driver allowlist, some libc.
#include "compile/import_rules.h"

#include "core/driver_api_allowlist.h"

#include <cxxabi.h>

#include <array>
#include <cctype>
#include <cstdlib>
#include <set>
#include <string_view>
#include <vector>

namespace ptxbench {
namespace {

struct Library {
  std::string_view symbol_prefix;
  std::string_view why;
};

// cublasLt precedes cublas so the more precise name is reported.
constexpr std::array<Library, 10> kLibraries{{
    {"cublasLt", "library kernels (cuBLASLt) are forbidden"},
    {"cublas", "library kernels (cuBLAS) are forbidden"},
    {"cudnn", "library kernels (cuDNN) are forbidden"},
    {"cufft", "library kernels (cuFFT) are forbidden"},
    {"cusparse", "library kernels (cuSPARSE) are forbidden"},
    {"cusolver", "library kernels (cuSOLVER) are forbidden"},
    {"curand", "the cuRAND host API is forbidden (device-side curand_kernel.h is fine)"},
    {"nccl", "NCCL is forbidden"},
    {"nvrtc", "compiling code at run time (NVRTC) is forbidden"},
    {"nvJitLink", "linking code at run time (nvJitLink) is forbidden"},
}};

struct Names {
  std::vector<std::string_view> names;
  std::string_view why;
};

// Calls of the allowed APIs that are forbidden all the same, with the reason a model can act on.
const std::vector<Names>& forbidden_cuda() {
  static const std::vector<Names> table{
      {{"cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority", "cuStreamCreate",
        "cuStreamCreateWithPriority"},
       "creating streams is forbidden (enqueue all work on the given stream)"},
      {{"cudaStreamDestroy", "cuStreamDestroy"}, "destroying streams is forbidden (the given stream is the harness's)"},
      {{"cudaMemAdvise", "cuMemAdvise"}, "advising managed memory is forbidden (the advice outlives the call)"},
      {{"cuCtxCreate"}, "creating a context is forbidden"},
      {{"cudaDeviceReset"}, "resetting the device is forbidden"},
      {{"cudaDeviceSetLimit", "cuCtxSetLimit"}, "changing device limits is forbidden"},
      {{"cudaCtxResetPersistingL2Cache", "cuCtxResetPersistingL2Cache", "cudaStreamSetAttribute",
        "cuStreamSetAttribute"},
       "changing L2 persistence or stream attributes is forbidden"},
  };
  return table;
}

constexpr std::array<std::string_view, 4> kLoadingPrefixes{"cuModuleLoad", "cuLibraryLoad", "cudaLibraryLoad",
                                                           "cuLinkCreate"};

// Plain reasons for the commonest forbidden C runtime calls (the rest get the general one).
const std::vector<Names>& forbidden_libc() {
  static const std::vector<Names> table{
      {{"dlopen", "dlsym", "dlvsym", "dlmopen", "__libc_dlopen_mode", "dladdr", "dlinfo"},
       "dynamic loading is forbidden"},
      {{"dl_iterate_phdr", "_r_debug", "_dl_find_object"}, "walking the loaded objects is forbidden"},
      {{"pthread_create", "thrd_create"}, "creating threads is forbidden"},
      {{"fork", "vfork", "clone", "clone3", "execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle",
        "system", "popen", "posix_spawn", "posix_spawnp", "setsid", "daemon"},
       "starting processes is forbidden"},
      // exit() itself stays allowed: nvcc's host stubs of __device__ functions call it.
      {{"_exit", "_Exit", "quick_exit"}, "ending the process is forbidden (return an error code instead)"},
      {{"syscall"}, "raw system calls are forbidden"},
      {{"socket", "connect", "bind", "listen", "accept", "accept4", "socketpair", "getaddrinfo", "gethostbyname"},
       "network access is forbidden"},
      {{"getenv", "secure_getenv", "environ", "__environ"}, "reading the environment is forbidden"},
      {{"write", "writev", "pwrite", "pwrite64", "pwritev", "send", "sendto", "sendmsg"}, "raw output is forbidden"},
      {{"open", "open64", "openat", "openat64", "__open_2", "__open64_2", "__openat_2", "__openat64_2", "creat",
        "fopen", "fopen64", "freopen", "fdopen"},
       "opening files is forbidden"},
      {{"remove", "unlink", "unlinkat", "rename", "renameat", "mkdir", "rmdir", "truncate", "chmod"},
       "changing files is forbidden"},
      {{"mmap", "mmap64", "mprotect"}, "mapping memory or changing its protection is forbidden"},
      {{"ptrace", "signal", "sigaction", "kill", "raise", "tgkill", "pthread_kill", "killpg"},
       "signals and tracing are forbidden"},
      {{"dup", "dup2", "dup3"}, "duplicating file descriptors is forbidden"},
  };
  return table;
}

// The C runtime functions kernels' host code needs.
const std::set<std::string, std::less<>>& allowed_libc() {
  static const std::set<std::string, std::less<>> names = [] {
    std::set<std::string, std::less<>> s{
        // memory and strings
        "malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign", "memalign", "memcpy", "memmove",
        "memset", "memcmp", "memchr", "__memcpy_chk", "__memmove_chk", "__memset_chk", "strlen", "strnlen", "strcmp",
        "strncmp", "strcpy", "strncpy", "strcat", "strncat", "strchr", "strrchr", "strstr", "__strcpy_chk",
        "__strncpy_chk", "__strcat_chk", "atoi", "atol", "atof", "strtol", "strtoul", "strtoll", "strtoull", "strtod",
        "strtof", "abs", "labs", "llabs", "qsort", "bsearch", "rand", "srand", "__errno_location",
        // output to the candidate's own stdout/stderr (files cannot be opened)
        "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "vsprintf", "vsnprintf", "puts", "putchar",
        "fputs", "fputc", "putc", "fwrite", "fflush", "__printf_chk", "__fprintf_chk", "__sprintf_chk",
        "__snprintf_chk", "__vprintf_chk", "__vfprintf_chk", "__vsnprintf_chk", "__vsprintf_chk", "stdout", "stderr",
        // failure paths, the C++ runtime's support and thread-safe statics
        "abort", "exit", "__assert_fail", "__stack_chk_fail", "__gxx_personality_v0", "_Unwind_Resume",
        "__tls_get_addr", "__cxa_thread_atexit_impl", "__libc_single_threaded", "pthread_mutex_lock",
        "pthread_mutex_unlock", "pthread_mutex_trylock", "pthread_once", "__once_proxy", "clock_gettime", "clock",
        "time", "gettimeofday", "__isoc99_sscanf", "sscanf"};
    // libm, with its float and long double variants
    for (const char* m :
         {"sqrt",    "cbrt",    "exp",      "exp2",         "exp10",    "expm1",     "log",    "log2",   "log10",
          "log1p",   "pow",     "sin",      "cos",          "tan",      "sincos",    "asin",   "acos",   "atan",
          "atan2",   "sinh",    "cosh",     "tanh",         "asinh",    "acosh",     "atanh",  "erf",    "erfc",
          "tgamma",  "lgamma",  "fabs",     "floor",        "ceil",     "trunc",     "round",  "lround", "llround",
          "rint",    "lrint",   "llrint",   "nearbyint",    "fmod",     "remainder", "fmin",   "fmax",   "fma",
          "hypot",   "ldexp",   "frexp",    "modf",         "copysign", "nan",       "scalbn", "ilogb",  "logb",
          "__isnan", "__isinf", "__finite", "__fpclassify", "__signbit"})
      for (const char* suffix : {"", "f", "l"}) s.insert(std::string(m) + suffix);
    return s;
  }();
  return names;
}

// Weak references the C runtime's start files leave in every shared object.
constexpr std::array<std::string_view, 5> kWeakRuntime{"__gmon_start__", "_ITM_deregisterTMCloneTable",
                                                       "_ITM_registerTMCloneTable", "__cxa_finalize",
                                                       "_Jv_RegisterClasses"};

// libstdc++, by demangled name: what containers, strings, string streams, cout/cerr and
// exceptions use. Forbidden words are checked first.
constexpr std::array<std::string_view, 11> kForbiddenCxx{"basic_filebuf",
                                                         "basic_fstream",
                                                         "basic_ofstream",
                                                         "basic_ifstream",
                                                         "__basic_file",
                                                         "std::filesystem",
                                                         "std::thread",
                                                         "std::jthread",
                                                         "std::random_device",
                                                         "std::__future_base",
                                                         "std::experimental::filesystem"};
constexpr std::array<std::string_view, 37> kAllowedCxx{"operator new",
                                                       "operator delete",
                                                       "std::__throw_",
                                                       "std::_Rb_tree",
                                                       "std::__detail::_Prime_rehash_policy",
                                                       "std::_Hash_bytes",
                                                       "std::__cxx11::basic_string",
                                                       "std::basic_string",
                                                       "std::__cxx11::basic_ostringstream",
                                                       "std::__cxx11::basic_stringstream",
                                                       "std::__cxx11::basic_istringstream",
                                                       "std::__cxx11::basic_stringbuf",
                                                       "std::basic_ostream",
                                                       "std::ostream",
                                                       "std::basic_ios",
                                                       "std::ios_base",
                                                       "std::cout",
                                                       "std::cerr",
                                                       "std::clog",
                                                       "std::endl",
                                                       "std::flush",
                                                       "std::__ostream_insert",
                                                       "std::basic_streambuf",
                                                       "std::locale",
                                                       "std::ctype",
                                                       "std::exception",
                                                       "std::bad_alloc",
                                                       "std::bad_array_new_length",
                                                       "std::runtime_error",
                                                       "std::logic_error",
                                                       "std::out_of_range",
                                                       "std::length_error",
                                                       "std::invalid_argument",
                                                       "std::terminate",
                                                       "std::chrono::",
                                                       "std::__detail::_List_node_base",
                                                       "std::__once_call"};
constexpr std::array<std::string_view, 5> kAllowedCxxExtra{"std::__once_callable", "std::_List_node_base",
                                                           "std::__cxx11::to_string", "typeinfo for ", "vtable for "};

std::string demangle(const std::string& name) {
  if (!name.starts_with("_Z")) return name;
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

bool starts_with_any(std::string_view s, auto list) {
  for (auto p : list)
    if (s.starts_with(p)) return true;
  return false;
}

}  // namespace

std::string import_base_name(const std::string& symbol) {
  std::string name = symbol.substr(0, symbol.find('@'));
  const size_t v = name.rfind("_v");
  if (v != std::string::npos && v + 2 < name.size() && v > 0) {
    bool digits = true;
    for (size_t i = v + 2; i < name.size(); ++i) digits = digits && std::isdigit(static_cast<unsigned char>(name[i]));
    if (digits) name.resize(v);
  }
  return name;
}

std::string import_reason(const std::string& symbol, bool weak) {
  const std::string raw = symbol.substr(0, symbol.find('@'));
  if (allowed_libc().count(raw) || raw.starts_with("__cxa_")) return "";  // e.g. __gxx_personality_v0 as it is
  const std::string name = import_base_name(symbol);
  auto reason = [&](std::string_view why) { return "calls " + symbol + ": " + std::string(why); };
  for (const auto& lib : kLibraries)
    if (name.starts_with(lib.symbol_prefix)) return reason(lib.why);
  for (auto p : kLoadingPrefixes)
    if (name.starts_with(p))
      return reason(p.starts_with("cuLink") ? "linking code at run time is forbidden"
                                            : "loading code at run time is forbidden");
  for (const auto& group : forbidden_cuda())
    for (auto f : group.names)
      if (name == f) return reason(group.why);
  for (const auto& group : forbidden_libc())
    for (auto f : group.names)
      if (name == f) return reason(group.why);
  // The CUDA runtime (cuda*, and __cuda* that registers kernels) and driver (cuXxx) APIs.
  if (name.starts_with("cuda") || name.starts_with("__cuda")) return "";
  // The driver API by import obeys the same allowlist as an entry-point lookup at run time
  // (core/driver_api_allowlist.h): without it, any driver call could simply be imported.
  if (is_driver_api_name(name))
    return driver_api_importable(name) ? ""
                                       : reason(
                                             "the driver API is limited to what kernels need (tensor-map encoding, "
                                             "launches, attributes, queries); this call is not on that list");
  if (allowed_libc().count(name) || name.starts_with("__cxa_")) return "";
  if (weak && starts_with_any(name, kWeakRuntime)) return "";
  const std::string readable = demangle(name);
  // One reason per forbidden facility (std::thread brings several symbols).
  for (auto word : kForbiddenCxx)
    if (readable.find(word) != std::string::npos) {
      const std::string what = word.starts_with("std::") ? std::string(word) : "std::" + std::string(word);
      return "uses " + what + ": " +
             (word.find("thread") != std::string_view::npos       ? "creating threads is forbidden"
              : word.find("filesystem") != std::string_view::npos ? "the file system is forbidden"
                                                                  : "file streams and system services are forbidden");
    }
  if (readable != name && (starts_with_any(readable, kAllowedCxx) || starts_with_any(readable, kAllowedCxxExtra)))
    return "";
  return "imports " + (readable == name ? name : readable + " (" + name + ")") +
         ": not on the allowlist (the CUDA runtime and driver API; memory, strings, math and printf to its own output; "
         "the C++ runtime's containers, strings, string streams, cout/cerr and exceptions)";
}

}  // namespace ptxbench
