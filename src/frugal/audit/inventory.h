#pragma once
// An inventory of running capacity for the audit (`frugal audit --inventory FILE`): instances
// or nodes with their GPU model and count, tier, price, owner tags, launch time and GPU
// utilization history. Two formats (version 1), chosen by the file's extension; both are
// documented in docs/audit.md:
//
// YAML (.yaml, .yml):
//   version: 1
//   instances:
//     - id: i-0abc                 # required, unique
//       cloud: aws                 # required
//       region: us-east-1          # required
//       instance_type: p4d.24xlarge
//       gpu: A100-40GB             # required: a catalog GPU name or alias
//       gpus: 8                    # default 1
//       tier: on_demand            # on_demand | spot | reserved_1y | reserved_3y
//       price_per_hour: 32.77      # required: what the instance costs per hour
//       tags: {team: nlp, project: chat, owner: ana}
//       launched: 2026-02-01T00:00:00Z
//       utilization: {start: 2026-03-01T00:00:00Z, step: 1h, gpu_util: [0, 0, 95]}
//
// CSV (.csv): one row per utilization reading, header
//   id,cloud,region,instance_type,gpu,gpus,tier,price_per_hour,team,project,owner,launched,
//   time,gpu_util
// The first row of an id describes the instance (later rows' instance fields are ignored);
// `time`/`gpu_util` may be empty on an instance with no history. A reading lasts until the
// instance's next one; the last lasts as long as the one before it (one hour when alone).
//
// Errors name file:line:col and the field: unknown keys, unknown GPU names ("did you mean"),
// bad numbers, times out of order, duplicate ids, a launch time in the future.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "frugal/catalog/catalog.h"
#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/core/tier.h"
#include "frugal/ledger/types.h"

namespace frugal::audit {

/// Mean GPU utilization over [start, end).
struct UtilizationSpan {
  ledger::Timestamp start{};
  ledger::Timestamp end{};
  double gpu_util_pct = 0;
};

struct InventoryInstance {
  std::string id;
  std::string cloud;
  std::string region;
  std::string instance_type;  ///< may be empty
  std::string gpu;            ///< canonical catalog name
  int gpu_count = 1;
  CapacityTier tier = CapacityTier::kOnDemand;
  Rate price;  ///< per instance
  ledger::Tags tags;
  std::optional<ledger::Timestamp> launched;
  std::vector<UtilizationSpan> history;  ///< in time order, not overlapping
  std::string where;                     ///< "file:line", for messages

  /// "instance i-0abc (8x A100-40GB)".
  [[nodiscard]] std::string Label() const;
};

struct Inventory {
  std::string source;
  std::vector<InventoryInstance> instances;
};

/// Loads an inventory; the extension picks the format. kBadInput as described above, and for
/// a `launched` time after `now`.
[[nodiscard]] Result<Inventory> LoadInventory(const std::filesystem::path& path,
                                              const catalog::Catalog& catalog,
                                              ledger::Timestamp now);
enum class InventoryFormat { kYaml, kCsv };
/// As LoadInventory, from text (tests); `source` names it in errors.
[[nodiscard]] Result<Inventory> ParseInventory(std::string_view text, std::string source,
                                               InventoryFormat format,
                                               const catalog::Catalog& catalog,
                                               ledger::Timestamp now);

}  // namespace frugal::audit
