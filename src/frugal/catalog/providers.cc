#include "frugal/catalog/providers.h"

#include <fmt/format.h>

#include "frugal/core/csv.h"
#include "frugal/core/text.h"

namespace frugal::catalog {

Result<std::set<std::string, std::less<>>> ReadMarketplaces(const std::filesystem::path& path) {
  const CsvTable t = FRUGAL_TRY(CsvTable::Load(path));
  const size_t cloud = FRUGAL_TRY(t.RequireColumn("cloud"));
  const size_t hosts = FRUGAL_TRY(t.RequireColumn("hosts"));
  FRUGAL_TRY(t.RequireColumn("source"));
  std::set<std::string, std::less<>> seen;
  std::set<std::string, std::less<>> out;
  for (const CsvRecord& r : t.rows()) {
    const std::string name = ToLower(Trim(CsvTable::Field(r, cloud)));
    if (name.empty() || !seen.insert(name).second) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: field 'cloud': '{}' is empty or listed twice", t.Where(r, cloud),
                              CsvTable::Field(r, cloud)));
    }
    const std::string kind = ToLower(Trim(CsvTable::Field(r, hosts)));
    if (kind != "provider" && kind != "marketplace") {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: field 'hosts': expected provider or marketplace, got '{}'",
                              t.Where(r, hosts), CsvTable::Field(r, hosts)));
    }
    if (kind == "marketplace") out.insert(name);
  }
  return out;
}

}  // namespace frugal::catalog
