// The languages a candidate may be written in (CUDA, Triton): names, file extensions, code fences.
#include "core/language.h"

namespace ptxbench {

std::string_view to_string(Language l) { return l == Language::triton ? "triton" : "cuda"; }

std::optional<Language> language_from_string(std::string_view s) {
  if (s == "cuda") return Language::cuda;
  if (s == "triton") return Language::triton;
  return std::nullopt;
}

std::vector<std::string> language_names() { return {"cuda", "triton"}; }

Language language_of_file(std::string_view path) { return path.ends_with(".py") ? Language::triton : Language::cuda; }

std::string_view code_fence_language(Language l) { return l == Language::triton ? "python" : "cuda"; }

std::string_view candidate_extension(Language l) { return l == Language::triton ? ".py" : ".cu"; }

}  // namespace ptxbench
