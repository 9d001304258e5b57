#include "frugal/server/router.h"

namespace frugal::server {

void Router::Get(const std::string& pattern, Handler handler) {
  routes_.push_back({"GET", std::regex(pattern), std::move(handler)});
}

void Router::Post(const std::string& pattern, Handler handler) {
  routes_.push_back({"POST", std::regex(pattern), std::move(handler)});
}

Router::Match Router::Find(Request& req, const Handler*& handler) const {
  const std::string method = req.method == "HEAD" ? "GET" : req.method;
  Match found = Match::kNoPath;
  for (const Route& route : routes_) {
    std::smatch m;
    if (!std::regex_match(req.path, m, route.pattern)) continue;
    if (route.method != method) {
      found = Match::kOtherMethod;
      continue;
    }
    req.matches.assign(m.begin(), m.end());
    handler = &route.handler;
    return Match::kFound;
  }
  return found;
}

}  // namespace frugal::server
