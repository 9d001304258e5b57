// End-to-end: `frugal estimate --profile NAME` predicts from what the ledger holds under NAME:
// profiles taken on real GPUs (their NVML names mapped to the GPU table), the newest of each
// GPU model, carried to the GPU asked for, saying which run and when.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "frugal/ledger/ledger.h"
#include "frugal/ledger/profiles.h"
#include "support/test_support.h"

namespace frugal {
namespace {

using frugal::testing::RunFrugal;
using frugal::testing::TempDir;
using nlohmann::json;

/// A profile as a GPU machine records it (frugal profile or a supervised run there).
ledger::NewProfile OnGpu(const std::string& device, double samples_per_second, int64_t at_ms) {
  ledger::NewProfile p;
  p.name = "resnet50";
  p.time = ledger::FromMillis(at_ms);
  p.command = "python3 train.py";
  p.device = device;
  p.device_kind = "gpu";
  p.wall = std::chrono::seconds(90);
  p.measured = std::chrono::seconds(60);
  p.steps = 600;
  p.steps_per_second = samples_per_second / 256;
  p.samples_per_second = samples_per_second;
  p.peak_gpu_memory_bytes = uint64_t{20} << 30;
  p.peak_rss_bytes = uint64_t{4} << 30;
  p.cpu_cores = 2;
  p.ended = "steps";
  return p;
}

TEST(EstimateProfile, PredictsFromTheNewestGpuProfilesOfTheName) {
  TempDir home;
  const std::string db = (home / "ledger.sqlite").string();
  {
    auto ledger = ledger::OpenForCommand(db, ledger::CreateMode::kCreateIfMissing);
    ASSERT_TRUE(ledger) << ledger.error().message;
    for (const ledger::NewProfile& p :
         {OnGpu("NVIDIA A100-SXM4-80GB", 1100, 1'767'225'600'000),         // older, superseded
          OnGpu("NVIDIA A100-SXM4-80GB", 1450, 1'767'312'000'000),         // the newest A100
          OnGpu("NVIDIA GeForce RTX 3090 Ti", 900, 1'767'398'400'000)}) {  // not in the table
      ASSERT_TRUE(ledger::RecordProfile(**ledger, p));
    }
  }
  auto r = RunFrugal({"--db", db, "--json", "estimate", "--profile", "resnet50", "--gpu", "T4",
                      "--family", "cnn", "--dtype", "fp16"},
                     home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  // The same figure as from the flag with the newest A100 measurement.
  auto flag = RunFrugal({"--json", "estimate", "--measured", "A100-80GB=1450", "--gpu", "T4",
                         "--family", "cnn", "--dtype", "fp16"},
                        home.path());
  ASSERT_EQ(flag.exit_code, 0) << flag.err;
  EXPECT_DOUBLE_EQ(doc["throughput_per_second"].get<double>(),
                   json::parse(flag.out)["throughput_per_second"].get<double>());
  EXPECT_EQ(doc["measured_from"]["gpu"], "A100-80GB");
  EXPECT_EQ(doc["measured_from"]["device"], "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(doc["measured_from"]["units"], "samples");
  EXPECT_FALSE(doc["measured_from"]["recorded_at"].get<std::string>().empty());
  ASSERT_EQ(doc["recorded_measurements"].size(), 3u);
  EXPECT_EQ(doc["recorded_measurements"][0]["note"],
            "no GPU in the table matches the device 'NVIDIA GeForce RTX 3090 Ti'");
  EXPECT_TRUE(doc["recorded_measurements"][1]["used"].get<bool>());
  EXPECT_NE(doc["recorded_measurements"][2]["note"].get<std::string>().find("superseded"),
            std::string::npos);
  // A name with nothing usable is bad input naming the flag.
  auto none = RunFrugal({"--db", db, "estimate", "--profile", "nope", "--gpu", "T4"}, home.path());
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("--profile nope"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace frugal
