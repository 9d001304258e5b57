#pragma once
// Terminal output, as ninja's LinePrinter does it: one status line overprinted in place on a
// smart terminal (elided to the terminal's width so it never wraps), plain lines elsewhere, and
// colour by --color auto|always|never and NO_COLOR (https://no-color.org). What the output
// goes to is described by a TerminalInfo the program probes once for its stderr
// (ProbeTerminal) and hands down with the stream, so code writing to an injected stream never
// asks isatty(2) about a stream that is not fd 2.

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "frugal/core/error.h"

namespace frugal {

/// What an output stream is attached to.
struct TerminalInfo {
  bool is_terminal = false;  ///< a tty
  bool dumb = false;         ///< TERM is dumb (the cursor cannot be moved)
  size_t columns = 80;       ///< its width (the window's, else $COLUMNS, else 80)
  bool no_color = false;     ///< NO_COLOR is set to something
};

/// Probes file descriptor `fd`: isatty, the window's width (TIOCGWINSZ; $COLUMNS when the
/// terminal does not say), TERM and NO_COLOR.
[[nodiscard]] TerminalInfo ProbeTerminal(int fd);

enum class ColorMode { kAuto, kAlways, kNever };
/// "auto", "always" or "never"; kBadInput naming --color otherwise.
[[nodiscard]] Result<ColorMode> ParseColorMode(std::string_view text);

/// `text` cut to at most `columns` characters (one column per UTF-8 code point), the cut marked
/// with "..." and never inside a UTF-8 sequence. Invalid bytes count one column each; colour
/// sequences (ESC [ ... m) none, and a cut text that has one ends with a colour reset.
[[nodiscard]] std::string ElideToWidth(std::string_view text, size_t columns);

enum class Paint { kGreen, kYellow, kRed, kBold };

/// Writes status lines and lines to one stream (borrowed; it must outlive the printer).
class LinePrinter {
 public:
  LinePrinter(std::ostream& out, const TerminalInfo& terminal, ColorMode color = ColorMode::kAuto);
  ~LinePrinter();
  LinePrinter(const LinePrinter&) = delete;
  LinePrinter& operator=(const LinePrinter&) = delete;

  /// A terminal that can overprint: a tty whose TERM is not dumb.
  [[nodiscard]] bool smart() const { return smart_; }
  /// Whether Painted() colours: --color always; auto on a smart terminal without NO_COLOR.
  [[nodiscard]] bool colored() const { return colored_; }
  /// `text` in `paint` when colouring, else as it is.
  [[nodiscard]] std::string Painted(std::string_view text, Paint paint) const;

  /// On a smart terminal, replaces the status line with `text` (elided to the width, control
  /// characters shown as spaces) and returns true; elsewhere writes nothing and returns false
  /// (the caller decides whether, and how often, to write a plain line).
  bool Status(std::string_view text);
  /// Writes `text` and a newline, below the status line (which it clears first).
  void Line(std::string_view text);
  /// Clears the status line, if one is drawn.
  void Clear();

 private:
  std::ostream& out_;
  size_t columns_;
  bool smart_;
  bool colored_;
  bool drawn_ = false;
};

}  // namespace frugal
