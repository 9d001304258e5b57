#pragma once
// Text that a run writes where it must be UTF-8 (the journal's JSON lines, the ledger, `--json`
// documents): what the user typed for a run (its id, tags and command) and file names the
// training command chose.
//
// A run id and tags are the user's words for the run, kept and shown everywhere: bytes that are
// not UTF-8 there are bad input. The command is the user's business: it runs as given, and is
// written with each byte that is not part of a UTF-8 character escaped as `\xNN`.

#include <string>
#include <string_view>

#include "frugal/core/error.h"

namespace frugal::run {

/// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past
/// U+10FFFF).
[[nodiscard]] bool IsUtf8(std::string_view text);

/// `text` with every byte that does not belong to a well-formed UTF-8 character written as
/// `\xNN` (lowercase hex); well-formed text is returned unchanged.
[[nodiscard]] std::string EscapeNonUtf8(std::string_view text);

/// The longest run id, in bytes: it names a folder (`<data dir>/runs/ID`, at most 255 bytes on
/// Linux filesystems), and a tune trial's run adds its study's suffix to it.
inline constexpr size_t kMaxRunIdBytes = 200;

/// Checks a run id given by the user (`--run-id`): not empty, at most kMaxRunIdBytes, UTF-8,
/// no '/' or "..". kBadInput naming `flag` otherwise.
[[nodiscard]] Result<void> CheckRunId(const std::string& id, std::string_view flag);

/// Checks the value of a text flag (`--offer`, `--spec`, a duration...): UTF-8, or kBadInput
/// naming `flag` (with the value escaped), before a message quoting it is written anywhere.
[[nodiscard]] Result<void> CheckFlagText(std::string_view flag, const std::string& value);

/// Checks a tag given as `flag` (`--tag KEY=VALUE`): both sides UTF-8. kBadInput otherwise.
[[nodiscard]] Result<void> CheckTagText(const std::string& key, const std::string& value,
                                        std::string_view flag);

}  // namespace frugal::run
