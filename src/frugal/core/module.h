#pragma once
// frugal's loadable modules and the system libraries it opens by name. The parts of frugal that
// need a heavy library (PostgreSQL's client, an HTTP client) live in shared objects opened the
// first time a command uses them, so a command that needs neither never maps those libraries
// and start-up stays cheap. A module `NAME` is the file `NAME.so` in $FRUGAL_MODULE_DIR if set,
// else in <exe>/../lib/frugal (installed), else in the build tree's module folder.

#include <filesystem>
#include <string>
#include <string_view>

#include "frugal/core/error.h"

namespace frugal {

/// The folder modules are opened from (the rule above).
[[nodiscard]] std::filesystem::path ModuleDir();

/// The address of `entry` in module `name` ("frugal_postgres"); the module is opened once per
/// process and stays open. kBadInput naming the module, the file looked for and the loader's
/// reason when it is missing or cannot be loaded.
[[nodiscard]] Result<void*> ModuleEntry(std::string_view name, std::string_view entry);

/// A system library opened by its soname (`libmicrohttpd.so.12`), once per process; `package`
/// is what to install when it is missing. kBadInput naming both when it cannot be opened.
[[nodiscard]] Result<void*> SystemLibrary(std::string_view soname, std::string_view package);

/// The address of `symbol` in an opened library; kBadInput naming both when it lacks it.
[[nodiscard]] Result<void*> LibrarySymbol(void* library, std::string_view library_name,
                                          std::string_view symbol);

}  // namespace frugal
