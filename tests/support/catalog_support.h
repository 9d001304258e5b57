#pragma once
// The shipped catalog with a test's own offers added, for the tests of the layers above
// catalog (estimate, plan, serving).

#include <memory>
#include <string>
#include <vector>

#include "frugal/catalog/catalog.h"
#include "support/test_support.h"

namespace frugal::testing {

struct CatalogWithOffers {
  TempDir dir;  ///< holds offers.yaml
  catalog::Catalog catalog;
  std::vector<std::string> names;  ///< catalog.gpu_names(), for the spec parsers
};

/// The shipped catalog (`data/`) plus `offers`: entries of a custom offers file's `offers:`
/// list, each line indented two spaces; `extra` follows them (a `preemption_rates:` section).
/// A catalog that does not load fails the test.
[[nodiscard]] std::unique_ptr<CatalogWithOffers> ShippedCatalogWith(const std::string& offers,
                                                                    const std::string& extra = "");

}  // namespace frugal::testing
