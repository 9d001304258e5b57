// sha and hyperband: synchronous successive halving in brackets. A bracket starts `size`
// trials at its start rung; rung k closes when every trial sent to it has reported or ended;
// then the best max(1, ⌊n/η⌋) are resumed to rung k+1 and the rest pruned. When every open
// bracket is waiting on a barrier, the next bracket opens so that free workers stay busy.

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "frugal/tune/scheduler.h"

namespace frugal::tune {

namespace {

struct Bracket {
  int id = 0;
  int start_rung = 0;
  int size = 0;
  int planned = 0;  ///< the size it opened with (size shrinks when no more trials may start)
  int started = 0;
  int closed_rung = -1;                       ///< highest rung whose promotion decision was made
  std::vector<std::vector<int64_t>> members;  ///< per rung: trials sent to it
  std::vector<std::vector<std::pair<double, int64_t>>> results;
  std::vector<int> ended;  ///< per rung: members that ended without a result
  std::deque<int64_t> to_resume;
  std::vector<int64_t> gated;  ///< members a gate (budget, wall) stopped: they may come back

  /// Rung k's decision may still send a member on: the next rung is open, or nobody was ever
  /// sent to it (k closed with no result, which ended the bracket).
  bool NextRungOpen(int k) const {
    return k + 1 > closed_rung || members[static_cast<size_t>(k) + 1].empty();
  }
  bool Finished(int top) const { return closed_rung >= top; }
};

void to_json(nlohmann::json& j, const Bracket& b) {
  j = {{"id", b.id},
       {"start_rung", b.start_rung},
       {"size", b.size},
       {"planned", b.planned},
       {"started", b.started},
       {"closed_rung", b.closed_rung},
       {"members", b.members},
       {"results", b.results},
       {"ended", b.ended},
       {"to_resume", std::vector<int64_t>(b.to_resume.begin(), b.to_resume.end())},
       {"gated", b.gated}};
}

void from_json(const nlohmann::json& j, Bracket& b) {
  b.id = j.at("id").get<int>();
  b.start_rung = j.at("start_rung").get<int>();
  b.size = j.at("size").get<int>();
  b.planned = j.value("planned", b.size);  // absent before brackets kept their plan
  b.started = j.at("started").get<int>();
  b.closed_rung = j.at("closed_rung").get<int>();
  b.members = j.at("members").get<std::vector<std::vector<int64_t>>>();
  b.results = j.at("results").get<std::vector<std::vector<std::pair<double, int64_t>>>>();
  b.ended = j.at("ended").get<std::vector<int>>();
  const auto queue = j.at("to_resume").get<std::vector<int64_t>>();
  b.to_resume.assign(queue.begin(), queue.end());
  b.gated = j.value("gated", std::vector<int64_t>{});  // absent before gated trials were kept
}

class BracketScheduler final : public Scheduler {
 public:
  explicit BracketScheduler(const SchedulerOptions& options)
      : options_(options), all_results_(static_cast<size_t>(options.ladder.top() + 1)) {}

  Job Next(std::span<const Trial> trials, bool may_start) override {
    for (Bracket& b : open_) {
      if (!b.to_resume.empty()) {
        const int64_t id = b.to_resume.front();
        b.to_resume.pop_front();
        return Job{JobKind::kResume, id, b.closed_rung + 1, b.id};
      }
      if (b.started < b.size) {
        if (may_start) return Job{JobKind::kStart, -1, b.start_rung, b.id};
        // No more trials may start: the bracket makes do with those it has. One that has
        // none keeps its plan, for a resume with room to start it.
        if (b.started == 0) continue;
        b.size = b.started;
        TryClose(b);
        if (!b.to_resume.empty()) return Next(trials, may_start);
      }
    }
    Collect();
    if (may_start) {
      open_.push_back(NewBracket(next_bracket_++, trials.size()));
      return Job{JobKind::kStart, -1, open_.back().start_rung, open_.back().id};
    }
    return Job{open_.empty() ? JobKind::kDone : JobKind::kWait};
  }

  void OnStart(const Trial& trial) override {
    Bracket& b = Find(trial.bracket);
    ++b.started;
    b.members[static_cast<size_t>(b.start_rung)].push_back(trial.id);
  }

