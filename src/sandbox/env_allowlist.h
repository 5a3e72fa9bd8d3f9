// The environment a sandboxed child gets: an allowlist of names taken from the parent's
// environment (never one that looks like a credential), plus what the sandbox sets itself (HOME,
// TMPDIR, PATH). Everything else, API keys included, stays in the parent.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ptxbench::sandbox {

// True for names such as OPENAI_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, PGPASSWORD.
bool looks_like_secret(std::string_view name);
// The names a child may inherit: locale, time zone, the library path, GPU selection.
bool inherited_name(std::string_view name);

// `parent` ("NAME=value" entries) filtered by inherited_name() and !looks_like_secret(), then
// `set` ("NAME=value") added or replacing. Sorted by name, so a record of it is stable.
std::vector<std::string> scrubbed_environment(const std::vector<std::string>& parent,
                                              const std::vector<std::string>& set);

std::vector<std::string> current_environment();

}  // namespace ptxbench::sandbox
