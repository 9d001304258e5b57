#include "frugal/tune/replay_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "support/test_support.h"

namespace frugal::tune {
namespace {

constexpr const char* kConfigs = "config_id,lr\n1,0.01\n2,0.1\n";

/// Writes `configs` and `curves` into a fresh directory and loads them for `score` by `epoch`.
class ReplayTableTest : public ::testing::Test {
 protected:
  Result<ReplayTable> Load(const std::string& configs, const std::string& curves) {
    frugal::testing::WriteTestFile(dir_ / "configs.csv", configs);
    frugal::testing::WriteTestFile(dir_ / "curves.csv", curves);
    return ReplayTable::Load(ReplaySource{dir_.path(), "config_id", "elapsed_s"}, "score", "epoch");
  }
  std::string CurvesAt(const std::string& where) const {
    return (dir_ / "curves.csv").string() + ":" + where;
  }
  std::string ConfigsAt(const std::string& where) const {
    return (dir_ / "configs.csv").string() + ":" + where;
  }

  frugal::testing::TempDir dir_;
};

TEST_F(ReplayTableTest, AValidTableLoadsWithEachConfigsOwnCumulativeCost) {
  // Rows of the two configs interleave: config 2's first cost is below config 1's last, and a
  // first evaluation may cost nothing.
  auto table = Load(kConfigs,
                    "config_id,epoch,elapsed_s,score\n"
                    "1,1,10,0.5\n"
                    "2,1,0,0.4\n"
                    "1,2,20,0.6\n"
                    "2,2,5,nan\n");
  ASSERT_TRUE(table) << table.error().message;
  ASSERT_EQ(table->configs().size(), 2u);
  const ReplayConfig& first = table->configs()[0];
  ASSERT_EQ(first.curve.size(), 2u);
  EXPECT_DOUBLE_EQ(first.curve[1].cost_seconds, 20.0);
  EXPECT_FALSE(first.fails);
  const ReplayConfig& second = table->configs()[1];
  ASSERT_EQ(second.curve.size(), 2u);
  EXPECT_DOUBLE_EQ(second.curve[0].cost_seconds, 0.0);
  EXPECT_TRUE(second.fails);
}

// A cumulative cost that decreases (even while positive), is negative at a configuration's
// first point (no previous one to compare with), or is not a finite number is bad input at its
// line and field.
TEST_F(ReplayTableTest, ABadCostIsBadInputNamingFileLineAndField) {
  const struct {
    const char* rows;
    const char* where;
  } cases[] = {
      {"1,1,10,0.5\n2,1,1,0.4\n1,2,-5,0.6\n",
       "4:5: field 'elapsed_s': -5 is below the previous point's 10 (a cumulative cost must not "
       "decrease)"},
      {"1,1,10,0.5\n1,2,20,0.6\n1,3,15.5,0.7\n",
       "4:5: field 'elapsed_s': 15.5 is below the previous point's 20 (a cumulative cost must "
       "not decrease)"},
      {"1,1,10,0.5\n2,1,-0.25,0.4\n",
       "3:5: field 'elapsed_s': -0.25 must not be negative (a cost is the seconds spent so far)"},
      {"1,1,inf,0.5\n", "2:5: field 'elapsed_s': 'inf' is not a number"},
      {"1,1,nan,0.5\n", "2:5: field 'elapsed_s': 'nan' is not a number"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.rows);
    auto table = Load(kConfigs, std::string("config_id,epoch,elapsed_s,score\n") + c.rows);
    ASSERT_FALSE(table);
    EXPECT_EQ(table.error().code, ErrorCode::kBadInput);
    EXPECT_EQ(table.error().message, CurvesAt(c.where));
  }
}

TEST_F(ReplayTableTest, AConfigsRowWithFewerOrMoreFieldsThanTheHeaderIsBadInput) {
  const std::string curves = "config_id,epoch,elapsed_s,score\n1,1,10,0.5\n";
  auto short_row = Load("config_id,lr,width\n1,0.01,32\n2,0.1\n", curves);
  ASSERT_FALSE(short_row);
  EXPECT_EQ(short_row.error().code, ErrorCode::kBadInput);
  EXPECT_NE(short_row.error().message.find(ConfigsAt("3: 2 fields, the header has 3")),
            std::string::npos)
      << short_row.error().message;

  auto long_row = Load("config_id,lr\n1,0.01,32\n", curves);
  ASSERT_FALSE(long_row);
  EXPECT_EQ(long_row.error().code, ErrorCode::kBadInput);
  EXPECT_NE(long_row.error().message.find(ConfigsAt("2: 3 fields, the header has 2")),
            std::string::npos)
      << long_row.error().message;
}

TEST_F(ReplayTableTest, ACurvesRowWithMoreFieldsThanTheHeaderIsBadInput) {
  auto table = Load(kConfigs,
                    "config_id,epoch,elapsed_s,score\n"
                    "1,1,10,0.5\n"
                    "1,2,20,0.6,0.7\n");
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().code, ErrorCode::kBadInput);
  EXPECT_NE(table.error().message.find(CurvesAt("3: 5 fields, the header has 4")),
            std::string::npos)
      << table.error().message;
}

TEST_F(ReplayTableTest, ACurvesRowShortOfAnUnusedColumnIsBadInput) {
  // The row has every column the replay reads; the missing last one would otherwise pass.
  auto table = Load(kConfigs,
                    "config_id,epoch,elapsed_s,score,train_loss\n"
                    "1,1,10,0.5,2.0\n"
                    "1,2,20,0.6\n");
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().code, ErrorCode::kBadInput);
  EXPECT_NE(table.error().message.find(CurvesAt("3: 4 fields, the header has 5")),
            std::string::npos)
      << table.error().message;
}

