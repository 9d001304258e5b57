#include "frugal/server/http_message.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace frugal::server {
namespace {

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

bool Request::has_param(std::string_view name) const { return get_param_value_count(name) > 0; }

std::string Request::get_param_value(std::string_view name, size_t index) const {
  for (const auto& [key, value] : params) {
    if (key == name && index-- == 0) return value;
  }
  return "";
}

size_t Request::get_param_value_count(std::string_view name) const {
  return static_cast<size_t>(std::count_if(params.begin(), params.end(),
                                           [name](const auto& kv) { return kv.first == name; }));
}

std::string Request::get_header_value(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (SameName(key, name)) return value;
  }
  return "";
}

bool Request::has_header(std::string_view name) const {
  return std::any_of(headers.begin(), headers.end(),
                     [name](const auto& kv) { return SameName(kv.first, name); });
}

void SetJsonError(Response& res, int status, std::string_view message) {
  using Json = nlohmann::json;
  res.status = status;
  res.set_content(Json{{"error", {{"status", status}, {"message", std::string(message)}}}}.dump(
                      -1, ' ', false, Json::error_handler_t::replace) +
                      "\n",
                  "application/json");
}

std::string HideServerPaths(std::string message,
                            const std::vector<std::pair<std::string, std::string>>& roots) {
  for (const auto& [dir, label] : roots) {
    if (dir.size() < 2) continue;  // never "/" or ""
    for (size_t at = message.find(dir); at != std::string::npos;
         at = message.find(dir, at + label.size())) {
      message.replace(at, dir.size(), label);
    }
  }
  return message;
}

}  // namespace frugal::server
