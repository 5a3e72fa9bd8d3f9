// sha256 of bytes, as 64 lowercase hex digits: a record's candidate_sha256, and the key of
// content-addressed files and rows (candidates, blobs).
#pragma once
#include <string>

namespace ptxbench {

std::string content_sha256(const std::string& bytes);

}  // namespace ptxbench
