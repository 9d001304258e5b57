#pragma once
// Stopping a run from outside its supervisor (the server's cancel request): the supervisor
// holding the run's lock on this host is sent SIGINT, as Ctrl-C would: it asks the command
// to checkpoint and stop, and the run ends cancelled in the journal and the ledger.

#include <filesystem>
#include <string>

#include "frugal/core/error.h"

namespace frugal::run {

/// The run folder `frugal run` uses by default for run id `name`: <data dir>/runs/<name>.
[[nodiscard]] std::filesystem::path DefaultRunDir(const std::string& name);

/// Signals the supervisor holding `run_dir`/supervisor.lock and returns its process id.
/// kBadInput when no supervisor holds it on this host (the run ended, or runs elsewhere);
/// kFailed when the signal cannot be sent.
[[nodiscard]] Result<int> InterruptSupervisor(const std::filesystem::path& run_dir,
                                              const std::string& name);

}  // namespace frugal::run
