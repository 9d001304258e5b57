#pragma once
// Whole-line appends to the run journal (run_journal.h), a JSON-lines file. A record lands
// whole or not at all: a write the disk cuts short is cut back off (ftruncate to where the line
// began), so a full disk never leaves half a record for a reader to trip on or the next record
// to be glued onto; a torn last line left by a crash (or an older frugal) is cut off when the
// file is opened again, so the next record starts on a line of its own. A reserve is kept
// allocated past the end (the file's size unchanged), so the records that end a run still land
// when the disk fills up under it.

#include <cstddef>
#include <filesystem>
#include <string_view>

namespace frugal::run {

/// Bytes kept allocated past the journal's end: room for the records that end a run (a
/// segment's end and the run's end are a few hundred bytes each) and a few dozen more.
inline constexpr long kJournalReserveBytes = 16 * 1024;

/// Cuts a last line that lacks its newline off the file open at `fd` (for reading too); returns
/// how many bytes were cut (0 when it ended whole or is empty; -1 when the file could not be read
/// or cut).
long CutTornLastLine(int fd);

/// Appends `line` (ending in '\n') to the file open at `fd` for appending, whole or not at all.
/// Returns 0, or the errno of the failure (ENOSPC for a write the disk cut short).
int AppendWholeLine(int fd, std::string_view line);

/// Keeps kJournalReserveBytes allocated past the end of the file at `fd`, topped up once half
/// is used; `reserved_end` is where the reservation ends (0 at first, and again after the file
/// was cut: a truncation gives back what lay past its new end), moved on as room is granted. Only
/// the room past `reserved_end` is asked for, so a refusal (a full disk) takes nothing back of
/// what was already granted (tmpfs undoes every unwritten page of a failed request's range).
/// Returns 0, or the errno (a filesystem without fallocate counts as success).
int KeepReserve(int fd, long& reserved_end);

}  // namespace frugal::run
