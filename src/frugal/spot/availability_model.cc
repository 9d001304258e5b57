#include "frugal/spot/availability_model.h"

#include <algorithm>
#include <cmath>

namespace frugal::spot {

void RunLengths::Clear() {
  histogram_.assign(kMaxSteps + 1, 0);
  longer_count_.assign(kMaxSteps + 2, 0);
  longer_sum_.assign(kMaxSteps + 2, 0);
  dirty_ = false;
  max_length_ = 0;
  count_ = 0;
  total_ = 0;
}

void RunLengths::Add(int length) {
  if (histogram_.empty()) Clear();
  length = std::clamp(length, 1, kMaxSteps);
  ++histogram_[static_cast<size_t>(length)];
  max_length_ = std::max(max_length_, length);
  ++count_;
  total_ += length;
  dirty_ = true;
}

void RunLengths::Rebuild() {
  // Entries past the longest run are zero from Clear() and stay so; only [0, max] changes.
  for (int a = max_length_; a >= 0; --a) {
    const auto i = static_cast<size_t>(a);
    // Entries at index a sum over lengths > a.
    const double c = a + 1 <= kMaxSteps ? histogram_[i + 1] : 0;
    longer_count_[i] = longer_count_[i + 1] + c;
    longer_sum_[i] = longer_sum_[i + 1] + c * (a + 1);
  }
  dirty_ = false;
}

double RunLengths::ExpectedRemaining(int age, double fallback_mean) {
  if (count_ == 0 || age >= kMaxSteps) return fallback_mean;
  if (dirty_) Rebuild();
  const auto i = static_cast<size_t>(std::max(age, 0));
  // With few runs longer than `age`, blend in the memoryless guess so one lucky run does not
  // decide; the weight of the data grows with how many such runs were seen.
  const double n = longer_count_[i];
  if (n == 0) return fallback_mean;
  const double empirical = longer_sum_[i] / n - age;
  constexpr double kPriorWeight = 2.0;
  return (n * empirical + kPriorWeight * fallback_mean) / (n + kPriorWeight);
}

RunLengths::Capped RunLengths::ExpectedRemainingCapped(int age, int cap, double fallback_mean) {
  // Memoryless guess: E[min(X, cap)] and P(X < cap) for an exponential X of the given mean.
  const double m = std::max(fallback_mean, 1e-9);
  const double tail = std::exp(-cap / m);
  Capped prior{m * (1 - tail), 1 - tail};
  if (count_ == 0 || age >= kMaxSteps) return prior;
  if (dirty_) Rebuild();
  const auto a = static_cast<size_t>(std::max(age, 0));
  const auto b = static_cast<size_t>(std::min(age + std::max(cap, 0), kMaxSteps + 1));
  const double n = longer_count_[a];
  if (n == 0) return prior;
  // Runs ending within the cap contribute (ℓ − age); longer ones contribute the cap.
  const double ending = n - longer_count_[b];
  const double ending_sum = (longer_sum_[a] - longer_sum_[b]) - age * ending;
  const double capped = (ending_sum + cap * longer_count_[b]) / n;
  constexpr double kPriorWeight = 2.0;
  return Capped{(n * capped + kPriorWeight * prior.expected) / (n + kPriorWeight),
                (ending + kPriorWeight * prior.ends_before_cap) / (n + kPriorWeight)};
}

int RunLengths::CountOf(int length) const {
  if (histogram_.empty() || length < 1 || length > kMaxSteps) return 0;
  return histogram_[static_cast<size_t>(length)];
}

void AvailabilityModel::Reset(double default_up_steps, double default_down_steps) {
  up_.Clear();
  down_.Clear();
  default_up_ = std::max(default_up_steps, 1.0);
  default_down_ = std::max(default_down_steps, 1.0);
  current_available_ = false;
  current_age_ = 0;
}

void AvailabilityModel::Record(bool available, int length) { runs(available).Add(length); }

void AvailabilityModel::Observe(bool available) {
  if (current_age_ > 0 && available != current_available_) {
    Record(current_available_, current_age_);
    current_age_ = 0;
  }
  current_available_ = available;
  ++current_age_;
}

void AvailabilityModel::AddRun(bool available, int length) {
  if (length > 0) Record(available, length);
}

double AvailabilityModel::Mean(bool available) const {
  // The default counts as two runs already seen, so one odd run does not decide alone.
  constexpr double kPriorRuns = 2.0;
  const RunLengths& r = runs(available);
  const double prior = available ? default_up_ : default_down_;
  return (r.mean() * r.count() + kPriorRuns * prior) / (r.count() + kPriorRuns);
}

std::vector<float> AvailabilityModel::StayProbabilities(bool available, int unit, int ages) const {
  unit = std::max(unit, 1);
  ages = std::max(ages, 1);
  const RunLengths& r = runs(available);
  // Run lengths in whole units: ends[k] runs of k units, k = 1 .. ages (the last bin holds
  // every longer run, with its total exposure past `ages` for the tail's hazard).
  std::vector<double> ends(static_cast<size_t>(ages) + 1, 0);
  double tail_exposure = 0;
  for (int len = 1; len <= r.max_length(); ++len) {
    const int n = r.CountOf(len);
    if (n == 0) continue;
    const int k = std::max(1, (len + unit / 2) / unit);
    if (k >= ages) {
      ends[static_cast<size_t>(ages)] += n;
      tail_exposure += static_cast<double>(n) * (k - ages + 1);
    } else {
      ends[static_cast<size_t>(k)] += n;
    }
  }
  // The memoryless guess: a run ends in any unit with probability unit ÷ mean.
  const double prior_end = std::min(1.0, unit / std::max(Mean(available), 1.0));
  constexpr double kPriorWeight = 2.0;
  std::vector<float> stay(static_cast<size_t>(ages));
  double at_least = r.count();  // runs that reached age k
  for (int k = 1; k < ages; ++k) {
    const double ended = ends[static_cast<size_t>(k)];
    const double p_end = (ended + kPriorWeight * prior_end) / (at_least + kPriorWeight);
    stay[static_cast<size_t>(k - 1)] = static_cast<float>(1.0 - std::min(p_end, 1.0));
    at_least -= ended;
  }
  const double tail_end =
      (ends[static_cast<size_t>(ages)] + kPriorWeight * prior_end) / (tail_exposure + kPriorWeight);
  stay[static_cast<size_t>(ages - 1)] = static_cast<float>(1.0 - std::min(tail_end, 1.0));
  return stay;
}

}  // namespace frugal::spot
