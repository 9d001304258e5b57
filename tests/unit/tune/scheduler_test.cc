#include "frugal/tune/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace frugal::tune {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Drives a scheduler the way a study does, with trials held here.
class Harness {
 public:
  Harness(SchedulerKind kind, std::vector<double> rungs, double eta, int bracket_size = 0,
          int early = 0, size_t pool_size = 0) {
    SchedulerOptions o;
    o.pool_size = pool_size;
    o.kind = kind;
    o.ladder = RungLadder{std::move(rungs), eta, early};
    o.bracket_size = bracket_size;
    rungs_ = o.ladder.fidelities.size();
    scheduler = MakeScheduler(o);
  }
  Job Next(bool may_start = true) { return scheduler->Next(trials, may_start); }
  /// Starts a trial for a kStart job.
  int64_t Start(const Job& job) {
    EXPECT_EQ(job.kind, JobKind::kStart);
    Trial t;
    t.id = static_cast<int64_t>(trials.size());
    t.bracket = job.bracket;
    t.target_rung = job.target_rung;
    t.rung_losses.assign(rungs_, kNaN);
    trials.push_back(t);
    scheduler->OnStart(trials.back());
    return t.id;
  }
  Verdict Report(int64_t id, double loss) {
    Trial& t = trials[static_cast<size_t>(id)];
    t.rung_losses[static_cast<size_t>(t.target_rung)] = loss;
    const Verdict v = scheduler->OnRung(trials, t, t.target_rung, loss);
    t.state = v == Verdict::kPause      ? TrialState::kPaused
              : v == Verdict::kStop     ? TrialState::kPruned
              : v == Verdict::kComplete ? TrialState::kCompleted
                                        : TrialState::kRunning;
    if (v == Verdict::kContinue) ++t.target_rung;
    return v;
  }
  /// A gate stops the trial short of its target rung.
  void StopAtBudget(int64_t id) {
    Trial& t = trials[static_cast<size_t>(id)];
    t.state = TrialState::kStoppedAtBudget;
    scheduler->OnEnd(t);
  }
  void Resume(const Job& job) {
    ASSERT_EQ(job.kind, JobKind::kResume);
    Trial& t = trials[static_cast<size_t>(job.trial_id)];
    t.target_rung = job.target_rung;
    t.state = TrialState::kRunning;
  }

  std::unique_ptr<Scheduler> scheduler;
  std::vector<Trial> trials;

 private:
  size_t rungs_ = 0;
};

TEST(Asha, PausesAtRungsAndPromotesTheTopThirdOnlyOnce) {
  Harness h(SchedulerKind::kAsha, {1, 3, 9}, 3);
  // Two results at rung 0: ⌊2/3⌋ = 0 may be promoted, so a new trial starts.
  EXPECT_EQ(h.Report(h.Start(h.Next()), 0.5), Verdict::kPause);
  EXPECT_EQ(h.Report(h.Start(h.Next()), 0.2), Verdict::kPause);
  const Job third = h.Next();
  ASSERT_EQ(third.kind, JobKind::kStart);
  h.Report(h.Start(third), 0.9);
  // Three results: the best (trial 1) is promoted to rung 1, and only once.
  const Job promote = h.Next();
  ASSERT_EQ(promote.kind, JobKind::kResume);
  EXPECT_EQ(promote.trial_id, 1);
  EXPECT_EQ(promote.target_rung, 1);
  h.Resume(promote);
  EXPECT_EQ(h.Next().kind, JobKind::kStart);
}

TEST(Asha, WaitsWhenNoStartIsAllowedAndNothingIsPromotable) {
  Harness h(SchedulerKind::kAsha, {1, 3}, 2);
  h.Report(h.Start(h.Next()), 0.5);
  EXPECT_EQ(h.Next(false).kind, JobKind::kWait);
  EXPECT_EQ(h.Report(h.Start(h.Next()), 0.4), Verdict::kPause);
  const Job promote = h.Next(false);
  ASSERT_EQ(promote.kind, JobKind::kResume);
  h.Resume(promote);
  EXPECT_EQ(h.Report(promote.trial_id, 0.3), Verdict::kComplete);
}

