// The cost of one model call from the run config's per-model prices. Providers report reasoning
// tokens inside their output tokens (OpenAI completion_tokens, Anthropic output_tokens), so cost =
// input x input price + output x output price. Null when a price or a token count is unknown.
#pragma once
#include <optional>

#include "agent/run_config.h"

namespace ptxbench {

std::optional<double> call_cost_usd(const std::optional<TokenPrices>& prices, std::optional<long long> input_tokens,
                                    std::optional<long long> output_tokens);

}  // namespace ptxbench
