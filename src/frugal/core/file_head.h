#pragma once
// The start of an input file, for a reader that needs only its first line (a CSV header) of a
// file that may be megabytes long. Read by ReadFile's rules (atomic_file.h), in the same place.

#include <cstddef>
#include <filesystem>
#include <string>

#include "frugal/core/error.h"

namespace frugal {

/// The first `max_bytes` of a file (all of it when shorter), refused as ReadFile refuses a
/// path. A pipe cannot be read twice, so it is read whole, as ReadFile reads it.
[[nodiscard]] Result<std::string> ReadFileHead(const std::filesystem::path& path, size_t max_bytes);

}  // namespace frugal
