#pragma once
// A ledger with planted waste on a test cloud whose prices the test declares, so every
// expected saving is computed here by hand from the rule's formula.

#include <gtest/gtest.h>

#include <filesystem>

#include "frugal/audit/audit.h"
#include "frugal/core/atomic_file.h"
#include "support/test_support.h"

namespace frugal::audit::fixture {

inline constexpr const char* kTestOffers = R"(apiVersion: frugal/v1
offers:
  - {name: big-a100, cloud: testcloud, region: r1, gpu: A100-80GB, price_per_hour: 4.00}
  - {name: big-a100, cloud: testcloud, region: r1, gpu: A100-80GB, price_per_hour: 1.20, tier: spot, preemptions_per_hour: 0.1}
  - {name: small-l4, cloud: testcloud, region: r1, gpu: L4, price_per_hour: 1.00}
  - {name: tiny-t4, cloud: testcloud, region: r1, gpu: T4, price_per_hour: 0.50}
  - {name: steady-h100, cloud: testcloud, region: r1, gpu: H100-80GB-SXM, price_per_hour: 8.00}
  - {name: steady-h100, cloud: testcloud, region: r1, gpu: H100-80GB-SXM, price_per_hour: 4.80, tier: reserved_1y}
)";

inline ledger::SegmentOffer TestOffer(const std::string& type, const std::string& gpu,
                                      double price, const std::string& tier = "on_demand") {
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

}  // namespace frugal::audit::fixture
