// The model clients' registry: providers registered by name, PROVIDER:MODEL specs parsed, clients made.
#include <map>
#include <mutex>

#include "agent/clients/model_client.h"
#include "core/error.h"

namespace ptxbench {
namespace {

std::map<std::string, ClientFactory>& registry() {
  static std::map<std::string, ClientFactory> r;
  return r;
}

constexpr std::pair<ProviderOutcome, std::string_view> kOutcomeNames[] = {
    {ProviderOutcome::ok, "ok"},
    {ProviderOutcome::truncated, "truncated"},
    {ProviderOutcome::refused, "refused"},
    {ProviderOutcome::reasoning_only, "reasoning_only"},
    {ProviderOutcome::empty, "empty"},
    {ProviderOutcome::request_too_large, "request_too_large"},
    {ProviderOutcome::provider_error, "provider_error"},
    {ProviderOutcome::quota_exhausted, "quota_exhausted"},
    {ProviderOutcome::infra_error, "infra_error"},
};

}  // namespace

std::string_view to_string(ProviderOutcome o) {
  for (const auto& [v, name] : kOutcomeNames)
    if (v == o) return name;
  return "infra_error";
}

std::optional<ProviderOutcome> provider_outcome_from_string(std::string_view s) {
  for (const auto& [v, name] : kOutcomeNames)
    if (name == s) return v;
  return std::nullopt;
}

ClientRegistrar::ClientRegistrar(const std::string& provider, ClientFactory factory) {
  registry()[provider] = std::move(factory);
}

std::vector<std::string> known_providers() {
  std::vector<std::string> out;
  for (const auto& [name, f] : registry()) out.push_back(name);
  return out;
}

ClientConfig parse_model_spec(const std::string& spec) {
  const auto colon = spec.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == spec.size())
    throw InputError("--model '" + spec +
                     "': expected PROVIDER:MODEL (e.g. openai:gpt-5, anthropic:claude-opus-4-8, "
                     "replay:WORKSPACE, files:DIR)");
  return {spec.substr(0, colon), spec.substr(colon + 1), json::object()};
}

std::unique_ptr<ModelClient> make_client(const ClientConfig& config) {
  auto it = registry().find(config.provider);
  if (it == registry().end()) {
    std::string known;
    for (const auto& name : known_providers()) known += (known.empty() ? "" : ", ") + name;
    throw InputError("unknown model provider '" + config.provider + "' (known: " + known + ")");
  }
  return it->second(config);
}

}  // namespace ptxbench
