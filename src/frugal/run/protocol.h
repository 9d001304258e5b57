#pragma once
// The training-process protocol (docs/protocol.md), version 1: the names both sides agree on.

#include <string_view>

#include "frugal/core/error.h"

namespace frugal::run {

/// Bumped when a change would break a child written against an older version.
inline constexpr int kProtocolVersion = 1;

// Environment given to the child.
inline constexpr std::string_view kEnvRunId = "FRUGAL_RUN_ID";
inline constexpr std::string_view kEnvCheckpointDir = "FRUGAL_CHECKPOINT_DIR";
inline constexpr std::string_view kEnvResumeFrom = "FRUGAL_RESUME_FROM";
inline constexpr std::string_view kEnvReport = "FRUGAL_REPORT";
inline constexpr std::string_view kEnvProtocol = "FRUGAL_PROTOCOL";
inline constexpr std::string_view kEnvSegment = "FRUGAL_SEGMENT";

/// Exit code of `frugal run` after a preemption when an outer scheduler owns the restart:
/// "requeue me" (EX_TEMPFAIL from sysexits.h, which schedulers already treat as transient).
inline constexpr int kRequeueExitCode = static_cast<int>(ErrorCode::kPreempted);

}  // namespace frugal::run
