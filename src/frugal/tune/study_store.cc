#include "frugal/tune/study_store.h"

#include <algorithm>

#include "frugal/core/atomic_file.h"
#include "frugal/core/paths.h"

namespace frugal::tune {

Result<void> CheckStudyStateVersion(const std::string& where, const nlohmann::json& state) {
  const auto version =
      state.is_object() && state.contains("version") && state["version"].is_number_integer()
          ? state["version"].get<int>()
          : 0;
  if (version < kOldestStudyStateVersion || version > kStudyStateVersion) {
    return Fail(ErrorCode::kBadInput, where + ": not a study state of version " +
                                          std::to_string(kOldestStudyStateVersion) + " to " +
                                          std::to_string(kStudyStateVersion));
  }
  return {};
}

Result<void> MemoryStudyStore::Save(const std::string& name, const nlohmann::json& state) {
  states_[name] = state;
  return {};
}

Result<nlohmann::json> MemoryStudyStore::Load(const std::string& name) const {
  auto it = states_.find(name);
  if (it == states_.end()) return Fail(ErrorCode::kBadInput, "no study named '" + name + "'");
  return it->second;
}

Result<std::string> MemoryStudyStore::Retire(const std::string& name) {
  auto it = states_.find(name);
  if (it == states_.end()) return std::string();
  std::string kept;
  for (int n = 1; kept.empty() || states_.contains(kept); ++n)
    kept = name + "@" + std::to_string(n);
  states_[kept] = std::move(it->second);
  states_.erase(name);
  return kept;
}

Result<std::vector<std::string>> MemoryStudyStore::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, state] : states_) names.push_back(name);
  return names;
}

JsonFileStudyStore JsonFileStudyStore::Default() {
  return JsonFileStudyStore(UserDataDir() / "studies");
}

Result<void> JsonFileStudyStore::Save(const std::string& name, const nlohmann::json& state) {
  return WriteFileAtomically(PathOf(name), state.dump() + "\n");
}

Result<nlohmann::json> JsonFileStudyStore::Load(const std::string& name) const {
  const std::filesystem::path path = PathOf(name);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return Fail(ErrorCode::kBadInput,
                "no study named '" + name + "' (looked for " + path.string() + ")");
  }
  const std::string text = FRUGAL_TRY(ReadFile(path));
  nlohmann::json state = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (state.is_discarded()) return Fail(ErrorCode::kBadInput, path.string() + ": not valid JSON");
  FRUGAL_TRY(CheckStudyStateVersion(path.string(), state));
  return state;
}

Result<std::string> JsonFileStudyStore::Retire(const std::string& name) {
  std::error_code ec;
  if (!std::filesystem::exists(PathOf(name), ec)) return std::string();
  std::string kept;
  for (int n = 1; kept.empty() || std::filesystem::exists(PathOf(kept), ec); ++n) {
    kept = name + "@" + std::to_string(n);
  }
  std::filesystem::rename(PathOf(name), PathOf(kept), ec);
  if (ec) {
    return Fail(ErrorCode::kFailed, "cannot keep the earlier study " + PathOf(name).string() +
                                        " as " + PathOf(kept).string() + ": " + ec.message());
  }
  return kept;
}

Result<std::vector<std::string>> JsonFileStudyStore::Names() const {
  std::vector<std::string> names;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir_, ec)) return names;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    const std::filesystem::path& path = entry.path();
    if (path.extension() == ".json" && entry.is_regular_file(ec)) {
      names.push_back(path.stem().string());
    }
  }
  if (ec) return Fail(ErrorCode::kFailed, "cannot list " + dir_.string() + ": " + ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace frugal::tune
