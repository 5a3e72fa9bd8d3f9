// Shared by the attack candidates (test data): a function of a library already loaded in the
// process, found without dlopen/dlsym by reading the library's dynamic symbol table in memory.
// The loaded objects are enumerated either with dl_iterate_phdr or by walking the dynamic
// linker's own list (_r_debug), which needs no function import at all.
#pragma once
#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstring>

namespace attack {

// The symbol `name` in the object loaded at `base` with dynamic section `dyn`, or null.
inline void* symbol_in(ElfW(Addr) base, const ElfW(Dyn) * dyn, const char* name) {
  const ElfW(Sym)* symtab = nullptr;
  const char* strtab = nullptr;
  const uint32_t* gnu_hash = nullptr;
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    // glibc has already relocated these (absolute addresses); keep base-relative ones working too.
    auto ptr = [&](ElfW(Addr) p) { return p < base ? base + p : p; };
    if (dyn->d_tag == DT_SYMTAB) symtab = reinterpret_cast<const ElfW(Sym)*>(ptr(dyn->d_un.d_ptr));
    if (dyn->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(ptr(dyn->d_un.d_ptr));
    if (dyn->d_tag == DT_GNU_HASH) gnu_hash = reinterpret_cast<const uint32_t*>(ptr(dyn->d_un.d_ptr));
  }
  if (!symtab || !strtab || !gnu_hash) return nullptr;
  // GNU hash: nbuckets, symoffset, bloom size, shift, bloom words (64-bit), buckets, chains.
  const uint32_t nbuckets = gnu_hash[0], symoffset = gnu_hash[1], bloom = gnu_hash[2];
  const uint32_t* buckets = gnu_hash + 4 + bloom * (sizeof(ElfW(Addr)) / 4);
  const uint32_t* chains = buckets + nbuckets;
  uint32_t last = 0;
  for (uint32_t b = 0; b < nbuckets; ++b) last = buckets[b] > last ? buckets[b] : last;
  if (last == 0) return nullptr;
  while (!(chains[last - symoffset] & 1)) ++last;
  for (uint32_t i = symoffset; i <= last; ++i)
    if (symtab[i].st_value && std::strcmp(strtab + symtab[i].st_name, name) == 0)
      return reinterpret_cast<void*>(base + symtab[i].st_value);
  return nullptr;
}

struct Query {
  const char* library;  // substring of the loaded object's path
  const char* symbol;
  void* found;
};

inline int visit(struct dl_phdr_info* info, size_t, void* data) {
  auto* q = static_cast<Query*>(data);
  if (!info->dlpi_name || !std::strstr(info->dlpi_name, q->library)) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
      q->found = symbol_in(info->dlpi_addr,
                           reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr), q->symbol);
      return q->found != nullptr;
    }
  return 0;
}

inline void* find_by_phdr(const char* library, const char* symbol) {
  Query q{library, symbol, nullptr};
  dl_iterate_phdr(visit, &q);
  return q.found;
}

inline void* find_by_r_debug(const char* library, const char* symbol) {
  for (const link_map* m = _r_debug.r_map; m; m = m->l_next)
    if (m->l_name && std::strstr(m->l_name, library))
      if (void* p = symbol_in(m->l_addr, m->l_ld, symbol)) return p;
  return nullptr;
}

}  // namespace attack