TEST(Asha, RebuildsRungStateFromTrials) {
  Harness h(SchedulerKind::kAsha, {1, 3, 9}, 3);
  for (double loss : {0.5, 0.2, 0.9}) h.Report(h.Start(h.Next()), loss);
  h.Resume(h.Next());  // trial 1 promoted
  SchedulerOptions o{SchedulerKind::kAsha, RungLadder{{1, 3, 9}, 3}, 3, 0};
  auto fresh = MakeScheduler(o);
  ASSERT_TRUE(fresh->Load(nullptr, h.trials));
  // The rebuilt scheduler knows trial 1 was promoted: it starts a new trial rather than
  // promoting it again.
  EXPECT_EQ(fresh->Next(h.trials, true).kind, JobKind::kStart);
}

TEST(AshaStop, ContinuesTheTopAndStopsTheRest) {
  Harness h(SchedulerKind::kAshaStop, {1, 3, 9}, 2);
  EXPECT_EQ(h.Report(h.Start(h.Next()), 0.5), Verdict::kContinue);  // alone: top
  EXPECT_EQ(h.Report(h.Start(h.Next()), 0.7), Verdict::kStop);      // 2nd of 2, keep ⌈2/2⌉=1
  EXPECT_EQ(h.Report(h.Start(h.Next()), 0.1), Verdict::kContinue);  // best of 3
  EXPECT_EQ(h.Next(false).kind, JobKind::kWait);
}

TEST(Median, StopsTrialsWorseThanTheMedianAfterMinTrials) {
  Harness h(SchedulerKind::kMedian, {2, 4, 8}, 3);
  for (double loss : {0.3, 0.5, 0.7})
    EXPECT_EQ(h.Report(h.Start(h.Next()), loss), Verdict::kContinue);
  EXPECT_EQ(h.Report(h.Start(h.Next()), 0.6), Verdict::kStop);  // median of 3 others = 0.5
  EXPECT_EQ(h.Report(h.Start(h.Next()), 0.4), Verdict::kContinue);
}

TEST(None, RunsEveryTrialToTheTop) {
  Harness h(SchedulerKind::kNone, {1, 3, 9}, 3);
  const Job job = h.Next();
  EXPECT_EQ(job.target_rung, 2);
  EXPECT_EQ(h.Report(h.Start(job), 0.4), Verdict::kComplete);
}

TEST(Sha, ClosesARungOnlyWhenEveryMemberReported) {
  Harness h(SchedulerKind::kSha, {1, 3}, 2, 4);
  std::vector<int64_t> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(h.Start(h.Next()));
  h.Report(ids[0], 0.4);
  h.Report(ids[1], 0.1);
  h.Report(ids[2], 0.3);
  // The barrier holds: no promotion yet, so the next bracket opens for the free worker.
  Job next = h.Next();
  EXPECT_EQ(next.kind, JobKind::kStart);
  EXPECT_EQ(next.bracket, 1);
  h.Report(ids[3], 0.8);
  // ⌊4/2⌋ = 2 survivors, best first; the others are pruned.
  std::vector<int64_t> resumed;
  for (int i = 0; i < 2; ++i) {
    next = h.Next();
    ASSERT_EQ(next.kind, JobKind::kResume);
    resumed.push_back(next.trial_id);
  }
  EXPECT_EQ(resumed, (std::vector<int64_t>{ids[1], ids[2]}));
  auto pruned = h.scheduler->TakePruned();
  std::sort(pruned.begin(), pruned.end());
  EXPECT_EQ(pruned, (std::vector<int64_t>{ids[0], ids[3]}));
}

TEST(Sha, ShrinksTheBracketWhenNoMoreTrialsMayStart) {
  Harness h(SchedulerKind::kSha, {1, 3}, 2, 4);
  const int64_t a = h.Start(h.Next());
  const int64_t b = h.Start(h.Next());
  h.Report(a, 0.5);
  h.Report(b, 0.2);
  const Job next = h.Next(false);
  ASSERT_EQ(next.kind, JobKind::kResume);
  EXPECT_EQ(next.trial_id, b);
}

TEST(Sha, AMemberStoppedAtACapRejoinsItsOpenRungWhenReopened) {
  Harness h(SchedulerKind::kSha, {1, 3}, 2, 4);
  std::vector<int64_t> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(h.Start(h.Next()));
  h.StopAtBudget(ids[0]);
  h.Report(ids[1], 0.5);
  h.Report(ids[2], 0.3);
  ASSERT_TRUE(h.scheduler->Reopen(h.trials[0]));
  h.Resume(Job{JobKind::kResume, ids[0], 0, 0});
  // The rung no longer counts it as ended: the last report does not close it.
  h.Report(ids[3], 0.8);
  EXPECT_EQ(h.Next().kind, JobKind::kStart);
  EXPECT_EQ(h.Report(ids[0], 0.1), Verdict::kPause);
  std::vector<int64_t> resumed;
  for (Job next = h.Next(); next.kind == JobKind::kResume; next = h.Next())
    resumed.push_back(next.trial_id);
  EXPECT_EQ(resumed, (std::vector<int64_t>{ids[0], ids[2]}));
}

