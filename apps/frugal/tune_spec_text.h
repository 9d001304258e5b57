#pragma once
// How `frugal tune` turns its command line into a study spec: the all-flags replay form, a spec
// file (with --replay), and the note a resume gives when the spec file changed since.

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "frugal/core/error.h"
#include "frugal/tune/replay_table.h"
#include "frugal/tune/study.h"
#include "frugal/tune/study_spec.h"

namespace frugal::cli {

struct TuneOptions {
  std::string spec_path;
  std::string replay_dir;
  std::string metric;
  bool maximize = false;
  bool minimize = false;  // the default, stated
  std::string fidelity = "epoch";
  std::string cost_column = "elapsed_s";
  std::string config_column = "config_id";
  std::string price_per_hour;
  std::string budget;
  std::optional<double> max_gpu_hours;
  std::optional<int64_t> max_trials;
  std::string scheduler = "asha";
  bool scheduler_given = false;  // else the spec's default (none for a small budget)
  std::string sampler = "tpe";
  int workers = 1;
  int64_t seed = 1;
  double grace = 3;
  bool grace_given = false;
  double reduction_factor = 3;
  std::string scale_by;   // "" = a column the table shows to be each row's length; "none": no
  std::string curve_svg;  // write the best-so-far curve (SVG) here
  std::string name;
  bool restart = false;
  std::optional<int64_t> halt_after;
  int64_t save_every_ms = 200;
  std::vector<std::string> flags_form_given;  // flags-form options given on the command line
  std::string study;                          // status, resume
  // resume: new caps (empty: keep the study's)
  tune::CapFlags new_caps;  // resume: new caps (empty: keep the study's)
  std::string check_path;
  std::optional<std::string> override_reason;
};

/// The replay table of `source` for `metric` by `fidelity_column` (ReplayTable::Load), read
/// once per process: the flags form reads it to write the spec, and the study then replays
/// that same table rather than parsing curves.csv again.
[[nodiscard]] Result<std::shared_ptr<const tune::ReplayTable>> LoadReplayTableOnce(
    const tune::ReplaySource& source, const std::string& metric,
    const std::string& fidelity_column);

/// The all-flags replay study as spec YAML, so it is stored and resumed like any other.
[[nodiscard]] Result<tune::SpecText> SpecFromFlags(const TuneOptions& o);
/// The spec file's text, its replay source replaced by --replay when given.
[[nodiscard]] Result<tune::SpecText> SpecFromFile(const TuneOptions& o);
/// A study resumes on the spec it started with; says so when its file has changed since.
void NoteEditedSpec(const nlohmann::json& state, Streams& s);
/// Prints each cap a resume changed ("budget_usd: $100.00 → $150.00"), and what a cap at or
/// below the spend means, on stderr (stdout stays the study's result).
void PrintCapEdits(const std::string& study, const std::vector<tune::CapEdit>& edits,
                   const tune::BudgetGate& gate, Streams& s);

}  // namespace frugal::cli
