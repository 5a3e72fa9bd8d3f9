// sha256 of bytes, as 64 lowercase hex digits: the key of content-addressed rows (candidates, blobs).
#pragma once
#include <string>

namespace ptxbench {

std::string content_sha256(const std::string& bytes);

}  // namespace ptxbench
