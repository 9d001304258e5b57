#pragma once
// The studies a store holds, as one document: what `frugal tune list --json` prints and
// `GET /api/v1/studies` returns.

#include <nlohmann/json.hpp>

#include "frugal/tune/study_store.h"

namespace frugal::app {

/// {"studies": [{"name", "status", "spend_usd", "gpu_hours", "trials_started", "best_value",
/// "best_config_id", "pruning_saved_usd"}]}, by name; a study that does not load is
/// {"name", "error"}. Errors are the store's.
[[nodiscard]] Result<nlohmann::json> StudyListJson(const tune::StudyStore& store);

}  // namespace frugal::app
