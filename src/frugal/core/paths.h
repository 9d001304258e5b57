#pragma once
// Where frugal keeps things: the user's data directory (ledger, imported catalog), the user's
// config directory (custom offers, policy), the cache directory, and the shipped data snapshot.

#include <filesystem>

namespace frugal {

/// $FRUGAL_HOME/data if set, else $XDG_DATA_HOME/frugal, else ~/.local/share/frugal.
std::filesystem::path UserDataDir();
/// $FRUGAL_HOME/config if set, else $XDG_CONFIG_HOME/frugal, else ~/.config/frugal.
std::filesystem::path UserConfigDir();
/// $FRUGAL_HOME/cache if set, else $XDG_CACHE_HOME/frugal, else ~/.cache/frugal: what frugal
/// can rebuild from the files it was made from (the binary offer cache).
std::filesystem::path UserCacheDir();
/// The shipped data snapshot: $FRUGAL_DATA_DIR if set, else <exe>/../share/frugal/data when it
/// exists (installed), else the source tree's data/ (build tree).
std::filesystem::path ShippedDataDir();

}  // namespace frugal