/// Under sha (rungs 1, 3, 9; η 2; brackets of 4), three members report at rung 0 and the last
/// one is stopped at the budget: the rung closes with three results and keeps one (ids[2]).
std::vector<int64_t> ThreeReportAndTheLastStops(Harness& h) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(h.Start(h.Next()));
  h.Report(ids[1], 0.5);
  h.Report(ids[2], 0.3);
  h.Report(ids[3], 0.8);
  h.StopAtBudget(ids[0]);
  return ids;
}

TEST(Sha, AMemberWhoseRungClosedWithoutItComesBackLate) {
  Harness h(SchedulerKind::kSha, {1, 3, 9}, 2, 4);
  const std::vector<int64_t> ids = ThreeReportAndTheLastStops(h);
  ASSERT_EQ(h.Next(false).trial_id, ids[2]);
  ASSERT_TRUE(h.scheduler->Reopen(h.trials[0]));
  h.Resume(Job{JobKind::kResume, ids[0], 0, 0});
  // In the top ⌊4/2⌋ = 2 of the four results: it joins the next rung.
  EXPECT_EQ(h.Report(ids[0], 0.4), Verdict::kPause);
  const Job late = h.Next(false);
  ASSERT_EQ(late.kind, JobKind::kResume);
  EXPECT_EQ(late.trial_id, ids[0]);
  EXPECT_EQ(late.target_rung, 1);
}

TEST(Sha, ARungThatClosedWithNoResultOpensAgainAndWaitsForAllItsMembers) {
  Harness h(SchedulerKind::kSha, {1, 3, 9}, 2, 4);
  std::vector<int64_t> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(h.Start(h.Next()));
  for (int i = 0; i < 4; ++i) h.Report(ids[static_cast<size_t>(i)], 0.1 * (i + 1));
  const Job a = h.Next(false);
  const Job b = h.Next(false);
  h.Resume(a);
  h.Resume(b);
  // Both promoted members stop at the budget: rung 1 "closes" having decided nothing.
  h.StopAtBudget(a.trial_id);
  h.StopAtBudget(b.trial_id);
  ASSERT_TRUE(h.scheduler->Reopen(h.trials[static_cast<size_t>(a.trial_id)]));
  ASSERT_TRUE(h.scheduler->Reopen(h.trials[static_cast<size_t>(b.trial_id)]));
  h.Resume(Job{JobKind::kResume, a.trial_id, 1, 0});
  h.Resume(Job{JobKind::kResume, b.trial_id, 1, 0});
  // The first to report is not promoted on its own: the rung waits for both, then keeps one.
  EXPECT_EQ(h.Report(a.trial_id, 0.5), Verdict::kPause);
  EXPECT_EQ(h.Next(false).kind, JobKind::kWait);
  EXPECT_EQ(h.Report(b.trial_id, 0.4), Verdict::kPause);
  const Job next = h.Next(false);
  ASSERT_EQ(next.kind, JobKind::kResume);
  EXPECT_EQ(next.trial_id, b.trial_id);
  EXPECT_EQ(h.Next(false).kind, JobKind::kWait);
}

TEST(Sha, ALateMemberOutsideTheKeptOrPastAClosedRungIsPruned) {
  Harness h(SchedulerKind::kSha, {1, 3, 9}, 2, 4);
  const std::vector<int64_t> ids = ThreeReportAndTheLastStops(h);
  ASSERT_TRUE(h.scheduler->Reopen(h.trials[0]));
  h.Resume(Job{JobKind::kResume, ids[0], 0, 0});
  EXPECT_EQ(h.Report(ids[0], 0.6), Verdict::kStop);  // third of four: not kept
  // Once the next rung closed too, a member stopped at the first has no place to come back to.
  Harness g(SchedulerKind::kSha, {1, 3, 9}, 2, 4);
  const std::vector<int64_t> gids = ThreeReportAndTheLastStops(g);
  g.Resume(g.Next(false));
  g.Report(gids[2], 0.2);  // rung 1 closes with its one member
  EXPECT_FALSE(g.scheduler->Reopen(g.trials[static_cast<size_t>(gids[0])]));
}

