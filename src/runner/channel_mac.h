// HMAC-SHA256 for the worker's result lines, written here so the worker stays CUDA toolkit +
// header-only libraries (the parent verifies with OpenSSL, an independent implementation; a unit
// test holds this one to RFC 4231's vectors). No allocation, no locks: usable in a signal handler.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ptxbench {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t n);
  void finish(uint8_t out[32]);

 private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t used_ = 0;
  uint64_t bytes_ = 0;
};

// HMAC-SHA256(key, a || b) as 64 lowercase hex characters written to `hex` (no terminator).
void hmac_sha256_hex(const uint8_t* key, size_t key_len, const char* a, size_t a_len, const char* b, size_t b_len,
                     char hex[64]);

}  // namespace ptxbench
