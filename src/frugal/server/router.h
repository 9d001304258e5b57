#pragma once
// The server's routes: a method and a path pattern (a regular expression the whole %-decoded
// path must match; its groups become Request::matches) to a handler, tried in the order added.

#include <regex>
#include <string>
#include <vector>

#include "frugal/server/http_message.h"

namespace frugal::server {

class Router {
 public:
  void Get(const std::string& pattern, Handler handler);
  void Post(const std::string& pattern, Handler handler);

  enum class Match { kFound, kNoPath, kOtherMethod };
  /// The route for `req` (a HEAD is routed as its GET). kFound fills `req.matches` and sets
  /// `handler`; kOtherMethod when only another method's route has the path.
  [[nodiscard]] Match Find(Request& req, const Handler*& handler) const;

 private:
  struct Route {
    std::string method;
    std::regex pattern;
    Handler handler;
  };
  std::vector<Route> routes_;
};

}  // namespace frugal::server
