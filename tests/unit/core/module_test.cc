#include "frugal/core/module.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "support/test_support.h"

namespace frugal {
namespace {

/// Sets FRUGAL_MODULE_DIR for one test and restores it after.
class ModuleDirOverride {
 public:
  explicit ModuleDirOverride(const std::string& dir) {
    if (const char* old = std::getenv("FRUGAL_MODULE_DIR"); old != nullptr) old_ = old;
    ::setenv("FRUGAL_MODULE_DIR", dir.c_str(), 1);
  }
  ~ModuleDirOverride() {
    if (old_.empty()) {
      ::unsetenv("FRUGAL_MODULE_DIR");
    } else {
      ::setenv("FRUGAL_MODULE_DIR", old_.c_str(), 1);
    }
  }
  ModuleDirOverride(const ModuleDirOverride&) = delete;
  ModuleDirOverride& operator=(const ModuleDirOverride&) = delete;

 private:
  std::string old_;
};

TEST(Module, TheBuildTreesModulesAreFoundAndTheirEntryPointsResolved) {
  // The metadata client needs nothing of frugal's, so a test of core alone can open it.
  Result<void*> entry = ModuleEntry("frugal_metadata", "frugal_metadata_request");
  ASSERT_TRUE(entry.has_value()) << entry.error().message;
  EXPECT_NE(*entry, nullptr);
}

TEST(Module, AMissingModuleIsBadInputNamingItAndWhereItWasLookedFor) {
  testing::TempDir empty;
  const ModuleDirOverride here(empty.path().string());
  EXPECT_EQ(ModuleDir(), empty.path());
  Result<void*> entry = ModuleEntry("frugal_postgres", "frugal_postgres_open");
  ASSERT_FALSE(entry.has_value());
  EXPECT_EQ(entry.error().code, ErrorCode::kBadInput);
  EXPECT_NE(entry.error().message.find("frugal_postgres"), std::string::npos);
  EXPECT_NE(entry.error().message.find(empty.path().string()), std::string::npos);
  EXPECT_NE(entry.error().message.find("FRUGAL_MODULE_DIR"), std::string::npos);
}

TEST(Module, AnEntryPointTheModuleLacksIsNamed) {
  Result<void*> entry = ModuleEntry("frugal_metadata", "frugal_no_such_entry");
  ASSERT_FALSE(entry.has_value());
  EXPECT_EQ(entry.error().code, ErrorCode::kBadInput);
  EXPECT_NE(entry.error().message.find("frugal_no_such_entry"), std::string::npos);
}

TEST(Module, AMissingSystemLibraryNamesItsPackage) {
  Result<void*> library = SystemLibrary("libfrugal-absent.so.0", "libfrugal-absent0");
  ASSERT_FALSE(library.has_value());
  EXPECT_EQ(library.error().code, ErrorCode::kBadInput);
  EXPECT_NE(library.error().message.find("libfrugal-absent.so.0"), std::string::npos);
  EXPECT_NE(library.error().message.find("libfrugal-absent0"), std::string::npos);
}

}  // namespace
}  // namespace frugal
