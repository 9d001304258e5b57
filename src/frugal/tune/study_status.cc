#include "frugal/tune/study_status.h"

#include <signal.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "frugal/core/atomic_file.h"
#include "frugal/core/file_lock.h"
#include "frugal/core/paths.h"
#include "frugal/core/text.h"
#include "frugal/tune/study_caps.h"

namespace frugal::tune {

namespace fs = std::filesystem;

fs::path StudyDir(const std::string& name) { return UserDataDir() / "studies" / name; }

bool TunerAlive(const std::string& name) {
  std::error_code ec;
  const fs::path lock = StudyDir(name) / "study.lock";
  if (!fs::exists(lock, ec)) return true;
  const Result<std::string> text = ReadFile(lock);
  if (!text) return true;
  const auto pid = ParseInt(Trim(*text));
  if (!pid || *pid <= 0) return true;
  return ::kill(static_cast<pid_t>(*pid), 0) == 0 || errno == EPERM;
}

Result<int> PauseStudy(const std::string& name) {
  if (!IsStudyName(name)) {
    return Fail(ErrorCode::kBadInput, "study name '" + name + "': " + kStudyNameRule);
  }
  const std::optional<int> pid = FileLock::Holder(StudyDir(name) / "study.lock");
  if (!pid) {
    return Fail(ErrorCode::kBadInput,
                "no tuner is running study '" + name + "' on this host (nothing to pause)");
  }
  if (::kill(*pid, SIGINT) != 0) {
    return Fail(ErrorCode::kFailed, "cannot signal the tuner of study '" + name + "' (pid " +
                                        std::to_string(*pid) + "): " + std::strerror(errno));
  }
  return *pid;
}

Result<StudyStatus> LoadStudyStatus(const StudyStore& store, const std::string& name) {
  StudyStatus st;
  st.state = FRUGAL_TRY(store.Load(name));
  if (st.state.value("status", "") == "running" && !TunerAlive(name)) {
    st.state["status"] = "interrupted";
    st.interrupted = true;
  }
  st.spec =
      FRUGAL_TRY(ParseStudySpec(st.state.value("spec_yaml", ""), st.state.value("spec_source", ""),
                                st.state.value("spec_base", "")));
  FRUGAL_TRY(ApplySavedCaps(st.spec, st.state));
  for (const auto& j : st.state.at("trials")) st.trials.push_back(FRUGAL_TRY(TrialFromJson(j)));
  if (st.state.value("status", "") == "interrupted") {
    // No tuner runs it (killed, or stopped and saved as interrupted): the trials it left
    // running stopped with it, on their checkpoints, and wait for the resume (their ledger
    // runs say paused too).
    int64_t waiting = 0;
    for (Trial& t : st.trials) {
      if (t.state != TrialState::kRunning) continue;
      t.state = TrialState::kPaused;
      ++waiting;
    }
    nlohmann::json& counts = st.state["summary"]["trials"];
    if (waiting > 0 && counts.is_object()) {
      counts["running"] = counts.value("running", int64_t{0}) - waiting;
      counts["paused"] = counts.value("paused", int64_t{0}) + waiting;
    }
  }
  return st;
}

nlohmann::json TrialCurvesJson(const StudyStatus& status) {
  const bool maximize = status.spec.objective.direction == Direction::kMaximize;
  const RungLadder ladder = status.spec.Ladder();
  nlohmann::json trials = nlohmann::json::array();
  for (const Trial& t : status.trials) {
    nlohmann::json values = nlohmann::json::array();
    for (size_t k = 0; k < ladder.fidelities.size(); ++k) {
      if (k >= t.rung_losses.size() || std::isnan(t.rung_losses[k])) {
        values.push_back(nullptr);
      } else {
        values.push_back(maximize ? -t.rung_losses[k] : t.rung_losses[k]);
      }
    }
    trials.push_back({{"trial", t.id},
                      {"config_id", t.source_id.empty() ? std::to_string(t.id) : t.source_id},
                      {"state", TrialStateName(t.state)},
                      {"spend_usd", t.spend.dollars()},
                      {"values", std::move(values)}});
  }
  return {{"fidelity", status.spec.fidelity.name},
          {"direction", maximize ? "maximize" : "minimize"},
          {"rungs", ladder.fidelities},
          {"trials", std::move(trials)}};
}

}  // namespace frugal::tune
