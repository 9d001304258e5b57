// asha, asha-stop, median and none: schedulers whose whole state is the rung results the
// trials record, so resuming rebuilds them from the trial list.

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <utility>

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
  /// From the trials' records; a trial in `cut` (id → rung) counts only up to that rung.
  void Rebuild(std::span<const Trial> trials, const std::map<int64_t, int>& cut) {
    for (auto& r : results_) r.clear();
    for (auto& p : promoted_) p.clear();
    for (const Trial& t : trials) {
      const auto c = cut.find(t.id);
      for (size_t k = 0; k < t.rung_losses.size() && k < results_.size(); ++k) {
        if (std::isnan(t.rung_losses[k])) continue;
        if (c != cut.end() && static_cast<int>(k) > c->second) break;
        Add(static_cast<int>(k), t.id, t.rung_losses[k]);
        if (t.target_rung > static_cast<int>(k)) MarkPromoted(static_cast<int>(k), t.id);
      }
    }
  }

 private:
  std::vector<std::vector<std::pair<double, int64_t>>> results_;
  std::vector<std::vector<char>> promoted_;
};

/// Ranks 0..n-1 of `v`, ties sharing their mean rank.
std::vector<double> Ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> ranks(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = 0.5 * static_cast<double>(i + j);
    i = j + 1;
  }
  return ranks;
}

/// Spearman's rank correlation of paired samples (0 when either side is constant).
double Spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const std::vector<double> ra = Ranks(a), rb = Ranks(b);
  const double mean = 0.5 * static_cast<double>(a.size() - 1);
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    cov += (ra[i] - mean) * (rb[i] - mean);
    va += (ra[i] - mean) * (ra[i] - mean);
    vb += (rb[i] - mean) * (rb[i] - mean);
  }
  return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : 0.0;
}

class RungScheduler : public Scheduler {
 public:
  explicit RungScheduler(const SchedulerOptions& options)
      : options_(options),
        index_(options.ladder.fidelities.size()),
        pruning_from_(options.ladder.early) {}
  void OnStart(const Trial&) override {}
  void OnEnd(const Trial&) override {}
  std::vector<int64_t> TakePruned() override { return std::exchange(pruned_, {}); }
  nlohmann::json Save() const override {
    if (options_.ladder.early == 0) return nullptr;
    nlohmann::json cut = nlohmann::json::array();
    for (const auto& [id, rung] : cut_) cut.push_back({id, rung});
    return {{"pruning_from", pruning_from_}, {"early_rejected", early_rejected_}, {"cut", cut}};
  }
  Result<void> Load(const nlohmann::json& state, std::span<const Trial> trials) override {
    cut_.clear();
    if (state.is_object()) {
      pruning_from_ =
          std::clamp(state.value("pruning_from", options_.ladder.early), 0, options_.ladder.early);
      early_rejected_ = state.value("early_rejected", false);
      for (const auto& entry : state.value("cut", nlohmann::json::array())) {
        if (!entry.is_array() || entry.size() != 2 || !entry[0].is_number_integer() ||
            !entry[1].is_number_integer()) {
          return Fail(ErrorCode::kBadInput, "study state: malformed scheduler cut entry");
        }
        cut_[entry[0].get<int64_t>()] = entry[1].get<int>();
      }
    }
    index_.Rebuild(trials, cut_);
    return {};
  }

 protected:
  /// Whether results at `rung` prune (an early rung only once its ranks proved out).
  bool Prunes(int rung) const { return rung >= pruning_from_; }
  /// After a report at the lowest pruning rung: once enough trials have results there and at
  /// the early rung below it, that rung prunes from now on if the two rankings agree, and
  /// never if they do not. Every such trial ran through the early rung unpruned, so the pairs
  /// are an unselected sample. A rung that passes opens the judgement of the one below.
  void JudgeEarlyRungs(std::span<const Trial> trials, int rung) {
    while (rung == pruning_from_ && pruning_from_ > 0 && !early_rejected_) {
      const auto k = static_cast<size_t>(pruning_from_ - 1);
      std::vector<double> below, above;
      for (const Trial& t : trials) {
        if (t.rung_losses.size() <= k + 1 || std::isnan(t.rung_losses[k]) ||
            std::isnan(t.rung_losses[k + 1])) {
          continue;
        }
        below.push_back(t.rung_losses[k]);
        above.push_back(t.rung_losses[k + 1]);
      }
      if (static_cast<int>(below.size()) < kEarlyRungPairs) return;
      // Results that are mostly the same value (a rung below the first real evaluation, where
      // every trial reports its initial metric) rank nothing: ties would pass for agreement.
      std::vector<double> distinct = below;
      std::sort(distinct.begin(), distinct.end());
      const auto unique =
          static_cast<size_t>(std::unique(distinct.begin(), distinct.end()) - distinct.begin());
      if (2 * unique < below.size() || Spearman(below, above) < kEarlyRungAgreement) {
        early_rejected_ = true;
        return;
      }
      rung = --pruning_from_;
      CutRetroactively(trials, rung);
    }
  }

