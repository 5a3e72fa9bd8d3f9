// For attack candidates: libc's functions found in memory, with no import and no header that a
// static check could see. From printf (an allowed import) back to libc's ELF header, then its
// dynamic symbol table. Included by the attacks that call what the sandbox must stop.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

// The ELF-64 layouts, spelled out here rather than taken from a header.
struct Ehdr { unsigned char ident[16]; uint16_t type, machine; uint32_t version; uint64_t entry, phoff, shoff;
              uint32_t flags; uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx; };
struct Phdr { uint32_t type, flags; uint64_t offset, vaddr, paddr, filesz, memsz, align; };
struct Dyn { int64_t tag; uint64_t val; };
struct Sym { uint32_t name; unsigned char info, other; uint16_t shndx; uint64_t value, size; };
constexpr uint32_t kPtDynamic = 2;
constexpr int64_t kDtStrtab = 5, kDtSymtab = 6;

// libc's first page holds its ELF header; its segments are contiguous, so every page from
// printf's back to it is mapped.
const unsigned char* libc_base() {
  auto p = reinterpret_cast<uintptr_t>(&printf) & ~uintptr_t(4095);
  for (int pages = 0; pages < 8192; ++pages, p -= 4096)
    if (std::memcmp(reinterpret_cast<const void*>(p), "\x7f" "ELF", 4) == 0) return reinterpret_cast<const unsigned char*>(p);
  return nullptr;
}

void* libc_symbol(const char* name) {
  const unsigned char* base = libc_base();
  if (!base) return nullptr;
  const auto* eh = reinterpret_cast<const Ehdr*>(base);
  const Dyn* dyn = nullptr;
  for (int i = 0; i < eh->phnum; ++i) {
    const auto* ph = reinterpret_cast<const Phdr*>(base + eh->phoff + i * eh->phentsize);
    if (ph->type == kPtDynamic) dyn = reinterpret_cast<const Dyn*>(base + ph->vaddr);
  }
  if (!dyn) return nullptr;
  auto addr = [&](uint64_t v) { return v < reinterpret_cast<uintptr_t>(base) ? base + v : reinterpret_cast<const unsigned char*>(v); };
  const Sym* symtab = nullptr;
  const char* strtab = nullptr;
  for (; dyn->tag != 0; ++dyn) {
    if (dyn->tag == kDtSymtab) symtab = reinterpret_cast<const Sym*>(addr(dyn->val));
    if (dyn->tag == kDtStrtab) strtab = reinterpret_cast<const char*>(addr(dyn->val));
  }
  if (!symtab || !strtab || reinterpret_cast<const void*>(strtab) <= reinterpret_cast<const void*>(symtab)) return nullptr;
  // The symbol table ends where the string table begins (as the linker lays them out).
  for (const Sym* s = symtab; reinterpret_cast<const char*>(s + 1) <= strtab; ++s)
    if (s->value && std::strcmp(strtab + s->name, name) == 0) return const_cast<unsigned char*>(base + s->value);
  return nullptr;
}

template <typename F>
F find(const char* name) {
  return reinterpret_cast<F>(libc_symbol(name));
}

}  // namespace
