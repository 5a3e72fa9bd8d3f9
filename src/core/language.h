// The languages a candidate may be written in. Both go through the same judge and the same record
// (its `language`); what differs is how a candidate is built and statically checked.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxbench {

enum class Language { cuda, triton };

std::string_view to_string(Language l);
std::optional<Language> language_from_string(std::string_view s);
std::vector<std::string> language_names();
// By the candidate file's extension: .py is Triton, anything else CUDA C++.
Language language_of_file(std::string_view path);
// The fence a reply's code block carries, and the file extension a candidate is stored under.
std::string_view code_fence_language(Language l);
std::string_view candidate_extension(Language l);

}  // namespace ptxbench
