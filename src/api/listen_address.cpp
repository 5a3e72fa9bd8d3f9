// Parses `serve --http HOST:PORT`, with a message that says what is wrong.
#include "api/listen_address.h"

#include "core/error.h"

namespace ptxbench::api {

ListenAddress parse_listen_address(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0)
    throw InputError("--http '" + text + "': expected HOST:PORT (e.g. 127.0.0.1:8080)");
  ListenAddress a;
  a.host = text.substr(0, colon);
  if (a.host.size() > 2 && a.host.front() == '[' && a.host.back() == ']') a.host = a.host.substr(1, a.host.size() - 2);
  const std::string port = text.substr(colon + 1);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    throw InputError("--http '" + text + "': the port '" + port + "' is not a number from 0 to 65535");
  a.port = std::stoi(port);
  if (a.port > 65535) throw InputError("--http '" + text + "': the port " + port + " is over 65535");
  return a;
}

}  // namespace ptxbench::api
