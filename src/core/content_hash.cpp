// sha256 of bytes as 64 lowercase hex digits (OpenSSL), the key of content-addressed rows.
#include "core/content_hash.h"

#include <openssl/evp.h>

namespace ptxbench {

std::string content_sha256(const std::string& bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * len);
  for (unsigned i = 0; i < len; ++i) out += kHex[md[i] >> 4], out += kHex[md[i] & 15];
  return out;
}

}  // namespace ptxbench
