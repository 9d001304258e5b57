#pragma once
// Where a study's state lives between runs of the tuner: a JSON document (format below) saved
// after the tuner's steps and loaded by `frugal tune resume`. The ledger-backed store comes
// with the ledger; until then, a file per study under the user's data directory.
//
// State document, version 2 (version 1, written before early rungs existed, still loads: its
// study resumes without them, since its trials have no results at those rungs):
//   {"version": 2, "name": ..., "spec_yaml": <the spec's YAML text>, "spec_base": <dir that
//    relative paths in it resolve against>, "early_rungs": <whether its ladder has them>,
//    "status": "running" | "finished" | "interrupted", "trials": [Trial...],
//    "scheduler": {...}, "sampler": "<generator state>", "runner": {...}, "accounting": {...},
//    "flags": {...}}

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "frugal/core/error.h"

namespace frugal::tune {

inline constexpr int kStudyStateVersion = 2;
/// The oldest state version `frugal tune resume` still reads.
inline constexpr int kOldestStudyStateVersion = 1;

/// kBadInput naming `where` unless `state` is a study state of a version this build reads.
[[nodiscard]] Result<void> CheckStudyStateVersion(const std::string& where,
                                                  const nlohmann::json& state);

class StudyStore {
 public:
  virtual ~StudyStore() = default;
  /// Replaces the study's state; after success a crash leaves this state or nothing newer.
  [[nodiscard]] virtual Result<void> Save(const std::string& name, const nlohmann::json& state) = 0;
  /// The study's last saved state; kBadInput "no study named 'x'" when there is none.
  [[nodiscard]] virtual Result<nlohmann::json> Load(const std::string& name) const = 0;
  /// Frees `name` for a new study, keeping the old one's results under another name, which it
  /// returns ("" when there was none to keep).
  [[nodiscard]] virtual Result<std::string> Retire(const std::string& name) = 0;
  /// The names of the studies kept here (retired ones included), sorted.
  [[nodiscard]] virtual Result<std::vector<std::string>> Names() const = 0;
};

/// Keeps states in memory (evaluation programs, tests).
class MemoryStudyStore final : public StudyStore {
 public:
  [[nodiscard]] Result<void> Save(const std::string& name, const nlohmann::json& state) override;
  [[nodiscard]] Result<nlohmann::json> Load(const std::string& name) const override;
  [[nodiscard]] Result<std::string> Retire(const std::string& name) override;
  [[nodiscard]] Result<std::vector<std::string>> Names() const override;

 private:
  std::map<std::string, nlohmann::json> states_;
};

/// One `<name>.json` per study in `dir`, replaced atomically (temp, fsync, rename).
class JsonFileStudyStore final : public StudyStore {
 public:
  explicit JsonFileStudyStore(std::filesystem::path dir) : dir_(std::move(dir)) {}
  /// The default place: <user data dir>/studies.
  static JsonFileStudyStore Default();

  [[nodiscard]] Result<void> Save(const std::string& name, const nlohmann::json& state) override;
  [[nodiscard]] Result<nlohmann::json> Load(const std::string& name) const override;
  /// Renames `<name>.json` to `<name>@<n>.json`, n the first number free.
  [[nodiscard]] Result<std::string> Retire(const std::string& name) override;
  [[nodiscard]] Result<std::vector<std::string>> Names() const override;
  std::filesystem::path PathOf(const std::string& name) const { return dir_ / (name + ".json"); }

 private:
  std::filesystem::path dir_;
};

}  // namespace frugal::tune
