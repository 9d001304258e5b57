#include "frugal/run/report_channel.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <nlohmann/json.hpp>

#include "frugal/core/log.h"
#include "frugal/run/protocol.h"

namespace frugal::run {
namespace {

using nlohmann::json;

Result<std::map<std::string, double>> ParseMetrics(const json& doc) {
  std::map<std::string, double> metrics;
  if (!doc.contains("metrics")) return metrics;
  const json& m = doc.at("metrics");
  if (!m.is_object()) return Fail(ErrorCode::kBadInput, "'metrics' is not an object");
  for (const auto& [key, value] : m.items()) {
    // Non-numeric metrics (strings, nested objects) are the child's business; skip them.
    if (value.is_number()) {
      const double v = value.get<double>();
      if (std::isfinite(v)) metrics[key] = v;
    } else if (value.is_boolean()) {
      metrics[key] = value.get<bool>() ? 1.0 : 0.0;
    }
  }
  return metrics;
}

Result<int64_t> ParseStep(const json& doc, bool required) {
  if (!doc.contains("step")) {
    if (required) return Fail(ErrorCode::kBadInput, "missing 'step'");
    return int64_t{0};
  }
  const json& s = doc.at("step");
  if (!s.is_number_integer() || s.get<int64_t>() < 0) {
    return Fail(ErrorCode::kBadInput, "'step' is not a non-negative integer");
  }
  return s.get<int64_t>();
}

/// An optional cumulative work count ("tokens", "samples") or time ("t"): a non-negative finite
/// number.
Result<std::optional<double>> ParseWorkCount(const json& doc, const char* key) {
  if (!doc.contains(key)) return std::optional<double>();
  const json& v = doc.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
    return Fail(ErrorCode::kBadInput, fmt::format("'{}' is not a non-negative number", key));
  }
  return std::optional<double>(v.get<double>());
}

Result<CheckpointReport> ParseCheckpoint(const json& doc) {
  CheckpointReport c;
  if (!doc.contains("path") || !doc.at("path").is_string() ||
      doc.at("path").get<std::string>().empty()) {
    return Fail(ErrorCode::kBadInput, "checkpoint without a 'path'");
  }
  c.path = doc.at("path").get<std::string>();
  c.step = FRUGAL_TRY(ParseStep(doc, false));
  if (doc.contains("files")) {
    const json& f = doc.at("files");
    if (!f.is_object()) return Fail(ErrorCode::kBadInput, "'files' is not an object");
    std::map<std::string, uint64_t> files;
    for (const auto& [name, bytes] : f.items()) {
      if (!bytes.is_number_unsigned() &&
          !(bytes.is_number_integer() && bytes.get<int64_t>() >= 0)) {
        return Fail(ErrorCode::kBadInput, "'files' entry '" + name + "' is not a byte count");
      }
      files[name] = bytes.get<uint64_t>();
    }
    c.files = std::move(files);
  }
  return c;
}

}  // namespace

Result<std::optional<ReportMessage>> ParseReportLine(std::string_view line) {
  json doc = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Fail(ErrorCode::kBadInput, "not JSON");
  if (!doc.is_object()) return Fail(ErrorCode::kBadInput, "not a JSON object");
  if (doc.contains("v")) {
    if (!doc.at("v").is_number_integer())
      return Fail(ErrorCode::kBadInput, "'v' is not an integer");
    if (doc.at("v").get<int64_t>() > kProtocolVersion) {
      return Fail(ErrorCode::kBadInput, "protocol version " + doc.at("v").dump() +
                                            " is newer than " + std::to_string(kProtocolVersion));
    }
  }
  if (!doc.contains("type") || !doc.at("type").is_string()) {
    return Fail(ErrorCode::kBadInput, "missing 'type'");
  }
  const std::string type = doc.at("type").get<std::string>();
  if (type == "progress") {
    ProgressReport p;
    p.step = FRUGAL_TRY(ParseStep(doc, true));
    p.metrics = FRUGAL_TRY(ParseMetrics(doc));
    p.tokens = FRUGAL_TRY(ParseWorkCount(doc, "tokens"));
    p.samples = FRUGAL_TRY(ParseWorkCount(doc, "samples"));
    p.time_seconds = FRUGAL_TRY(ParseWorkCount(doc, "t"));
    return std::optional<ReportMessage>(std::move(p));
  }
  if (type == "checkpoint") {
    return std::optional<ReportMessage>(FRUGAL_TRY(ParseCheckpoint(doc)));
  }
  if (type == "result") {
    return std::optional<ReportMessage>(ResultReport{FRUGAL_TRY(ParseMetrics(doc))});
  }
  return std::optional<ReportMessage>();
}

ReportReader::ReportReader(std::filesystem::path path) : path_(std::move(path)) {}

ReportReader::~ReportReader() {
  if (fd_ >= 0) ::close(fd_);
}

std::vector<ReportMessage> ReportReader::Poll() {
  std::vector<ReportMessage> out;
  if (fd_ < 0) {
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return out;
  }
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    std::string_view chunk(buffer, static_cast<size_t>(n));
    while (!chunk.empty()) {
      const size_t newline = chunk.find('\n');
      const std::string_view piece = chunk.substr(0, newline);
      if (!skipping_long_line_) pending_.append(piece);
      if (pending_.size() > kMaxLineBytes && !skipping_long_line_) {
        skipping_long_line_ = true;
        pending_.clear();
      }
      if (newline == std::string_view::npos) break;
      chunk.remove_prefix(newline + 1);
      ++line_number_;
      if (skipping_long_line_) {
        skipping_long_line_ = false;
        ++garbage_lines_;
        log::Warning("{}:{}: report line longer than {} bytes; skipped", path_.string(),
                     line_number_, kMaxLineBytes);
        continue;
      }
      HandleLine(pending_, out);
      pending_.clear();
    }
  }
  return out;
}

void ReportReader::HandleLine(std::string_view line, std::vector<ReportMessage>& out) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;  // blank lines are fine
  Result<std::optional<ReportMessage>> parsed = ParseReportLine(line);
  if (!parsed) {
    ++garbage_lines_;
    if (garbage_lines_ <= kWarnedGarbageLines) {
      log::Warning("{}:{}: ignoring a report line: {}: '{}'", path_.string(), line_number_,
                   parsed.error().message, line.substr(0, 80));
    }
    if (garbage_lines_ == kWarnedGarbageLines) {
      log::Warning("{}: further garbage report lines are counted, not shown", path_.string());
    }
    return;
  }
  if (!*parsed) return;
  ++messages_;
  out.push_back(std::move(**parsed));
}

}  // namespace frugal::run
