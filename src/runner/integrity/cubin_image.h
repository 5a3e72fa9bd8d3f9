// What a candidate's shared object carries for the GPU: the cubins (ELF images) embedded in its
// .nv_fatbin section, each with the kernels it defines. The worker reads them from the file before
// loading it, so a module the driver later loads can be matched byte for byte: anything else that
// a candidate gets loaded (a hidden cubin, PTX compiled at run time) is not its inspected code.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ptxbench {

struct CubinImage {
  std::string bytes;                   // the fatbin entry's payload: the ELF image (maybe zero-padded)
  std::vector<std::string> functions;  // kernels it defines (mangled names)
  // True when `loaded` (what the driver reports loading) is this image.
  bool matches(std::string_view loaded) const;
};

// The entry functions (kernels) an sm_XX cubin defines: STT_FUNC symbols in its .text.* sections.
// Throws Error when `elf` is not a 64-bit ELF image.
std::vector<std::string> cubin_functions(std::string_view elf);

// Every cubin in the .nv_fatbin section of a host shared object. Compressed entries cannot be
// compared byte for byte, so they fail (nvcc compresses only when asked; the harness never asks).
// Throws Error naming the file and what is wrong.
std::vector<CubinImage> read_fatbin_cubins(const std::filesystem::path& shared_object);

// Cubin files as they are (a Triton candidate's kernels, which Triton loads from its cache).
std::vector<CubinImage> read_cubin_files(const std::vector<std::filesystem::path>& cubins);

// The same from the bytes of a fatbin container (one or more concatenated fatbins).
std::vector<CubinImage> parse_fatbin(std::string_view fatbin);

}  // namespace ptxbench
