#pragma once
// The report channel: a file the child appends JSON lines to (its path is FRUGAL_REPORT) and
// the supervisor tails. Wire format, protocol version 1, one JSON object per line:
//   {"type":"progress","step":120,"metrics":{"loss":0.41}}
//   {"type":"progress","step":120,"tokens":491520,"samples":960,"t":1764180000.25}
//   (cumulative counts and the child's Unix time, all optional)
//   {"type":"checkpoint","path":"step-120","step":120,"files":{"model.pt":1048576}}
//   {"type":"result","metrics":{"accuracy":0.93}}
// "v" (the protocol version) is optional; a higher major version than ours is rejected as
// garbage. `path` is relative to FRUGAL_CHECKPOINT_DIR (or absolute inside it); `files`, when
// given, lists the sizes the child wrote, and the supervisor checks them. Unknown types are
// skipped (newer children); lines that are not such objects are counted as garbage and warned
// about, never fatal.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "frugal/core/error.h"

namespace frugal::run {

struct ProgressReport {
  int64_t step = 0;
  std::map<std::string, double> metrics;
  /// Work done since the command's fresh start, in the job's own units, when it says:
  /// cumulative tokens and samples (a throughput profile divides their growth by time).
  std::optional<double> tokens;
  std::optional<double> samples;
  /// When the step completed by the child's clock ("t", Unix seconds): rates between reports
  /// read at once (fast steps) are timed by it rather than by when frugal read them.
  std::optional<double> time_seconds;
};

struct CheckpointReport {
  std::string path;
  int64_t step = 0;
  std::optional<std::map<std::string, uint64_t>> files;  ///< relative path → bytes
};

/// The final result of the work (compared by drills against an uninterrupted run).
struct ResultReport {
  std::map<std::string, double> metrics;
};

using ReportMessage = std::variant<ProgressReport, CheckpointReport, ResultReport>;

/// Parses one line. kBadInput with the reason when it is garbage; an empty optional for a
/// well-formed message of a type this version does not know.
[[nodiscard]] Result<std::optional<ReportMessage>> ParseReportLine(std::string_view line);

/// Tails the report file. Not thread-safe; one reader per file.
class ReportReader {
 public:
  /// Lines longer than this are garbage (and skipped up to their newline).
  static constexpr size_t kMaxLineBytes = 1 << 20;
  /// How many garbage lines are warned about one by one before going quiet.
  static constexpr int kWarnedGarbageLines = 3;

  explicit ReportReader(std::filesystem::path path);
  ~ReportReader();
  ReportReader(const ReportReader&) = delete;
  ReportReader& operator=(const ReportReader&) = delete;

  /// Reads what was appended since the last call and returns the complete messages in order.
  /// A missing file is not an error (the child may not have written yet); a partial last line
  /// waits for its newline.
  std::vector<ReportMessage> Poll();

  [[nodiscard]] int64_t garbage_lines() const { return garbage_lines_; }
  [[nodiscard]] int64_t messages() const { return messages_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  void HandleLine(std::string_view line, std::vector<ReportMessage>& out);

  std::filesystem::path path_;
  int fd_ = -1;
  std::string pending_;
  bool skipping_long_line_ = false;
  int64_t garbage_lines_ = 0;
  int64_t messages_ = 0;
  int64_t line_number_ = 0;
};

}  // namespace frugal::run
