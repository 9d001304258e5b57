// frugal plan with the data's location, end to end: an 800 GB dataset in aws ap-south-1 over
// the whole shipped catalog. Every option pays egress by route (data/transfer/) and the
// ranking keeps the winner in that region unless another option is cheaper with it included.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/test_support.h"

namespace frugal {
namespace {

using testing::RunFrugal;
using testing::SourceDir;
using testing::TempDir;

const std::string kExample = (SourceDir() / "examples" / "plan" / "data-in-mumbai.yaml").string();

nlohmann::json Plan(const std::string& spec, const TempDir& home) {
  const auto r = RunFrugal({"--json", "plan", spec, "--top", "100000"}, home.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

/// The shipped transfer prices per cloud: (inter-region, internet) dollars per GB.
std::map<std::string, std::pair<double, double>> TransferPrices() {
  std::istringstream in(
      testing::ReadTestFile(SourceDir() / "data" / "transfer" / "transfer_prices.csv"));
  std::map<std::string, std::pair<double, double>> prices;
  std::string line;
  std::getline(in, line);  // header: cloud, inter_region, internet, storage, ...
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string cloud, inter, internet;
    std::getline(row, cloud, ',');
    std::getline(row, inter, ',');
    std::getline(row, internet, ',');
    prices[cloud] = {std::stod(inter), std::stod(internet)};
  }
  return prices;
}

TEST(PlanDataLocality, EightHundredGbInMumbaiTrainsThereUnlessEgressIncludedIsCheaper) {
  TempDir home;
  const auto prices = TransferPrices();
  const auto doc = Plan(kExample, home);
  ASSERT_GT(doc["options"].size(), 10u);
  EXPECT_EQ(doc["data"]["location"], "aws:ap-south-1");
  EXPECT_DOUBLE_EQ(doc["data"]["gb"].get<double>(), 800);
  const auto [inter, internet] = prices.at("aws");
  double best_here = INFINITY;
  for (const auto& o : doc["options"]) {
    const bool here = o["cloud"] == "aws" && o["region"] == "ap-south-1";
    const double egress = here ? 0 : o["cloud"] == "aws" ? inter : internet;
    // Egress is size × the route's price per GB, on top of the compute.
    EXPECT_NEAR(o["data_cost_usd"].get<double>(), 800 * egress, 1e-6) << o.dump();
    EXPECT_EQ(o["data"]["route"], here                  ? "same_region"
                                  : o["cloud"] == "aws" ? "inter_region"
                                                        : "internet");
    // Staging at the offer's bandwidth: 800 GB × 8 / 10 Gb/s = 640 s on AWS and GCP.
    if (o["cloud"] == "aws" || o["cloud"] == "gcp") {
      EXPECT_NEAR(o["data_seconds"].get<double>(), 640, 1e-6) << o.dump();
    }
    if (here) best_here = std::min(best_here, o["expected_cost_usd"].get<double>());
  }
  const auto& winner = doc["options"][0];
  const double won = winner["expected_cost_usd"].get<double>();
  const double compute = won - winner["data_cost_usd"].get<double>();
  std::cout << "winner " << winner["cloud"] << " " << winner["instance_type"] << " "
            << winner["region"] << ": compute $" << compute << " + data $"
            << winner["data_cost_usd"] << " = $" << won << "; best in aws:ap-south-1 $" << best_here
            << "\n";
  // The winner is in ap-south-1, or cheaper than every option there with its egress included.
  if (winner["region"] != "ap-south-1" || winner["cloud"] != "aws") {
    EXPECT_LT(won, best_here);
  } else {
    EXPECT_DOUBLE_EQ(won, best_here);
    EXPECT_EQ(winner["data_cost_usd"].get<double>(), 0);
  }

  // Without the data section the same job is cheapest elsewhere: the location moved it.
  const std::string text = testing::ReadTestFile(kExample);
  testing::WriteTestFile(home / "no-data.yaml", text.substr(0, text.find("\ndata:")) + "\n");
  const auto bare = Plan((home / "no-data.yaml").string(), home);
  const auto& elsewhere = bare["options"][0];
  EXPECT_NE(elsewhere["region"], "ap-south-1");
  EXPECT_EQ(elsewhere["data_cost_usd"].get<double>(), 0);
  EXPECT_TRUE(bare["data"].is_null());
  // That option, planned with the data, pays its egress on top: 800 GB at the internet or
  // inter-region price.
  for (const auto& o : doc["options"]) {
    if (o["cloud"] != elsewhere["cloud"] || o["instance_type"] != elsewhere["instance_type"] ||
        o["region"] != elsewhere["region"]) {
      continue;
    }
    const double egress = 800 * (o["cloud"] == "aws" ? inter : internet);
    std::cout << "without the data section " << o["instance_type"] << " " << o["region"]
              << " wins at $" << elsewhere["expected_cost_usd"] << "; with 800 GB in Mumbai it "
              << "costs $" << o["expected_cost_usd"] << " (+ $" << egress << " egress)\n";
    EXPECT_NEAR(o["data_cost_usd"].get<double>(), egress, 1e-6);
    EXPECT_GT(o["expected_cost_usd"].get<double>(), won);
  }
}

TEST(PlanDataLocality, TheTableShowsDataCostAndTimeAndTheAdviceShowsTheArithmetic) {
  TempDir home;
  const auto r = RunFrugal({"plan", kExample, "--top", "3"}, home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Data: 800 GB read per run from aws:ap-south-1"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("DATA COST"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("DATA TIME"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Training where the data lives (aws:ap-south-1) wins"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("800 GB × $0.0900/GB"), std::string::npos) << r.out;
  // A spec without data keeps the table as it was.
  const auto seed =
      RunFrugal({"plan", (SourceDir() / "examples" / "seed" / "job.yaml").string()}, home.path());
  ASSERT_EQ(seed.exit_code, 0) << seed.err;
  EXPECT_EQ(seed.out.find("DATA COST"), std::string::npos) << seed.out;
}

TEST(PlanDataLocality, SeveralRunsCopyTheDataOnceWhenThatIsCheaper) {
  TempDir home;
  const std::string text = testing::ReadTestFile(kExample);
  testing::WriteTestFile(home / "runs.yaml", text + "  runs: 20\n");
  const auto doc = Plan((home / "runs.yaml").string(), home);
  bool copied = false;
  for (const auto& o : doc["options"]) {
    if (o["data"]["route"] != "copy") continue;
    copied = true;
    const double share =
        (o["data"]["copy_usd"].get<double>() + o["data"]["storage_usd"].get<double>()) / 20;
    EXPECT_NEAR(o["data_cost_usd"].get<double>(), share, 1e-5) << o.dump();
  }
  EXPECT_TRUE(copied);
}

TEST(PlanDataLocality, BadLocationsExitTwoNamingFileLineAndField) {
  TempDir home;
  const std::string text = testing::ReadTestFile(kExample);
  const auto with = [&](const std::string& location) {
    std::string bad = text;
    bad.replace(bad.find("aws:ap-south-1     #"), 14, location);
    testing::WriteTestFile(home / "bad.yaml", bad);
    return RunFrugal({"plan", (home / "bad.yaml").string()}, home.path());
  };
  auto r = with("aws/ap-south-1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.yaml:16:13: field 'location': 'aws/ap-south-1' is not cloud:region"),
            std::string::npos)
      << r.err;
  r = with("aws:ap-south1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.yaml:16:13: field 'location': aws has no region 'ap-south1'"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("did you mean 'ap-south-1'"), std::string::npos) << r.err;
  r = with("amazon:ap-south-1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.yaml:16:13: field 'location': unknown cloud 'amazon'"),
            std::string::npos)
      << r.err;
  // JSON mode: exit 2 as well.
  const auto json = RunFrugal({"--json", "plan", (home / "bad.yaml").string()}, home.path());
  EXPECT_EQ(json.exit_code, 2);
}

}  // namespace
}  // namespace frugal
