#include "frugal/core/terminal.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "frugal/core/text.h"

namespace frugal {
namespace {

constexpr std::string_view kClearLine = "\r\x1b[K";

/// The length of the UTF-8 sequence starting at `text[i]` when it is well-formed, else 1.
size_t SequenceLength(std::string_view text, size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  size_t n = 1;
  if ((lead >> 5) == 0x6) {
    n = 2;
  } else if ((lead >> 4) == 0xE) {
    n = 3;
  } else if ((lead >> 3) == 0x1E) {
    n = 4;
  }
  if (n == 1 || i + n > text.size()) return 1;
  return FirstInvalidUtf8(text.substr(i, n)) ? 1 : n;
}

/// The length of the terminal control sequence (ESC [ parameters final-byte: a colour) at
/// `text[i]`, or 0 when there is none there.
size_t ControlSequenceLength(std::string_view text, size_t i) {
  if (text[i] != '\x1b' || i + 1 >= text.size() || text[i + 1] != '[') return 0;
  for (size_t j = i + 2; j < text.size(); ++j) {
    const auto c = static_cast<unsigned char>(text[j]);
    if (c >= 0x40 && c <= 0x7e) return j + 1 - i;
    if (c < 0x20 || c > 0x3f) return 0;
  }
  return 0;
}

}  // namespace

TerminalInfo ProbeTerminal(int fd) {
  TerminalInfo t;
  t.is_terminal = ::isatty(fd) == 1;
  const char* term = std::getenv("TERM");
  t.dumb = term == nullptr || std::string_view(term) == "dumb";
  const char* no_color = std::getenv("NO_COLOR");
  t.no_color = no_color != nullptr && no_color[0] != '\0';
  winsize size{};
  if (t.is_terminal && ::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    t.columns = size.ws_col;
  } else if (const char* columns = std::getenv("COLUMNS"); columns != nullptr) {
    const int n = std::atoi(columns);
    if (n > 0) t.columns = static_cast<size_t>(n);
  }
  return t;
}

Result<ColorMode> ParseColorMode(std::string_view text) {
  if (text == "auto") return ColorMode::kAuto;
  if (text == "always") return ColorMode::kAlways;
  if (text == "never") return ColorMode::kNever;
  return Fail(ErrorCode::kBadInput,
              fmt::format("option --color: '{}' is not auto, always or never", Abbreviate(text)));
}

std::string ElideToWidth(std::string_view text, size_t columns) {
  constexpr std::string_view kMark = "...";
  size_t characters = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t control = ControlSequenceLength(text, i);
    i += control > 0 ? control : SequenceLength(text, i);
    if (control == 0) ++characters;
  }
  if (characters <= columns) return std::string(text);
  if (columns <= kMark.size()) return std::string(kMark.substr(0, columns));
  // Keep whole characters (and the colour sequences among them, which take no column).
  std::string kept;
  bool painted = false;
  size_t width = 0;
  for (size_t i = 0; i < text.size() && width < columns - kMark.size();) {
    const size_t control = ControlSequenceLength(text, i);
    const size_t n = control > 0 ? control : SequenceLength(text, i);
    kept.append(text.substr(i, n));
    painted = painted || control > 0;
    if (control == 0) ++width;
    i += n;
  }
  if (painted) kept += "\x1b[0m";
  return kept + std::string(kMark);
}

LinePrinter::LinePrinter(std::ostream& out, const TerminalInfo& terminal, ColorMode color)
    : out_(out),
      columns_(terminal.columns),
      smart_(terminal.is_terminal && !terminal.dumb),
      colored_(color == ColorMode::kAlways ||
               (color == ColorMode::kAuto && smart_ && !terminal.no_color)) {}

LinePrinter::~LinePrinter() { Clear(); }

std::string LinePrinter::Painted(std::string_view text, Paint paint) const {
  if (!colored_) return std::string(text);
  const char* code = paint == Paint::kGreen    ? "32"
                     : paint == Paint::kYellow ? "33"
                     : paint == Paint::kRed    ? "31"
                                               : "1";
  return fmt::format("\x1b[{}m{}\x1b[0m", code, text);
}

bool LinePrinter::Status(std::string_view text) {
  if (!smart_) return false;
  // Control characters would break the line; colour sequences are kept.
  std::string line;
  for (size_t i = 0; i < text.size();) {
    if (const size_t control = ControlSequenceLength(text, i); control > 0) {
      line.append(text.substr(i, control));
      i += control;
      continue;
    }
    const auto c = static_cast<unsigned char>(text[i++]);
    line.push_back(c < 0x20 || c == 0x7f ? ' ' : static_cast<char>(c));
  }
  // One column short of the width: a line that fills the last column wraps on some terminals.
  out_ << kClearLine << ElideToWidth(line, columns_ > 1 ? columns_ - 1 : 1) << std::flush;
  drawn_ = true;
  return true;
}

void LinePrinter::Line(std::string_view text) {
  Clear();
  out_ << text << '\n';
}

void LinePrinter::Clear() {
  if (!drawn_) return;
  out_ << kClearLine << std::flush;
  drawn_ = false;
}

}  // namespace frugal
