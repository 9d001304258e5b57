#pragma once
// A last line of defence for spec readers: yaml-cpp throws when a reader asks the node of an
// absent key for its type (`n["gpu_util"].IsSequence()`). That is bad input (a section
// without a key the reader expected), never an internal error.

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <string>
#include <utility>

#include "frugal/core/error.h"

namespace frugal {

/// `read()`, or kBadInput "source: malformed or missing field (...)" when it throws a
/// yaml-cpp exception.
template <typename F>
auto GuardYaml(const std::string& source, F&& read) -> decltype(read()) {
  try {
    return std::forward<F>(read)();
  } catch (const YAML::Exception& e) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: malformed or missing field ({})", source, e.msg));
  }
}

}  // namespace frugal