/// Under sha (rungs 1, 3; η 2; brackets of 4), a full bracket reports 0.1–0.4 at rung 0 and
/// its top two resume; then a second bracket starts one trial, whose id is returned.
int64_t AFullBracketThenOneMoreTrial(Harness& h) {
  for (int i = 0; i < 4; ++i) h.Report(h.Start(h.Next()), 0.1 * (i + 1));
  for (int i = 0; i < 2; ++i) h.Resume(h.Next());
  h.scheduler->TakePruned();
  return h.Start(h.Next());
}

TEST(Sha, ABracketCutShortKeepsOnlyWhatTheWholeRungWouldKeep) {
  // The second bracket's one trial reports, then no more may start: alone it would keep its
  // only member, but 0.9 is far outside the top half of the rung's five results.
  Harness h(SchedulerKind::kSha, {1, 3}, 2, 4);
  const int64_t weak = AFullBracketThenOneMoreTrial(h);
  EXPECT_EQ(h.Report(weak, 0.9), Verdict::kPause);
  EXPECT_EQ(h.Next(false).kind, JobKind::kWait);
  EXPECT_EQ(h.scheduler->TakePruned(), (std::vector<int64_t>{weak}));
  // One as good as the best is kept, cut short or not.
  Harness g(SchedulerKind::kSha, {1, 3}, 2, 4);
  const int64_t strong = AFullBracketThenOneMoreTrial(g);
  g.Report(strong, 0.05);
  const Job next = g.Next(false);
  ASSERT_EQ(next.kind, JobKind::kResume);
  EXPECT_EQ(next.trial_id, strong);
}

TEST(Sha, ABracketThatStartedNothingKeepsItsPlanForALaterStart) {
  Harness h(SchedulerKind::kSha, {1, 3}, 2, 4);
  for (int i = 0; i < 4; ++i) h.Start(h.Next());
  // The next bracket opens, but its first start is refused (the budget): it waits, whole.
  ASSERT_EQ(h.Next().bracket, 1);
  EXPECT_EQ(h.Next(false).kind, JobKind::kWait);
  for (int i = 0; i < 4; ++i) {
    const Job job = h.Next();
    ASSERT_EQ(job.kind, JobKind::kStart);
    EXPECT_EQ(job.bracket, 1);
    h.Start(job);
  }
}

TEST(Hyperband, CyclesBracketsFromManyCheapToFewFull) {
  // η=3, rungs 1,3,9,27: s_max = 3, brackets of 27 trials from rung 0, 12 from rung 1,
  // 6 from rung 2, 4 at rung 3 (Li et al., Table 1).
  Harness h(SchedulerKind::kHyperband, {1, 3, 9, 27}, 3);
  std::vector<std::pair<int, int>> seen;  // (bracket, start rung) of each start
  for (int i = 0; i < 27 + 12 + 6 + 4; ++i) {
    const Job job = h.Next();
    ASSERT_EQ(job.kind, JobKind::kStart);
    seen.emplace_back(job.bracket, job.target_rung);
    h.Start(job);
  }
  EXPECT_EQ(seen[0], std::make_pair(0, 0));
  EXPECT_EQ(seen[26], std::make_pair(0, 0));
  EXPECT_EQ(seen[27], std::make_pair(1, 1));
  EXPECT_EQ(seen[38], std::make_pair(1, 1));
  EXPECT_EQ(seen[39], std::make_pair(2, 2));
  EXPECT_EQ(seen[45], std::make_pair(3, 3));
}

TEST(Hyperband, StateRoundTripsThroughSave) {
  Harness h(SchedulerKind::kHyperband, {1, 3, 9}, 3);
  for (int i = 0; i < 5; ++i) h.Report(h.Start(h.Next()), 0.1 * i);
  SchedulerOptions o{SchedulerKind::kHyperband, RungLadder{{1, 3, 9}, 3}, 3, 0};
  auto copy = MakeScheduler(o);
  ASSERT_TRUE(copy->Load(h.scheduler->Save(), h.trials));
  const Job a = h.Next();
  const Job b = copy->Next(h.trials, true);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.trial_id, b.trial_id);
  EXPECT_EQ(a.bracket, b.bracket);
}

