#pragma once
// Readers for the job spec's sections beyond the transformer model: the model family, host
// memory, the launch/billing overrides and the data (job_spec.cc calls them). Internal to plan.

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <optional>
#include <string>

#include "frugal/core/error.h"
#include "frugal/core/yaml.h"
#include "frugal/estimate/cross_gpu.h"
#include "frugal/plan/fixed_costs.h"
#include "frugal/plan/job_spec.h"

namespace frugal::plan {

/// `model.family` (default transformer); kBadInput at its line for an unknown name.
[[nodiscard]] Result<estimate::ModelFamily> ReadFamily(const YamlDoc& doc, const YAML::Node& model);

/// `memory: {host_ram_gib: 48}`: the job's peak host RAM, checked against every offer's RAM.
[[nodiscard]] Result<std::optional<double>> ReadHostRam(const YamlDoc& doc, const YAML::Node& root);

/// `fixed_costs: {boot: 5m, setup: 4m, staging_gbps: 25, billing_increment: 1m,
/// minimum_billed: 1m}`: the job's overrides of the clouds' launch and billing defaults.
[[nodiscard]] Result<LaunchOverrides> ReadFixedCosts(const YamlDoc& doc, const YAML::Node& root);

/// `data: {cloud: aws, region: ap-south-1 (or location: aws:ap-south-1), size_gb: 800, runs: 5,
/// keep: 30d, preprocessing: {cache_key, duration, cache: URL or {location, size_gb, url}}}`.
/// An empty DataSpec when absent; kBadInput at the line for a malformed value.
[[nodiscard]] Result<DataSpec> ReadData(const YamlDoc& doc, const YAML::Node& root);

/// `measured: - {profile: NAME, gpu: T4}`: fills `p`'s throughput (tokens or samples per
/// second, by the units recorded) and its source from `profiles_dir`/NAME.json, the record
/// `frugal profile` wrote (format in run/profile.h). kBadInput at the line for a missing or
/// malformed record, or one measured in bare steps.
[[nodiscard]] Result<void> ReadRecordedProfile(const YamlDoc& doc, const YAML::Node& at,
                                               const std::string& name,
                                               const std::filesystem::path& profiles_dir,
                                               MeasuredProfile& p);

}  // namespace frugal::plan