  /// Rung `rung` has just started pruning. The trials that ran through it unpruned are held to
  /// its cut after the fact: those outside its top 1/η no longer count at the rungs above (so
  /// they do not dilute the ranks there and make promotion lenient), and stop where they are.
  void CutRetroactively(std::span<const Trial> trials, int rung) {
    const auto& list = index_.At(rung);
    const auto keep = static_cast<size_t>(std::ceil(static_cast<double>(list.size()) / eta()));
    for (size_t i = keep; i < list.size(); ++i) {
      const int64_t id = list[i].second;
      if (!cut_.contains(id)) cut_[id] = rung;
      if (trials[static_cast<size_t>(id)].state == TrialState::kPaused) pruned_.push_back(id);
    }
    index_.Rebuild(trials, cut_);
  }

  /// Whether `trial`'s result at `rung` is past a retroactive cut (it then stops there).
  /// A trial that has finished training completes: its result is paid for.
  bool CutOff(const Trial& trial, int rung) const {
    const auto c = cut_.find(trial.id);
    return c != cut_.end() && rung > c->second && rung < top();
  }

  int top() const { return options_.ladder.top(); }
  double eta() const { return options_.ladder.reduction_factor; }
  static Job StartOrWait(bool may_start, int target_rung) {
    if (may_start) return Job{JobKind::kStart, -1, target_rung, 0};
    return Job{JobKind::kWait};
  }

  SchedulerOptions options_;
  RungIndex index_;
  int pruning_from_;             ///< the lowest rung whose results prune
  bool early_rejected_ = false;  ///< the early rung below pruning_from_ failed its judgement
  std::map<int64_t, int> cut_;   ///< trials cut retroactively at an early rung: id → rung
  std::vector<int64_t> pruned_;  ///< paused trials cut since the last TakePruned
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
  Verdict OnRung(std::span<const Trial> trials, const Trial& trial, int rung,
                 double loss) override {
    if (CutOff(trial, rung)) return Verdict::kStop;
    index_.Add(rung, trial.id, loss);
    JudgeEarlyRungs(trials, rung);
    if (CutOff(trial, rung)) return Verdict::kStop;
    if (rung >= top()) return Verdict::kComplete;
    return Prunes(rung) ? Verdict::kPause : Verdict::kContinue;
  }
  /// Segments run to the top: a trial paused at a rung is parked, and continues in place when
  /// the next free worker's job is its own promotion (most promotions come at once).
  int PauseRungFrom(int) const override { return top(); }
};

class AshaStopScheduler final : public RungScheduler {
 public:
  using RungScheduler::RungScheduler;
  Job Next(std::span<const Trial>, bool may_start) override { return StartOrWait(may_start, 0); }
  int PauseRungFrom(int) const override { return top(); }
  Verdict OnRung(std::span<const Trial> trials, const Trial& trial, int rung,
                 double loss) override {
    if (CutOff(trial, rung)) return Verdict::kStop;
    index_.Add(rung, trial.id, loss);
    JudgeEarlyRungs(trials, rung);
    if (CutOff(trial, rung)) return Verdict::kStop;
    if (rung >= top()) return Verdict::kComplete;
    if (!Prunes(rung)) return Verdict::kContinue;
    const double n = static_cast<double>(index_.At(rung).size());
    const auto keep = static_cast<size_t>(std::max(1.0, std::ceil(n / eta())));
    return index_.Rank(rung, loss) < keep ? Verdict::kContinue : Verdict::kStop;
  }
};

class MedianScheduler final : public RungScheduler {
 public:
  using RungScheduler::RungScheduler;
  Job Next(std::span<const Trial>, bool may_start) override { return StartOrWait(may_start, 0); }
  int PauseRungFrom(int) const override { return top(); }
  Verdict OnRung(std::span<const Trial>, const Trial& trial, int rung, double loss) override {
    const auto& others = index_.At(rung);
    Verdict verdict = rung >= top() ? Verdict::kComplete : Verdict::kContinue;
    if (rung < top() && !others.empty() &&
        static_cast<int>(others.size()) >= options_.median_min_trials) {
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
