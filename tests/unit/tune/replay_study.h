#pragma once
// The replay study the study tests drive in-process: the synthetic table, an in-memory store,
// and a fixture that writes the table and runs a spec to its end.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "frugal/tune/replay_runner.h"
#include "frugal/tune/study.h"
#include "support/test_support.h"
#include "synthetic_table.h"

namespace frugal::tune {

constexpr int kConfigs = 120;
constexpr int kEpochs = 27;
constexpr double kMaxEpochSeconds = 180.0;  // the synthetic table's dearest epoch

/// A replay study over the synthetic table, driven in-process with an in-memory store.
class ReplayStudy {
 public:
  /// `extra_yaml` may replace the default fidelity and resources.
  ReplayStudy(const std::filesystem::path& dir, const std::string& extra_yaml) {
    text_.yaml = "name: t\nreplay: {dir: '" + dir.string() + "'}\n" +
                 "objective: {metric: score, direction: maximize}\n" + extra_yaml;
    if (extra_yaml.find("fidelity:") == std::string::npos) {
      text_.yaml += "fidelity: {max: 27, grace: 1, reduction_factor: 3}\n";
    }
    if (extra_yaml.find("resources:") == std::string::npos) {
      text_.yaml += "resources: {price_per_hour: 3.60}\n";
    }
    text_.source = "test.yaml";
    auto spec = ParseStudySpec(text_.yaml, text_.source, dir);
    if (!spec) {
      ADD_FAILURE() << spec.error().message;
      std::abort();
    }
    spec_ = *spec;
    table_ = *ReplayTable::Load(*spec_.replay, "score", "epoch");
    runner_ = std::make_unique<ReplayRunner>(table_, spec_.fidelity.max);
  }
  Result<std::unique_ptr<Study>> Create() {
    return Study::Create(text_, spec_, *runner_, store_, &table_);
  }
  /// The study driven through `runner`, which may wrap replay().
  Result<std::unique_ptr<Study>> CreateWith(TrialRunner& runner) {
    return Study::Create(text_, spec_, runner, store_, &table_);
  }
  ReplayRunner& replay() { return *runner_; }
  Result<std::unique_ptr<Study>> Restore() {
    runner_ = std::make_unique<ReplayRunner>(table_, spec_.fidelity.max);
    return Study::Restore(*store_.Load("t"), spec_, *runner_, store_, &table_);
  }
  MemoryStudyStore& store() { return store_; }

 private:
  SpecText text_;
  StudySpec spec_;
  ReplayTable table_;
  std::unique_ptr<ReplayRunner> runner_;
  MemoryStudyStore store_;
};

/// Creates the study and runs it until it halts after `events` progress events, as a killed
/// tuner would leave it (its state saved as interrupted).
inline std::unique_ptr<Study> RunUntilHalted(ReplayStudy& rs, int64_t events) {
  auto study = rs.Create();
  EXPECT_TRUE(study) << study.error().message;
  if (!study) std::abort();
  RunOptions options;
  options.halt_after_events = events;
  auto halted = (*study)->Run(options);
  EXPECT_FALSE(halted);
  if (!halted) {
    EXPECT_EQ(halted.error().code, ErrorCode::kInterrupted);
  }
  return std::move(*study);
}

/// A runner that passes everything to another; tests override what they change.
class ForwardingRunner : public TrialRunner {
 public:
  explicit ForwardingRunner(TrialRunner& inner) : inner_(inner) {}
  Result<void> Launch(const Trial& t, double from, double to) override {
    return inner_.Launch(t, from, to);
  }
  Result<std::optional<Progress>> WaitNext() override { return inner_.WaitNext(); }
  Progress Stop(int64_t id) override { return inner_.Stop(id); }
  double Now() const override { return inner_.Now(); }
  std::optional<double> FullFidelitySeconds(const Trial& t) const override {
    return inner_.FullFidelitySeconds(t);
  }
  nlohmann::json Save() const override { return inner_.Save(); }
  Result<void> Load(const nlohmann::json& state) override { return inner_.Load(state); }

 protected:
  TrialRunner& inner_;
};

class StudyTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::WriteSyntheticTable(dir_.path(), kConfigs, kEpochs); }
  StudySummary RunToEnd(const std::string& yaml) {
    ReplayStudy rs(dir_.path(), yaml);
    auto study = rs.Create();
    EXPECT_TRUE(study) << study.error().message;
    auto summary = (*study)->Run({});
    EXPECT_TRUE(summary) << summary.error().message;
    return *summary;
  }
  frugal::testing::TempDir dir_;
};

}  // namespace frugal::tune
