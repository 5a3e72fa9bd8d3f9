#pragma once
#include <nlohmann/json.hpp>

namespace ptxbench {
using json = nlohmann::ordered_json;
}
