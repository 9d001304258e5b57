#include "frugal/core/csv.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

TEST(CsvTable, ParsesQuotedFieldsAndTracksLocations) {
  auto t = CsvTable::Parse("a,b,c\n1,\"x, \"\"y\"\"\",3\r\n\n4,\"multi\nline\",6\n", "f.csv");
  ASSERT_TRUE(t.has_value()) << t.error().message;
  ASSERT_EQ(t->rows().size(), 2u);
  EXPECT_EQ(t->rows()[0].fields[1], "x, \"y\"");
  EXPECT_EQ(t->rows()[0].fields[2], "3");
  EXPECT_EQ(t->rows()[1].line, 4);
  EXPECT_EQ(t->rows()[1].fields[1], "multi\nline");
  EXPECT_EQ(t->Where(t->rows()[0], 2), "f.csv:2:14");
  EXPECT_EQ(*t->RequireColumn("c"), 2u);
}

TEST(CsvTable, ReportsMissingColumnsAndUnterminatedQuotes) {
  auto t = CsvTable::Parse("a,b\n1,2\n", "f.csv");
  ASSERT_TRUE(t.has_value());
  auto missing = t->RequireColumn("Price");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message, "f.csv:1: missing column 'Price'");

  auto bad = CsvTable::Parse("a,b\n1,\"open\n", "g.csv");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message, "g.csv:2:3: unterminated quoted field");
  EXPECT_EQ(bad.error().code, ErrorCode::kBadInput);
  EXPECT_FALSE(CsvTable::Parse("", "e.csv").has_value());
}

TEST(CsvTable, ShortRowsYieldEmptyFields) {
  auto t = CsvTable::Parse("a,b,c\n1\n", "f.csv");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(CsvTable::Field(t->rows()[0], 2), "");
}

TEST(CsvTable, RequireColumnRefusesAColumnNamedTwice) {
  auto t = CsvTable::Parse("Price,Region,Price\n1,a,2\n", "f.csv");
  ASSERT_TRUE(t.has_value());
  auto r = t->RequireColumn("Price");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message, "f.csv:1:14: column 'Price' appears twice");
  EXPECT_EQ(*t->RequireColumn("Region"), 1u);
}

TEST(CsvTable, RequireFullRowsNamesTheFirstShortOrLongRow) {
  auto full = CsvTable::Parse("a,b,c\r\n1,2,3\r\n", "f.csv");
  ASSERT_TRUE(full.has_value());
  EXPECT_TRUE(full->RequireFullRows().has_value());
  auto cut = CsvTable::Parse("a,b,c\n1,2,3\n4,5\n6,7,8,9\n", "f.csv");
  ASSERT_TRUE(cut.has_value());
  auto r = cut->RequireFullRows();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("f.csv:3: 2 fields, the header has 3"), std::string::npos)
      << r.error().message;
}

TEST(CsvEscape, QuotesOnlyWhenNeeded) {
  EXPECT_EQ(CsvEscape("plain"), "plain");
  EXPECT_EQ(CsvEscape("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvEscape("say \"hi\""), "\"say \"\"hi\"\"\"");
}

}  // namespace
}  // namespace frugal
