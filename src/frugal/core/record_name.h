#pragma once
// The names of records kept as files in the data directory (drill records, profiles): the
// name becomes the file's name, so it must stay one: no '/', no NUL (which would cut the
// suffix a reader adds), not "." or "..".

#include <string_view>

#include "frugal/core/error.h"

namespace frugal {

/// Whether `name` can name a record file: 1 to 200 characters, none of them '/' or NUL, and
/// not "." or "..".
[[nodiscard]] bool IsRecordName(std::string_view name);

/// What a refused record name is told: "give a name of 1 to 200 characters, without '/' or NUL".
[[nodiscard]] std::string_view RecordNameRule();

}  // namespace frugal