  Verdict OnRung(std::span<const Trial>, const Trial& trial, int rung, double loss) override {
    Bracket& b = Find(trial.bracket);
    std::erase(b.gated, trial.id);
    all_results_[static_cast<size_t>(rung)].push_back(loss);
    if (rung >= options_.ladder.top()) {
      b.results[static_cast<size_t>(rung)].emplace_back(loss, trial.id);
      TryClose(b);
      return Verdict::kComplete;
    }
    if (rung <= b.closed_rung) return LateResult(b, trial.id, rung, loss);
    b.results[static_cast<size_t>(rung)].emplace_back(loss, trial.id);
    TryClose(b);
    return Verdict::kPause;
  }

  void OnEnd(const Trial& trial) override {
    Bracket& b = Find(trial.bracket);
    const int rung = std::clamp(trial.target_rung, b.start_rung, options_.ladder.top());
    std::erase(b.gated, trial.id);
    if (trial.state == TrialState::kStoppedAtBudget || trial.state == TrialState::kStoppedAtWall)
      b.gated.push_back(trial.id);
    ++b.ended[static_cast<size_t>(rung)];
    TryClose(b);
  }

  bool Reopen(const Trial& trial) override {
    Bracket* b = FindOpen(trial.bracket);
    if (b == nullptr) return false;
    const int rung = std::clamp(trial.target_rung, b->start_rung, options_.ladder.top());
    const auto ku = static_cast<size_t>(rung);
    if (rung <= b->closed_rung && b->results[ku].empty() &&
        (rung == options_.ladder.top() || b->members[ku + 1].empty())) {
      // The rung closed with no result at all (every member stopped at the cap): it decided
      // nothing, so it opens again and waits for its members, as if it had never closed.
      b->closed_rung = rung - 1;
    }
    if (rung > b->closed_rung) {
      // Its rung still waits: it is a member again, no longer counted as ended.
      int& ended = b->ended[static_cast<size_t>(rung)];
      if (ended > 0) --ended;
      return true;
    }
    // The rung was decided without it (its end may have closed it): it comes back as a late
    // member, judged against that decision when it reports (LateResult), unless the rung after
    // has been decided too. One bound for the top rung only completes.
    return rung == options_.ladder.top() || b->NextRungOpen(rung);
  }

  std::vector<int64_t> TakePruned() override { return std::exchange(pruned_, {}); }

  nlohmann::json Save() const override {
    return {{"next_bracket", next_bracket_}, {"open", open_}, {"pruned", pruned_}};
  }

  Result<void> Load(const nlohmann::json& state, std::span<const Trial> trials) override {
    for (auto& at : all_results_) at.clear();
    for (const Trial& t : trials) {
      for (size_t k = 0; k < t.rung_losses.size() && k < all_results_.size(); ++k) {
        if (!std::isnan(t.rung_losses[k])) all_results_[k].push_back(t.rung_losses[k]);
      }
    }
    try {
      next_bracket_ = state.at("next_bracket").get<int>();
      open_ = state.at("open").get<std::vector<Bracket>>();
      pruned_ = state.at("pruned").get<std::vector<int64_t>>();
    } catch (const nlohmann::json::exception& e) {
      return Fail(ErrorCode::kBadInput, std::string("scheduler state: ") + e.what());
    }
    return {};
  }

 private:
  int Rungs() const { return options_.ladder.top() + 1; }

  /// A new bracket, never larger than what is left of the pool (`started` trials so far): a
  /// bracket of 3^10 over a table of 1,024 rows would wait on members that never come.
  Bracket NewBracket(int id, size_t started) const {
    const double eta = options_.ladder.reduction_factor;
    const int s_max = Rungs() - 1;
    Bracket b;
    b.id = id;
    if (options_.kind == SchedulerKind::kHyperband) {
      const int s = s_max - id % (s_max + 1);
      b.start_rung = s_max - s;
      b.size = static_cast<int>(std::ceil(static_cast<double>(s_max + 1) /
                                          static_cast<double>(s + 1) * std::pow(eta, s)));
    } else {
      b.size = options_.bracket_size > 0 ? options_.bracket_size
                                         : static_cast<int>(std::lround(std::pow(eta, s_max)));
    }
    if (options_.pool_size > 0) {
      const auto left = static_cast<int64_t>(options_.pool_size) - static_cast<int64_t>(started);
      b.size = static_cast<int>(std::clamp<int64_t>(left, 1, b.size));
    }
    b.planned = b.size;
    b.closed_rung = b.start_rung - 1;
    b.members.resize(static_cast<size_t>(Rungs()));
    b.results.resize(static_cast<size_t>(Rungs()));
    b.ended.assign(static_cast<size_t>(Rungs()), 0);
    return b;
  }

