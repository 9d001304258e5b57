#pragma once
// The shipped catalog's GPU names: what a capacity file's pools are checked against.

#include <string>
#include <vector>

#include "frugal/catalog/catalog.h"
#include "frugal/core/error.h"
#include "support/test_support.h"

namespace frugal::queue {

inline const std::vector<std::string>& ShippedGpus() {
  static const std::vector<std::string> names = [] {
    auto catalog = catalog::Catalog::LoadFrom(frugal::testing::SourceDir() / "data");
    FRUGAL_CHECK(catalog.has_value());
    return catalog->gpu_names();
  }();
  return names;
}

}  // namespace frugal::queue
