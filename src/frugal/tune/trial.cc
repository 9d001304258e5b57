#include "frugal/tune/trial.h"

#include <cmath>
#include <limits>

namespace frugal::tune {

namespace {
constexpr std::pair<TrialState, std::string_view> kStateNames[] = {
    {TrialState::kRunning, "running"},
    {TrialState::kPaused, "paused"},
    {TrialState::kCompleted, "completed"},
    {TrialState::kPruned, "pruned"},
    {TrialState::kFailed, "failed"},
    {TrialState::kStoppedAtBudget, "stopped_at_budget"},
    {TrialState::kStoppedAtWall, "stopped_at_wall"},
};
}  // namespace

std::string_view TrialStateName(TrialState state) {
  for (const auto& [s, name] : kStateNames) {
    if (s == state) return name;
  }
  return "unknown";
}

Result<TrialState> ParseTrialState(std::string_view text) {
  for (const auto& [s, name] : kStateNames) {
    if (name == text) return s;
  }
  return Fail(ErrorCode::kBadInput, "unknown trial state '" + std::string(text) + "'");
}

int Trial::RungReached() const {
  for (size_t i = rung_losses.size(); i > 0; --i) {
    if (!std::isnan(rung_losses[i - 1])) return static_cast<int>(i - 1);
  }
  return -1;
}

nlohmann::json TrialToJson(const Trial& t) {
  nlohmann::json losses = nlohmann::json::array();
  for (double l : t.rung_losses) {
    losses.push_back(std::isnan(l) ? nlohmann::json(nullptr) : nlohmann::json(l));
  }
  nlohmann::json doc = {
      {"id", t.id},
      {"config", ConfigToJson(t.config)},
      {"point", t.point},
      {"source_id", t.source_id},
      {"state", TrialStateName(t.state)},
      {"bracket", t.bracket},
      {"target_rung", t.target_rung},
      {"segment_rung", t.segment_rung},
      {"checkpoint_fidelity", t.checkpoint_fidelity},
      {"rung_losses", losses},
      {"last_fidelity", t.last_fidelity},
      {"cost_seconds", t.cost_seconds},
      {"spend_micros", t.spend.micros()},
  };
  if (!t.run_name.empty()) doc["run"] = t.run_name;
  doc["last_value"] = t.last_value ? nlohmann::json(*t.last_value) : nlohmann::json(nullptr);
  return doc;
}

Result<Trial> TrialFromJson(const nlohmann::json& doc) {
  try {
    Trial t;
    t.id = doc.at("id").get<int64_t>();
    for (const auto& [name, value] : doc.at("config").items()) {
      if (value.is_string()) {
        t.config[name] = value.get<std::string>();
      } else if (value.is_number_integer()) {
        t.config[name] = value.get<int64_t>();
      } else {
        t.config[name] = value.get<double>();
      }
    }
    t.point = doc.at("point").get<std::vector<double>>();
    t.source_id = doc.at("source_id").get<std::string>();
    t.state = FRUGAL_TRY(ParseTrialState(doc.at("state").get<std::string>()));
    t.bracket = doc.at("bracket").get<int>();
    t.target_rung = doc.at("target_rung").get<int>();
    t.segment_rung = doc.value("segment_rung", t.target_rung);
    t.checkpoint_fidelity = doc.at("checkpoint_fidelity").get<double>();
    for (const auto& l : doc.at("rung_losses")) {
      t.rung_losses.push_back(l.is_null() ? std::numeric_limits<double>::quiet_NaN()
                                          : l.get<double>());
    }
    if (!doc.at("last_value").is_null()) t.last_value = doc.at("last_value").get<double>();
    t.last_fidelity = doc.at("last_fidelity").get<double>();
    t.cost_seconds = doc.at("cost_seconds").get<double>();
    t.spend = Money::FromMicros(doc.at("spend_micros").get<int64_t>());
    t.run_name = doc.value("run", "");
    return t;
  } catch (const nlohmann::json::exception& e) {
    return Fail(ErrorCode::kBadInput, std::string("trial record: ") + e.what());
  }
}

}  // namespace frugal::tune
