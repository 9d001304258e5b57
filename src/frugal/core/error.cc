#include "frugal/core/error.h"

#include <cstdio>
#include <cstdlib>

namespace frugal {

void CheckFailed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "frugal: internal check failed: %s at %s:%d\n", condition, file, line);
  std::abort();
}

}  // namespace frugal
