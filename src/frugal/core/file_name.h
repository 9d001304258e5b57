#pragma once
// The one rule for a name that becomes a file name inside the data directory (a profile's, a
// drill record's, a job's measurements), so that no name ever names a path outside its folder.

#include <cstddef>
#include <string_view>

#include "frugal/core/error.h"

namespace frugal {

/// The most bytes a name that becomes a file name may have.
inline constexpr size_t kMaxFileNameBytes = 200;

/// OK for 1 to kMaxFileNameBytes bytes of UTF-8 without '/', NUL or a control character that
/// is not "." or "..". kBadInput "<where>: '<name>' ..." otherwise; `where` is the flag
/// ("option --name") or the spec's location ("job.yaml:3:7: field 'name'").
[[nodiscard]] Result<void> CheckFileName(std::string_view name, std::string_view where);

}  // namespace frugal
