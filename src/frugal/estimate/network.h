#pragma once
// Network bandwidth between the nodes of multi-GPU instances, per cloud and instance type
// (data/catalog/network.csv): what the communication model uses when a job spans nodes.
// Format (CSV, header row, version 1):
//
//   cloud, instance_type, gpu, network_gbps, fabric, source_url, notes
//
// network_gbps is the instance's total inter-node bandwidth in Gbit/s (all NICs together);
// fabric names the technology ("efa", "infiniband", "gpudirect-tcpx", ...).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/core/error.h"

namespace frugal::estimate {

struct NetworkFigure {
  std::string cloud;
  std::string instance_type;
  std::string gpu;  ///< canonical GPU name
  double network_gbps = 0;
  std::string fabric;
  std::string source_url;
};

/// Reads the table. kBadInput names file:line:column on a missing column or a bandwidth that
/// is not a positive number.
[[nodiscard]] Result<std::vector<NetworkFigure>> ReadNetworkTable(
    const std::filesystem::path& path);

/// The shipped table (`<shipped data>/catalog/network.csv`); empty when the file is absent.
[[nodiscard]] Result<std::vector<NetworkFigure>> LoadShippedNetworkTable();

/// The figure for one offer's instance type on a cloud; nullopt when the table has none.
[[nodiscard]] std::optional<double> NetworkGbpsFor(const std::vector<NetworkFigure>& table,
                                                   std::string_view cloud,
                                                   std::string_view instance_type);

/// The highest figure any cloud lists for a GPU's instances (a cluster built for training
/// that GPU); nullopt when none does.
[[nodiscard]] std::optional<double> BestNetworkGbps(const std::vector<NetworkFigure>& table,
                                                    std::string_view gpu);

}  // namespace frugal::estimate