/// Runs `n` new trials of an asha ladder {1, 3, 9} with an early rung at 1, each through rungs
/// 0 and 1 with losses early(i) and late(i); promotions the scheduler asks for in between
/// complete at the top. Returns the verdicts at rung 0.
std::vector<Verdict> RunThroughEarlyRung(Harness& h, int n, double (*early)(int),
                                         double (*late)(int)) {
  std::vector<Verdict> at_early;
  for (int i = 0; i < n; ++i) {
    Job job = h.Next();
    while (job.kind == JobKind::kResume) {
      h.Resume(job);
      EXPECT_EQ(h.Report(job.trial_id, 0.0), Verdict::kComplete);
      job = h.Next();
    }
    const int64_t id = h.Start(job);
    at_early.push_back(h.Report(id, early(i)));
    if (at_early.back() == Verdict::kContinue) {
      // It waits at rung 1, or stops there when its own report cut it retroactively.
      const Verdict v = h.Report(id, late(i));
      EXPECT_TRUE(v == Verdict::kPause || (v == Verdict::kStop && i == kEarlyRungPairs - 1));
    }
  }
  return at_early;
}

// Losses spread over a shuffled order, so no rung result ties with another.
double Shuffled(int i) { return static_cast<double>((i * 37) % 101); }
double ShuffledLater(int i) { return Shuffled(i) / 2 + 0.1; }
double Reversed(int i) { return -Shuffled(i); }

TEST(Asha, AnEarlyRungWhoseRanksAgreeStartsPruningAndCutsTheTrialsThatRanThrough) {
  Harness h(SchedulerKind::kAsha, {1, 3, 9}, 3, 0, /*early=*/1);
  const std::vector<Verdict> first =
      RunThroughEarlyRung(h, kEarlyRungPairs, Shuffled, ShuffledLater);
  // Until 30 trials reached rung 1, rung 0 pruned nobody.
  for (Verdict v : first) EXPECT_EQ(v, Verdict::kContinue);
  // The 30th pair agreed perfectly: rung 0 prunes from now on, and the trials outside its top
  // third that still wait at rung 1 are cut where they are.
  std::vector<int64_t> ranked;
  for (const Trial& t : h.trials) ranked.push_back(t.id);
  std::sort(ranked.begin(), ranked.end(), [&](int64_t a, int64_t b) {
    return h.trials[static_cast<size_t>(a)].rung_losses[0] <
           h.trials[static_cast<size_t>(b)].rung_losses[0];
  });
  std::vector<int64_t> expected;
  for (size_t i = kEarlyRungPairs / 3; i < ranked.size(); ++i) {
    if (h.trials[static_cast<size_t>(ranked[i])].state == TrialState::kPaused)
      expected.push_back(ranked[i]);
  }
  std::vector<int64_t> pruned = h.scheduler->TakePruned();
  std::sort(pruned.begin(), pruned.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_FALSE(expected.empty());
  EXPECT_EQ(pruned, expected);
  for (int64_t id : pruned) h.trials[static_cast<size_t>(id)].state = TrialState::kPruned;
  const nlohmann::json saved = h.scheduler->Save();
  EXPECT_EQ(saved["pruning_from"], 0);
  EXPECT_EQ(saved["cut"].size(), kEarlyRungPairs - kEarlyRungPairs / 3);
  // A cut trial is never promoted from rung 1, however it ranks there.
  for (Job job = h.Next(false); job.kind == JobKind::kResume; job = h.Next(false)) {
    EXPECT_FALSE(saved["cut"].dump().find("[" + std::to_string(job.trial_id) + ",") !=
                 std::string::npos);
    h.Resume(job);
    h.Report(job.trial_id, 0.0);
  }
  // A new trial now pauses at rung 0 to wait for promotion like at any rung.
  const int64_t next = h.Start(h.Next());
  EXPECT_EQ(h.Report(next, 500.0), Verdict::kPause);

  // The judgement and the cut survive a save and load.
  SchedulerOptions o{SchedulerKind::kAsha, RungLadder{{1, 3, 9}, 3, 1}, 3, 0};
  auto copy = MakeScheduler(o);
  ASSERT_TRUE(copy->Load(h.scheduler->Save(), h.trials));
  EXPECT_EQ(copy->Save(), h.scheduler->Save());
  const Job a = h.Next();
  const Job b = copy->Next(h.trials, true);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.trial_id, b.trial_id);
}

