#pragma once
// A ledger with planted waste on a test cloud whose prices the test declares, so every
// expected saving is computed here by hand from the rule's formula.

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "frugal/audit/audit.h"
#include "frugal/audit/audit_output.h"
#include "frugal/catalog/catalog.h"
#include "frugal/core/atomic_file.h"
#include "support/test_support.h"

namespace frugal::audit::fixture {

using ledger::Timestamp;
using std::chrono::hours;
using std::chrono::minutes;

inline constexpr const char* kTestOffers = R"(apiVersion: frugal/v1
offers:
  - {name: big-a100, cloud: testcloud, region: r1, gpu: A100-80GB, price_per_hour: 4.00}
  - {name: big-a100, cloud: testcloud, region: r1, gpu: A100-80GB, price_per_hour: 1.20, tier: spot, preemptions_per_hour: 0.1}
  - {name: small-l4, cloud: testcloud, region: r1, gpu: L4, price_per_hour: 1.00}
  - {name: tiny-t4, cloud: testcloud, region: r1, gpu: T4, price_per_hour: 0.50}
  - {name: steady-h100, cloud: testcloud, region: r1, gpu: H100-80GB-SXM, price_per_hour: 8.00}
  - {name: steady-h100, cloud: testcloud, region: r1, gpu: H100-80GB-SXM, price_per_hour: 4.80, tier: reserved_1y}
)";

inline ledger::SegmentOffer TestOffer(const std::string& type, const std::string& gpu, double price,
                                      CapacityTier tier = CapacityTier::kOnDemand) {
  ledger::SegmentOffer o;
  o.cloud = "testcloud";
  o.instance_type = type;
  o.region = "r1";
  o.gpu = gpu;
  o.gpu_count = 1;
  o.tier = tier;
  o.price = Rate{Money::FromDollars(price)};
  return o;
}

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;

/// A ledger in a temp dir, the test catalog, and a 90-day window ending 2026-04-01.
class AuditTest : public ::testing::Test {
 protected:
  void SetUp() override {
    frugal::testing::WriteTestFile(dir_ / "offers.yaml", kTestOffers);
    auto c =
        catalog::Catalog::LoadDefault(std::vector<std::filesystem::path>{dir_ / "offers.yaml"});
    ASSERT_TRUE(c) << c.error().message;
    catalog_ = std::make_unique<catalog::Catalog>(std::move(*c));
    auto l = ledger::Ledger::Open((dir_ / "ledger.sqlite").string());
    ASSERT_TRUE(l) << l.error().message;
    ledger_ = std::move(*l);
    options_.now = *ledger::ParseTimestamp("2026-04-01T00:00:00Z");
    options_.since = options_.now - hours(24 * 90);
    options_.catalog = catalog_.get();
  }

  /// A finished run with one segment per (offer, hours, end reason), tagged team=ml unless
  /// `tagged` is false.
  ledger::RunId AddRun(
      const std::string& name, Timestamp start,
      const std::vector<std::tuple<ledger::SegmentOffer, double, ledger::EndReason>>& segments,
      bool tagged = true, const std::string& spec = "", const std::string& team = "ml") {
    ledger::NewRun run;
    run.name = name;
    run.command = "train";
    run.start = start;
    run.spec = spec;
    if (tagged) run.tags.team = team;
    const ledger::RunId id = *ledger_->BeginRun(run);
    Timestamp t = start;
    for (const auto& [offer, h, reason] : segments) {
      const ledger::SegmentId seg = *ledger_->OpenSegment(id, offer, t);
      t += std::chrono::duration_cast<Duration>(std::chrono::duration<double, std::ratio<3600>>(h));
      EXPECT_TRUE(ledger_->CloseSegment(seg, t, reason));
    }
    EXPECT_TRUE(ledger_->FinishRun(id, ledger::RunStatus::kSucceeded, t));
    return id;
  }

  /// Samples every 10 minutes over [from, from + h): utilization and memory as given.
  void AddSamples(ledger::RunId run, Timestamp from, double h, double util, double mem_gib) {
    std::vector<ledger::Sample> samples;
    for (Timestamp t = from; t < from + minutes(static_cast<int>(h * 60)); t += minutes(10)) {
      ledger::Sample s;
      s.time = t;
      s.gpu_util = util;
      s.gpu_mem_bytes = mem_gib * kBytesPerGib;
      samples.push_back(s);
    }
    ASSERT_TRUE(ledger_->AddSamples(run, samples));
  }

  /// Samples every 10 minutes over [from, from + h) with SM and tensor-pipe activity.
  void AddCounterSamples(ledger::RunId run, Timestamp from, double h, double sm, double tensor) {
    std::vector<ledger::Sample> samples;
    for (Timestamp t = from; t < from + minutes(static_cast<int>(h * 60)); t += minutes(10)) {
      ledger::Sample s;
      s.time = t;
      s.gpu_util = 90;
      s.sm_active = sm;
      s.tensor_active = tensor;
      s.gpu_mem_bytes = 60 * kBytesPerGib;
      samples.push_back(s);
    }
    ASSERT_TRUE(ledger_->AddSamples(run, samples));
  }

  void AddCheckpoints(ledger::RunId run, Timestamp from, int n, Duration every) {
    for (int i = 1; i <= n; ++i) {
      ASSERT_TRUE(ledger_->AddEvent(run, std::nullopt, ledger::EventType::kCheckpointCommitted,
                                    from + every * i, {{"bytes", 1000}}));
    }
  }

  double PerMonth(double window_dollars) const { return window_dollars * 30.0 / 90.0; }

  /// Runs the audit with `options_`; its table goes to `report_` for failure messages.
  Result<AuditResult> Audit() {
    auto result = RunAudit(*ledger_, options_);
    if (result) {
      std::ostringstream table;
      WriteAuditTable(*result, table);
      report_ = table.str();
    }
    return result;
  }

  frugal::testing::TempDir dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
  std::unique_ptr<ledger::Ledger> ledger_;
  AuditOptions options_;
  std::string report_;
};

inline const Finding* Find(const AuditResult& r, std::string_view rule) {
  for (const Finding& f : r.findings) {
    if (f.rule == rule) return &f;
  }
  return nullptr;
}

/// The finding's saving per month is `dollars`, to the cent.
inline void ExpectCents(const Finding* f, double dollars) {
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(f->saving_per_month) << f->rule << ": " << f->saving_basis;
  EXPECT_NEAR(f->saving_per_month->dollars(), dollars, 0.005) << f->rule << ": " << f->saving_basis;
}

/// How many findings each rule produced.
inline std::map<std::string, int> CountByRule(const AuditResult& r) {
  std::map<std::string, int> by_rule;
  for (const Finding& f : r.findings) ++by_rule[f.rule];
  return by_rule;
}

inline void ExpectSaving(const Finding* f, double dollars) {
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(f->saving_per_month) << f->rule << ": " << f->saving_basis;
  EXPECT_NEAR(f->saving_per_month->dollars(), dollars, 0.011) << f->rule << ": " << f->saving_basis;
}

}  // namespace frugal::audit::fixture
