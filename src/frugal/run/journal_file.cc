#include "frugal/run/journal_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

namespace frugal::run {

long CutTornLastLine(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return -1;
  off_t end = st.st_size;
  if (end == 0) return 0;
  // Backwards from the end, a block at a time, to the last newline.
  std::string block(4096, '\0');
  off_t keep = 0;
  for (off_t to = end; to > 0;) {
    const off_t from =
        to > static_cast<off_t>(block.size()) ? to - static_cast<off_t>(block.size()) : 0;
    const auto want = static_cast<size_t>(to - from);
    const ssize_t n = ::pread(fd, block.data(), want, from);
    if (n != static_cast<ssize_t>(want)) return -1;
    if (to == end && block[want - 1] == '\n') return 0;  // it ends whole
    const size_t newline = std::string_view(block.data(), want).rfind('\n');
    if (newline != std::string_view::npos) {
      keep = from + static_cast<off_t>(newline) + 1;
      break;
    }
    to = from;
  }
  if (::ftruncate(fd, keep) != 0) return -1;
  return static_cast<long>(end - keep);
}

int AppendWholeLine(int fd, std::string_view line) {
  // One writer per journal (the supervisor's lock), so the end found here is where the line
  // begins.
  const off_t begin = ::lseek(fd, 0, SEEK_END);
  size_t done = 0;
  int error = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : ENOSPC;
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (error == 0) return 0;
  // Part of the line may be on disk: cut it off, so the file still ends with a whole record.
  if (done > 0 && begin >= 0 && ::ftruncate(fd, begin) != 0) {
    // Cannot cut it (the file is gone bad): end it at least, so the next record is its own
    // line and a reader skips this one.
    [[maybe_unused]] const ssize_t ignored = ::write(fd, "\n", 1);
  }
  return error;
}

int KeepReserve(int fd, long& reserved_end) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return errno;
  reserved_end = std::max<long>(reserved_end, st.st_size);
  // Topped up once half of it is used, not at every record.
  if (reserved_end - st.st_size >= kJournalReserveBytes / 2) return 0;
  const long want = st.st_size + kJournalReserveBytes;
  if (::fallocate(fd, FALLOC_FL_KEEP_SIZE, reserved_end, want - reserved_end) == 0) {
    reserved_end = want;
    return 0;
  }
  return errno == EOPNOTSUPP || errno == ENOSYS ? 0 : errno;
}

}  // namespace frugal::run
