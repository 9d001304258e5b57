#pragma once
// A small replay table written to disk for tests: configs whose curves rise toward a quality
// they reach late (so early ranks only partly predict final ranks), with per-config epoch cost.

#include <filesystem>

namespace frugal::tune::testing {

/// Writes configs.csv and curves.csv for `configs` configurations of `epochs` epochs each into
/// `dir`. Every seventh config diverges (NaN) at epoch 4. Columns: config_id,lr,width and
/// config_id,epoch,elapsed_s,score (higher is better).
void WriteSyntheticTable(const std::filesystem::path& dir, int configs, int epochs);

}  // namespace frugal::tune::testing
