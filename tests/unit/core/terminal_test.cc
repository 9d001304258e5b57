#include "frugal/core/terminal.h"

#include <gtest/gtest.h>

#include <sstream>

namespace frugal {
namespace {

TerminalInfo SmartTerminal(size_t columns) {
  TerminalInfo t;
  t.is_terminal = true;
  t.columns = columns;
  return t;
}

TEST(ElideToWidth, CutsByCharactersNeverInsideAUtf8Sequence) {
  EXPECT_EQ(ElideToWidth("short", 10), "short");
  EXPECT_EQ(ElideToWidth("0123456789", 10), "0123456789");
  EXPECT_EQ(ElideToWidth("0123456789ab", 10), "0123456...");
  // "·" and "é" are two bytes each, one column each: ten characters fit in ten columns.
  const std::string dots = "a·b·c·d·e·";
  EXPECT_EQ(ElideToWidth(dots, 10), dots);
  EXPECT_EQ(ElideToWidth(dots + "f", 10), "a·b·c·d...");
  EXPECT_EQ(ElideToWidth("ééééééé", 5), "éé...");
  // A stray byte counts one column and is never glued to the mark.
  EXPECT_EQ(ElideToWidth("ab\xff"
                         "cdef",
                         6),
            "ab\xff...");
  EXPECT_EQ(ElideToWidth("abcdef", 2), "..");
  // Colour takes no column, and a cut never leaves the rest of the line coloured.
  EXPECT_EQ(ElideToWidth("ab\x1b[32mcd\x1b[0m", 4), "ab\x1b[32mcd\x1b[0m");
  EXPECT_EQ(ElideToWidth("ab\x1b[32mcdefgh\x1b[0m", 6), "ab\x1b[32mc\x1b[0m...");
}

TEST(ParseColorMode, TakesTheThreeWordsAndNamesTheFlagOtherwise) {
  EXPECT_EQ(*ParseColorMode("auto"), ColorMode::kAuto);
  EXPECT_EQ(*ParseColorMode("always"), ColorMode::kAlways);
  EXPECT_EQ(*ParseColorMode("never"), ColorMode::kNever);
  const Result<ColorMode> bad = ParseColorMode("yes");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::kBadInput);
  EXPECT_NE(bad.error().message.find("--color"), std::string::npos);
}

TEST(LinePrinter, WritesNoStatusLineToAStreamThatIsNoTerminal) {
  std::ostringstream out;
  LinePrinter printer(out, TerminalInfo{});
  EXPECT_FALSE(printer.smart());
  EXPECT_FALSE(printer.Status("step 5"));
  printer.Clear();
  printer.Line("done");
  EXPECT_EQ(out.str(), "done\n");
}

TEST(LinePrinter, OverprintsOneLineElidedToTheTerminalsWidth) {
  std::ostringstream out;
  {
    LinePrinter printer(out, SmartTerminal(12));
    ASSERT_TRUE(printer.Status("seg 1 running step 120"));
    EXPECT_EQ(out.str(), "\r\x1b[Kseg 1 ru...");
    out.str("");
    printer.Status("a\nb\tc\x1b[31md\x1b[0m");  // control characters would break the line
    EXPECT_EQ(out.str(), "\r\x1b[Ka b c\x1b[31md\x1b[0m");
    out.str("");
    printer.Line("result");
    EXPECT_EQ(out.str(), "\r\x1b[Kresult\n");
    out.str("");
    printer.Status("again");
  }
  // Going away, it leaves no status line behind.
  EXPECT_EQ(out.str(), "\r\x1b[Kagain\r\x1b[K");
}

TEST(LinePrinter, ADumbTerminalGetsPlainOutput) {
  std::ostringstream out;
  TerminalInfo dumb = SmartTerminal(80);
  dumb.dumb = true;
  LinePrinter printer(out, dumb);
  EXPECT_FALSE(printer.Status("x"));
  EXPECT_EQ(out.str(), "");
}

TEST(LinePrinter, ColoursByTheFlagAndNoColor) {
  std::ostringstream out;
  TerminalInfo no_color = SmartTerminal(80);
  no_color.no_color = true;
  EXPECT_TRUE(LinePrinter(out, SmartTerminal(80)).colored());
  EXPECT_FALSE(LinePrinter(out, no_color).colored());
  EXPECT_FALSE(LinePrinter(out, TerminalInfo{}).colored());               // a file
  EXPECT_TRUE(LinePrinter(out, no_color, ColorMode::kAlways).colored());  // the flag wins
  EXPECT_TRUE(LinePrinter(out, TerminalInfo{}, ColorMode::kAlways).colored());
  EXPECT_FALSE(LinePrinter(out, SmartTerminal(80), ColorMode::kNever).colored());
  EXPECT_EQ(LinePrinter(out, SmartTerminal(80)).Painted("ok", Paint::kGreen), "\x1b[32mok\x1b[0m");
  EXPECT_EQ(LinePrinter(out, SmartTerminal(80), ColorMode::kNever).Painted("ok", Paint::kGreen),
            "ok");
}

}  // namespace
}  // namespace frugal