TEST_F(ReplayTableTest, AConfigWithNoCurveRowsIsBadInputNamingItsConfigsLine) {
  // Config 2 has a configs.csv row but no evaluation: it would replay as a trial that
  // "completes" with no result.
  auto table = Load(kConfigs, "config_id,epoch,elapsed_s,score\n1,1,10,0.5\n1,2,20,0.6\n");
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(table.error().message.rfind(ConfigsAt("3:1: config '2' has no rows in curves.csv"), 0),
            0u)
      << table.error().message;
}

TEST_F(ReplayTableTest, AConfigMarkedFailedMayHaveNoCurveRowsAndFailsAtOnce) {
  // The shared AlexNet table has such rows: runs that diverged before their first evaluation.
  const std::string curves = "config_id,epoch,elapsed_s,score\n1,1,10,0.5\n";
  for (const char* configs : {"config_id,lr,status\n1,0.01,OK\n2,0.1,diverged\n",
                              "config_id,lr,nan_train_loss\n1,0.01,0\n2,0.1,1\n"}) {
    SCOPED_TRACE(configs);
    auto table = Load(configs, curves);
    ASSERT_TRUE(table) << table.error().message;
    EXPECT_FALSE(table->configs()[0].fails);
    EXPECT_TRUE(table->configs()[1].curve.empty());
    EXPECT_TRUE(table->configs()[1].fails);
  }
}

// pandas writes NaN as an empty cell and a loss that overflowed reads `inf`: like `nan`, each is
// an evaluation that diverged, so the configuration fails there, having paid for it.
TEST_F(ReplayTableTest, AnEmptyOrInfiniteMetricIsADivergenceLikeNan) {
  for (const char* cell : {"nan", "NaN", "", " ", "inf", "-inf", "+inf", "Infinity", "-nan"}) {
    SCOPED_TRACE(std::string("cell '") + cell + "'");
    auto table = Load(kConfigs, std::string("config_id,epoch,elapsed_s,score\n"
                                            "1,1,10,0.5\n1,2,20,") +
                                    cell + "\n1,3,30,0.7\n2,1,5,0.4\n");
    ASSERT_TRUE(table) << table.error().message;
    const ReplayConfig& first = table->configs()[0];
    EXPECT_TRUE(first.fails);
    ASSERT_EQ(first.curve.size(), 2u);
    EXPECT_TRUE(std::isnan(first.curve[1].value));
    EXPECT_DOUBLE_EQ(first.curve[1].cost_seconds, 20.0);
    EXPECT_FALSE(table->configs()[1].fails);
  }
}

TEST_F(ReplayTableTest, AMetricThatIsNotANumberIsStillBadInput) {
  auto table = Load(kConfigs, "config_id,epoch,elapsed_s,score\n1,1,10,0.5\n2,1,5,high\n");
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(table.error().message, CurvesAt("3:7: field 'score': 'high' is not a number"));
}

}  // namespace
}  // namespace frugal::tune

namespace frugal::tune {
namespace {

// Find is an index built once by Load: it must answer as a scan of configs() does, for every
// id (ids that are prefixes of others included), for ids not in the table, and in a copy.
TEST_F(ReplayTableTest, FindAnswersAsAScanOfTheConfigurationsDoes) {
  std::string configs = "config_id,lr\n";
  std::string curves = "config_id,epoch,elapsed_s,score\n";
  for (int i = 0; i < 150; ++i) {
    configs += std::to_string(i * 7) + "," + std::to_string(0.001 * i) + "\n";
    curves += std::to_string(i * 7) + ",1,10,0.5\n";
  }
  auto table = Load(configs, curves);
  ASSERT_TRUE(table) << table.error().message;
  auto scan = [&](const std::string& id) -> std::optional<size_t> {
    for (size_t i = 0; i < table->configs().size(); ++i)
      if (table->configs()[i].id == id) return i;
    return std::nullopt;
  };
  const ReplayTable copy = table->WithFinalValues(1);
  for (int n = -1; n < 1100; ++n) {
    const std::string id = std::to_string(n);
    EXPECT_EQ(table->Find(id), scan(id)) << id;
    EXPECT_EQ(copy.Find(id), scan(id)) << id;
  }
  EXPECT_EQ(table->Find(" 7"), std::nullopt);
  EXPECT_EQ(table->Find(""), std::nullopt);
  EXPECT_EQ(table->Find("14"), std::optional<size_t>(2));
}

}  // namespace
}  // namespace frugal::tune
