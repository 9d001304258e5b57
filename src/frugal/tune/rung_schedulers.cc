// asha, asha-stop, median and none: schedulers whose whole state is the rung results the
// trials record, so resuming rebuilds them from the trial list.

#include <algorithm>
#include <cmath>

#include "frugal/tune/scheduler.h"

namespace frugal::tune {

namespace {

/// Results per rung, each kept sorted by loss (best first), and which trials were promoted
/// out of each rung.
class RungIndex {
 public:
  explicit RungIndex(size_t rungs) : results_(rungs), promoted_(rungs) {}

  void Add(int rung, int64_t trial_id, double loss) {
    auto& list = results_[static_cast<size_t>(rung)];
    const std::pair<double, int64_t> entry{loss, trial_id};
    list.insert(std::upper_bound(list.begin(), list.end(), entry), entry);
  }
  void MarkPromoted(int rung, int64_t trial_id) {
    auto& flags = promoted_[static_cast<size_t>(rung)];
    if (flags.size() <= static_cast<size_t>(trial_id))
      flags.resize(static_cast<size_t>(trial_id) + 1, 0);
    flags[static_cast<size_t>(trial_id)] = 1;
  }
  bool Promoted(int rung, int64_t trial_id) const {
    const auto& flags = promoted_[static_cast<size_t>(rung)];
    return static_cast<size_t>(trial_id) < flags.size() &&
           flags[static_cast<size_t>(trial_id)] != 0;
  }
  const std::vector<std::pair<double, int64_t>>& At(int rung) const {
    return results_[static_cast<size_t>(rung)];
  }
  /// 0-based rank of `loss` among the rung's results (ties rank best).
  size_t Rank(int rung, double loss) const {
    const auto& list = At(rung);
    return static_cast<size_t>(
        std::lower_bound(list.begin(), list.end(), std::pair<double, int64_t>{loss, INT64_MIN}) -
        list.begin());
  }
  void Rebuild(std::span<const Trial> trials) {
    for (auto& r : results_) r.clear();
    for (auto& p : promoted_) p.clear();
    for (const Trial& t : trials) {
      for (size_t k = 0; k < t.rung_losses.size() && k < results_.size(); ++k) {
        if (std::isnan(t.rung_losses[k])) continue;
        Add(static_cast<int>(k), t.id, t.rung_losses[k]);
        if (t.target_rung > static_cast<int>(k)) MarkPromoted(static_cast<int>(k), t.id);
      }
    }
  }

 private:
  std::vector<std::vector<std::pair<double, int64_t>>> results_;
  std::vector<std::vector<char>> promoted_;
};

class RungScheduler : public Scheduler {
 public:
  explicit RungScheduler(const SchedulerOptions& options)
      : options_(options), index_(options.ladder.fidelities.size()) {}
  void OnStart(const Trial&) override {}
  void OnEnd(const Trial&) override {}
  nlohmann::json Save() const override { return nullptr; }
  Result<void> Load(const nlohmann::json&, std::span<const Trial> trials) override {
    index_.Rebuild(trials);
    return {};
  }

 protected:
  int top() const { return options_.ladder.top(); }
  double eta() const { return options_.ladder.reduction_factor; }
  static Job StartOrWait(bool may_start, int target_rung) {
    if (may_start) return Job{JobKind::kStart, -1, target_rung, 0};
    return Job{JobKind::kWait};
  }

