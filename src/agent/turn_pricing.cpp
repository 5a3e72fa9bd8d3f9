// The cost of one model call from the run config's per-model prices (null when a price or count is unknown).
#include "agent/turn_pricing.h"

namespace ptxbench {

std::optional<double> call_cost_usd(const std::optional<TokenPrices>& prices, std::optional<long long> input_tokens,
                                    std::optional<long long> output_tokens) {
  if (!prices || !input_tokens || !output_tokens) return std::nullopt;
  return (static_cast<double>(*input_tokens) * prices->input_per_mtok +
          static_cast<double>(*output_tokens) * prices->output_per_mtok) /
         1e6;
}

}  // namespace ptxbench
