#pragma once
// What every libFuzzer target asserts of a reader's answer: a value, or a bad-input error
// whose message starts with the input's name (so the user is told where).

#include <cstdlib>
#include <iostream>
#include <string>

#include "frugal/core/error.h"

namespace frugal::fuzz {

template <typename T>
void CheckAnswer(const Result<T>& r, const std::string& source) {
  if (r) return;
  if (r.error().code != ErrorCode::kBadInput || r.error().message.rfind(source, 0) != 0) {
    std::cerr << "unexpected answer (code " << static_cast<int>(r.error().code)
              << "): " << r.error().message << "\n";
    std::abort();
  }
}

}  // namespace frugal::fuzz