  Bracket* FindOpen(int id) {
    for (Bracket& b : open_) {
      if (b.id == id) return &b;
    }
    return nullptr;
  }

  Bracket& Find(int id) {
    Bracket* b = FindOpen(id);
    FRUGAL_CHECK(b != nullptr && "trial of an unknown bracket");
    return *b;
  }

  /// A member that reports at a rung already decided (it was stopped at a gate, the rung
  /// closed without it, and the gate was raised): it goes on when it would have been kept had
  /// it reported in time and the next rung is still open; otherwise it is pruned.
  Verdict LateResult(Bracket& b, int64_t id, int rung, double loss) {
    auto& results = b.results[static_cast<size_t>(rung)];
    results.emplace_back(loss, id);
    std::sort(results.begin(), results.end());
    const auto keep = static_cast<size_t>(std::max(
        1.0, std::floor(static_cast<double>(results.size()) / options_.ladder.reduction_factor)));
    const auto rank = static_cast<size_t>(
        std::find(results.begin(), results.end(), std::pair{loss, id}) - results.begin());
    if (rank >= keep || !b.NextRungOpen(rung)) return Verdict::kStop;
    b.closed_rung = std::min(b.closed_rung, rung);  // reopens an ended bracket's next rung
    b.to_resume.push_back(id);
    b.members[static_cast<size_t>(rung) + 1].push_back(id);
    return Verdict::kPause;
  }

  /// Closes the bracket's current rung when every member reported or ended.
  void TryClose(Bracket& b) {
    const int k = b.closed_rung + 1;
    if (k > options_.ladder.top() || b.started < b.size) return;
    const auto ku = static_cast<size_t>(k);
    auto& results = b.results[ku];
    if (results.size() + static_cast<size_t>(b.ended[ku]) < b.members[ku].size()) return;
    b.closed_rung = k;
    if (k == options_.ladder.top()) return;
    std::sort(results.begin(), results.end());
    const double eta = options_.ladder.reduction_factor;
    const auto keep = results.empty()
                          ? size_t{0}
                          : static_cast<size_t>(std::max(
                                1.0, std::floor(static_cast<double>(results.size()) / eta)));
    // A bracket cut short (no more trials could start) judges too few to trust its own top
    // 1/η: what it keeps must also be in the top 1/η of every result at the rung, or a lone
    // weak survivor would be trained on for want of rivals.
    const double bar = b.size < b.planned ? StudyBar(k) : std::numeric_limits<double>::infinity();
    size_t kept = 0;
    for (size_t i = 0; i < results.size(); ++i) {
      if (i < keep && results[i].first <= bar) {
        b.to_resume.push_back(results[i].second);
        b.members[ku + 1].push_back(results[i].second);
        ++kept;
      } else {
        pruned_.push_back(results[i].second);
      }
    }
    if (kept == 0) b.closed_rung = options_.ladder.top();
  }

  /// The worst loss in the top max(1, ⌊n/η⌋) of all n results at rung `k`, every bracket's.
  double StudyBar(int k) const {
    std::vector<double> all = all_results_[static_cast<size_t>(k)];
    if (all.empty()) return std::numeric_limits<double>::infinity();
    std::sort(all.begin(), all.end());
    const auto top = static_cast<size_t>(std::max(
        1.0, std::floor(static_cast<double>(all.size()) / options_.ladder.reduction_factor)));
    return all[top - 1];
  }

  /// Forgets finished brackets (but those a gated member may come back to).
  void Collect() {
    std::erase_if(open_, [&](const Bracket& b) {
      return b.Finished(options_.ladder.top()) && b.to_resume.empty() && b.gated.empty();
    });
  }

  SchedulerOptions options_;
  std::vector<Bracket> open_;
  int next_bracket_ = 0;
  std::vector<int64_t> pruned_;
  std::vector<std::vector<double>> all_results_;  ///< per rung: every loss reported there
};

}  // namespace

std::unique_ptr<Scheduler> MakeBracketScheduler(const SchedulerOptions& options) {
  return std::make_unique<BracketScheduler>(options);
}

}  // namespace frugal::tune
