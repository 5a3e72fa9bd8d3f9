// `serve --http HOST:PORT`: the address the reward API listens on, checked with a message that
// says what is wrong. PORT 0 takes a free port (the bound one is written to the endpoint file).
#pragma once
#include <string>

namespace ptxbench::api {

struct ListenAddress {
  std::string host;
  int port = 0;
};

ListenAddress parse_listen_address(const std::string& text);  // throws InputError

}  // namespace ptxbench::api
