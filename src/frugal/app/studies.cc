#include "frugal/app/studies.h"

#include "frugal/tune/study_report.h"
#include "frugal/tune/study_status.h"

namespace frugal::app {

Result<nlohmann::json> StudyListJson(const tune::StudyStore& store) {
  nlohmann::json list = nlohmann::json::array();
  for (const std::string& name : FRUGAL_TRY(store.Names())) {
    const Result<tune::StudyStatus> st = tune::LoadStudyStatus(store, name);
    if (!st) {
      list.push_back({{"name", name}, {"error", st.error().message}});
      continue;
    }
    const nlohmann::json status = tune::StatusJson(st->spec, st->state, st->trials);
    nlohmann::json item = {{"name", name}};
    for (const char* key : {"status", "spend_usd", "gpu_hours", "trials_started", "best_value",
                            "best_config_id", "pruning_saved_usd", "replay"}) {
      if (status.contains(key)) item[key] = status.at(key);
    }
    list.push_back(std::move(item));
  }
  return nlohmann::json{{"studies", std::move(list)}};
}

}  // namespace frugal::app
