#pragma once
// What an online policy learns about a spot market while it watches it: the lengths of the
// spot lifetimes (available runs) and outages seen so far, and the age of the run in
// progress. From these it derives the conditional survival of a run of a given age, the
// input of the deadline planner (deadline_planner.h), and the expected remaining lifetimes
// the fallback rules use. It sees only the past: one Observe per step, oldest first.

#include <vector>

namespace frugal::spot {

/// Lengths of the runs of one state (available or not) seen so far, with the expected
/// remaining length of a run that has lasted `age` steps. Capped at kMaxSteps.
class RunLengths {
 public:
  static constexpr int kMaxSteps = 8192;
  void Clear();
  void Add(int length);
  [[nodiscard]] int count() const { return count_; }
  [[nodiscard]] double mean() const { return count_ == 0 ? 0 : total_ / count_; }
  /// E[length − age | length > age]; `fallback_mean` (memoryless) when nothing longer was seen.
  [[nodiscard]] double ExpectedRemaining(int age, double fallback_mean);
  /// E[min(length − age, cap) | length > age] and P(length − age < cap | length > age), each
  /// blended with a memoryless run of mean `fallback_mean` while few runs that long were seen.
  struct Capped {
    double expected = 0;
    double ends_before_cap = 0;
  };
  [[nodiscard]] Capped ExpectedRemainingCapped(int age, int cap, double fallback_mean);
  /// How many runs had exactly `length` steps (lengths past kMaxSteps count as kMaxSteps).
  [[nodiscard]] int CountOf(int length) const;
  /// The longest run seen (0 before any).
  [[nodiscard]] int max_length() const { return max_length_; }

 private:
  void Rebuild();
  std::vector<int> histogram_;
  std::vector<double> longer_count_;  ///< Σ_{ℓ>a} count[ℓ]
  std::vector<double> longer_sum_;    ///< Σ_{ℓ>a} ℓ·count[ℓ]
  bool dirty_ = false;
  int max_length_ = 0;
  int count_ = 0;
  double total_ = 0;
};

/// Alternating spot lifetimes and outages, learned online.
class AvailabilityModel {
 public:
  /// Forgets everything; `default_up_steps` / `default_down_steps` are the mean lifetime and
  /// outage assumed while none has been seen.
  void Reset(double default_up_steps, double default_down_steps);
  /// One step of history: was spot available?
  void Observe(bool available);
  /// Records a whole run at once (live use: a lifetime or an outage measured in steps).
  void AddRun(bool available, int length);

  [[nodiscard]] bool current_available() const { return current_available_; }
  /// Steps the run in progress has lasted, counting the latest step (0 before any).
  [[nodiscard]] int current_age() const { return current_age_; }
  [[nodiscard]] RunLengths& runs(bool available) { return available ? up_ : down_; }
  [[nodiscard]] const RunLengths& runs(bool available) const { return available ? up_ : down_; }
  /// Mean of the finished runs of that state, with the default counted as two runs of its
  /// length (so it is the default before any run, and the runs' mean after many).
  [[nodiscard]] double Mean(bool available) const;

  /// P(a run of that state goes on for another unit | it has lasted k units), for k = 1 ..
  /// `ages` (index k − 1), in units of `unit` steps; the last entry holds for every age from
  /// `ages` on (the tail). Lengths are rounded to whole units (at least one). Each entry
  /// blends the empirical survival with a memoryless run of the same mean, so that a few
  /// runs do not decide alone (weight 2 runs).
  [[nodiscard]] std::vector<float> StayProbabilities(bool available, int unit, int ages) const;

 private:
  void Record(bool available, int length);
  RunLengths up_;
  RunLengths down_;
  double default_up_ = 1;
  double default_down_ = 1;
  bool current_available_ = false;
  int current_age_ = 0;
};

}  // namespace frugal::spot
