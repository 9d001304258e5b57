#pragma once
// Small numeric helpers the areas share.

namespace frugal {

/// An int as a double, for arithmetic on counts (layers, GPUs, batch sizes).
[[nodiscard]] constexpr double D(int v) { return static_cast<double>(v); }

/// Bytes in a GiB.
inline constexpr double kGib = 1024.0 * 1024.0 * 1024.0;

}  // namespace frugal
