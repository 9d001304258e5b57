#include "support/catalog_support.h"

#include <gtest/gtest.h>

namespace frugal::testing {

std::unique_ptr<CatalogWithOffers> ShippedCatalogWith(const std::string& offers,
                                                      const std::string& extra) {
  auto f = std::make_unique<CatalogWithOffers>();
  WriteTestFile(f->dir / "offers.yaml", "apiVersion: frugal/v1\noffers:\n" + offers + extra);
  auto c = catalog::Catalog::LoadFrom(SourceDir() / "data", {f->dir / "offers.yaml"});
  EXPECT_TRUE(c) << c.error().message;
  if (c) f->catalog = std::move(*c);
  f->names = f->catalog.gpu_names();
  return f;
}

}  // namespace frugal::testing