  SchedulerOptions options_;
  RungIndex index_;
};

class AshaScheduler final : public RungScheduler {
 public:
  using RungScheduler::RungScheduler;
  Job Next(std::span<const Trial> trials, bool may_start) override {
    // Promote from the highest rung down: deeper results are the better evidence.
    for (int k = top() - 1; k >= 0; --k) {
      const auto& list = index_.At(k);
      const auto quota = static_cast<size_t>(std::floor(static_cast<double>(list.size()) / eta()));
      for (size_t i = 0; i < quota; ++i) {
        const int64_t id = list[i].second;
        const Trial& t = trials[static_cast<size_t>(id)];
        if (index_.Promoted(k, id) || t.state != TrialState::kPaused || t.RungReached() != k) {
          continue;
        }
        index_.MarkPromoted(k, id);
        return Job{JobKind::kResume, id, k + 1, 0};
      }
    }
    return StartOrWait(may_start, 0);
  }
  Verdict OnRung(std::span<const Trial>, const Trial& trial, int rung, double loss) override {
    index_.Add(rung, trial.id, loss);
    return rung >= top() ? Verdict::kComplete : Verdict::kPause;
  }
};

class AshaStopScheduler final : public RungScheduler {
 public:
  using RungScheduler::RungScheduler;
  Job Next(std::span<const Trial>, bool may_start) override { return StartOrWait(may_start, 0); }
  Verdict OnRung(std::span<const Trial>, const Trial& trial, int rung, double loss) override {
    index_.Add(rung, trial.id, loss);
    if (rung >= top()) return Verdict::kComplete;
    const double n = static_cast<double>(index_.At(rung).size());
    const auto keep = static_cast<size_t>(std::max(1.0, std::ceil(n / eta())));
    return index_.Rank(rung, loss) < keep ? Verdict::kContinue : Verdict::kStop;
  }
};

class MedianScheduler final : public RungScheduler {
 public:
  using RungScheduler::RungScheduler;
  Job Next(std::span<const Trial>, bool may_start) override { return StartOrWait(may_start, 0); }
  Verdict OnRung(std::span<const Trial>, const Trial& trial, int rung, double loss) override {
    const auto& others = index_.At(rung);
    Verdict verdict = rung >= top() ? Verdict::kComplete : Verdict::kContinue;
    if (rung < top() && static_cast<int>(others.size()) >= options_.median_min_trials) {
      const size_t n = others.size();
      const double median =
          n % 2 == 1 ? others[n / 2].first : 0.5 * (others[n / 2 - 1].first + others[n / 2].first);
      if (loss > median) verdict = Verdict::kStop;
    }
    index_.Add(rung, trial.id, loss);
    return verdict;
  }
};

class NoneScheduler final : public RungScheduler {
 public:
  using RungScheduler::RungScheduler;
  Job Next(std::span<const Trial>, bool may_start) override {
    return StartOrWait(may_start, top());
  }
  Verdict OnRung(std::span<const Trial>, const Trial& trial, int rung, double loss) override {
    index_.Add(rung, trial.id, loss);
    return rung >= top() ? Verdict::kComplete : Verdict::kContinue;
  }
};

}  // namespace

std::unique_ptr<Scheduler> MakeBracketScheduler(const SchedulerOptions& options);

std::unique_ptr<Scheduler> MakeScheduler(const SchedulerOptions& options) {
  FRUGAL_CHECK(!options.ladder.fidelities.empty());
  switch (options.kind) {
    case SchedulerKind::kAsha:
      return std::make_unique<AshaScheduler>(options);
    case SchedulerKind::kAshaStop:
      return std::make_unique<AshaStopScheduler>(options);
    case SchedulerKind::kMedian:
      return std::make_unique<MedianScheduler>(options);
    case SchedulerKind::kNone:
      return std::make_unique<NoneScheduler>(options);
    case SchedulerKind::kSha:
    case SchedulerKind::kHyperband:
      return MakeBracketScheduler(options);
  }
  return nullptr;
}

namespace {
constexpr std::pair<SchedulerKind, std::string_view> kSchedulerNames[] = {
    {SchedulerKind::kAsha, "asha"},     {SchedulerKind::kAshaStop, "asha-stop"},
    {SchedulerKind::kSha, "sha"},       {SchedulerKind::kHyperband, "hyperband"},
    {SchedulerKind::kMedian, "median"}, {SchedulerKind::kNone, "none"},
};
}  // namespace

std::string_view SchedulerName(SchedulerKind kind) {
  for (const auto& [k, name] : kSchedulerNames) {
    if (k == kind) return name;
  }
  return "unknown";
}

Result<SchedulerKind> ParseSchedulerKind(std::string_view text) {
  for (const auto& [k, name] : kSchedulerNames) {
    if (name == text) return k;
  }
  return Fail(ErrorCode::kBadInput, "unknown scheduler '" + std::string(text) +
                                        "' (one of asha, asha-stop, sha, hyperband, median, none)");
}

RungLadder GeometricLadder(double min_fidelity, double max_fidelity, double reduction_factor) {
  RungLadder ladder;
  ladder.reduction_factor = reduction_factor;
  // A rung just below max adds a barrier without adding evidence: the last step must grow the
  // fidelity by at least √η.
  const double last_below = max_fidelity / std::sqrt(reduction_factor) * (1 + 1e-9);
  for (double f = min_fidelity; f <= last_below && f < max_fidelity * (1 - 1e-9);
       f *= reduction_factor) {
    ladder.fidelities.push_back(f);
  }
  ladder.fidelities.push_back(max_fidelity);
  return ladder;
}

}  // namespace frugal::tune