TEST(Asha, AnEarlyRungWhoseRanksDisagreeNeverPrunes) {
  for (SchedulerKind kind : {SchedulerKind::kAsha, SchedulerKind::kAshaStop}) {
    Harness h(kind, {1, 3, 9}, 3, 0, /*early=*/1);
    if (kind == SchedulerKind::kAshaStop) {
      // asha-stop: a trial runs on or stops at once; rung 0 never stops anyone.
      for (int i = 0; i < 2 * kEarlyRungPairs; ++i) {
        const int64_t id = h.Start(h.Next());
        EXPECT_EQ(h.Report(id, Shuffled(i)), Verdict::kContinue);
        h.Report(id, Reversed(i));
      }
    } else {
      for (Verdict v : RunThroughEarlyRung(h, 2 * kEarlyRungPairs, Shuffled, Reversed))
        EXPECT_EQ(v, Verdict::kContinue);
    }
    EXPECT_TRUE(h.scheduler->TakePruned().empty());
    const nlohmann::json saved = h.scheduler->Save();
    EXPECT_EQ(saved["pruning_from"], 1);
    EXPECT_EQ(saved["early_rejected"], true);
    EXPECT_TRUE(saved["cut"].empty());
  }
}

// A rung below the first real evaluation: nearly every trial reports the same value there.
double MostlyTied(int i) { return i < 3 ? static_cast<double>(i) : 100.0; }
double MostlyTiedLater(int i) { return MostlyTied(i) / 2; }

TEST(Asha, AnEarlyRungOfMostlyIdenticalResultsIsNotTakenForAgreement) {
  Harness h(SchedulerKind::kAsha, {1, 3, 9}, 3, 0, /*early=*/1);
  // The few distinct results agree perfectly with the rung above, and the ties tie there too:
  // Spearman's correlation is 1, but the rung ranks nothing.
  for (Verdict v : RunThroughEarlyRung(h, 2 * kEarlyRungPairs, MostlyTied, MostlyTiedLater))
    EXPECT_EQ(v, Verdict::kContinue);
  EXPECT_TRUE(h.scheduler->TakePruned().empty());
  const nlohmann::json saved = h.scheduler->Save();
  EXPECT_EQ(saved["pruning_from"], 1);
  EXPECT_EQ(saved["early_rejected"], true);
}

TEST(Sha, TheFirstBracketIsNeverLargerThanThePool) {
  // η^(rungs-1) = 27 members planned, against a table of 10 configurations.
  Harness h(SchedulerKind::kSha, {1, 3, 9, 27}, 3, 0, 0, /*pool_size=*/10);
  for (int i = 0; i < 10; ++i) {
    const Job job = h.Next();
    ASSERT_EQ(job.kind, JobKind::kStart);
    EXPECT_EQ(job.bracket, 0);
    h.Start(job);
  }
  // Its 10 members are all it gets: it closes on them, best third first.
  for (int i = 0; i < 10; ++i) h.Report(i, static_cast<double>(i));
  const Job next = h.Next();
  ASSERT_EQ(next.kind, JobKind::kResume);
  EXPECT_EQ(next.trial_id, 0);
  // Hyperband's first bracket (27 at rung 0) is held to the pool too: the 11th start opens the
  // next bracket instead of waiting for members the table does not have.
  Harness hb(SchedulerKind::kHyperband, {1, 3, 9, 27}, 3, 0, 0, /*pool_size=*/10);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(hb.trials[static_cast<size_t>(hb.Start(hb.Next()))].bracket, 0);
  EXPECT_EQ(hb.Next().bracket, 1);
}

TEST(GeometricLadder, CapsTheLastRungAtMax) {
  EXPECT_EQ(GeometricLadder(3, 24, 2).fidelities, (std::vector<double>{3, 6, 12, 24}));
  // 12 → 15 would add a barrier for 25% more epochs: the ladder goes 6 → 15 instead.
  EXPECT_EQ(GeometricLadder(3, 15, 2).fidelities, (std::vector<double>{3, 6, 15}));
  EXPECT_EQ(GeometricLadder(3, 100, 3).fidelities, (std::vector<double>{3, 9, 27, 100}));
  EXPECT_EQ(GeometricLadder(1, 27, 3).fidelities, (std::vector<double>{1, 3, 9, 27}));
}

}  // namespace
}  // namespace frugal::tune
