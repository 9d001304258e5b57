#include "frugal/tune/study_spec.h"

#include <gtest/gtest.h>

#include <map>

#include "support/test_support.h"

namespace frugal::tune {
namespace {

Result<StudySpec> Parse(const std::string& yaml) {
  return ParseStudySpec(yaml, "study.yaml", "/base");
}

TEST(StudySpec, TheSeedPlanIsExpressibleExactly) {
  auto spec = LoadStudySpec(frugal::testing::SourceDir() / "examples" / "seed-plan.yaml");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->resources.tier, CapacityTier::kSpot);
  EXPECT_EQ(*spec->resources.checkpoint_min, std::chrono::minutes(15));
  EXPECT_EQ(*spec->resources.checkpoint_max, std::chrono::minutes(30));
  EXPECT_EQ(spec->fidelity.grace, 3);
  EXPECT_EQ(spec->Ladder().fidelities, (std::vector<double>{3, 15}));  // prune at 3, top at 15
  EXPECT_EQ(spec->fidelity.reduction_factor, 2);                       // keep the top 50%
  EXPECT_EQ(*spec->gates.max_trials, 40);
  EXPECT_EQ(*spec->gates.budget, Money::FromCents(100'00));
  EXPECT_EQ(*spec->gates.max_gpu_hours, 20);
  EXPECT_EQ(spec->scheduler, SchedulerKind::kAsha);
}

TEST(StudySpec, EveryExampleParses) {
  for (const auto& entry :
       std::filesystem::directory_iterator(frugal::testing::SourceDir() / "examples")) {
    if (entry.path().extension() != ".yaml") continue;
    auto spec = LoadStudySpec(entry.path());
    EXPECT_TRUE(spec) << entry.path() << ": " << spec.error().message;
  }
}

TEST(StudySpec, TagsAreAnyNamesWithScalarValues) {
  const std::string base =
      "name: s\nreplay: {dir: d}\nobjective: {metric: m, direction: "
      "maximize}\nfidelity: {max: 10}\n";
  auto tagged = Parse(base + "tags: {team: nlp, cost_center: cc-42}\n");
  ASSERT_TRUE(tagged) << tagged.error().message;
  EXPECT_EQ(tagged->tags,
            (std::map<std::string, std::string>{{"team", "nlp"}, {"cost_center", "cc-42"}}));
  auto nested = Parse(base + "tags:\n  team: [a, b]\n");
  ASSERT_FALSE(nested);
  EXPECT_NE(nested.error().message.find("study.yaml:6:"), std::string::npos)
      << nested.error().message;
  EXPECT_NE(nested.error().message.find("tags.team"), std::string::npos);
}

TEST(StudySpec, MissingSectionsAndReplayMetricsAreReportedAtTheSpecsLine) {
  auto no_fidelity = Parse(
      "name: s\nreplay: {dir: d}\nobjective: {metric: m, direction: min"
      "imize}\n");
  ASSERT_FALSE(no_fidelity);
  EXPECT_EQ(no_fidelity.error().message, "study.yaml:1:1: missing required field 'fidelity'");

  frugal::testing::TempDir dir;
  frugal::testing::WriteTestFile(
      dir / "t" / "curves.csv", "config_id,epoch,elapsed_s,val_loss,train_loss\nc1,1,10,0.5,0.6\n");
  frugal::testing::WriteTestFile(dir / "t" / "configs.csv", "config_id,lr\nc1,0.1\n");
  const std::string head = "name: s\nreplay: {dir: t}\nfidelity: {max: 1}\n";
  auto metric = ParseStudySpec(head + "objective:\n  metric: val_los\n  direction: minimize\n",
                               "study.yaml", dir.path());
  ASSERT_FALSE(metric);
  EXPECT_EQ(metric.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(metric.error().message.rfind("study.yaml:5:11: field 'objective.metric': 'val_los' "
                                         "is not a column of ",
                                         0),
            0u)
      << metric.error().message;
  EXPECT_NE(metric.error().message.find("did you mean 'val_loss'"), std::string::npos);
  auto watch = ParseStudySpec(
      head + "objective:\n  metric: val_loss\n  direction: minimize\n  watch: [nosuch_metric]\n",
      "study.yaml", dir.path());
  ASSERT_FALSE(watch);
  EXPECT_EQ(watch.error().message.rfind("study.yaml:7:11: field 'objective.watch': "
                                        "'nosuch_metric' is not a column",
                                        0),
            0u)
      << watch.error().message;
  auto fine = ParseStudySpec(
      head + "objective:\n  metric: val_loss\n  direction: minimize\n  watch: [train_loss]\n",
      "study.yaml", dir.path());
  EXPECT_TRUE(fine) << fine.error().message;
  // Found by the fuzzer: a fidelity column that is not in the table was reported at
  // curves.csv:1; a cost column likewise.
  auto fidelity = ParseStudySpec(
      "name: s\nreplay: {dir: t}\nfidelity: {name: epochs, max: 1}\nobjective: {metric: "
      "val_loss, direction: minimize}\n",
      "study.yaml", dir.path());
  ASSERT_FALSE(fidelity);
  EXPECT_EQ(fidelity.error().message.rfind("study.yaml:3:18: field 'fidelity.name': 'epochs' "
                                           "is not a column",
                                           0),
            0u)
      << fidelity.error().message;
  auto cost = ParseStudySpec(
      "name: s\nreplay: {dir: t, cost_column: seconds}\nfidelity: {max: 1}\nobjective: "
      "{metric: val_loss, direction: minimize}\n",
      "study.yaml", dir.path());
  ASSERT_FALSE(cost);
  EXPECT_EQ(cost.error().message.rfind("study.yaml:2:31: field 'replay.cost_column'", 0), 0u)
      << cost.error().message;
}

TEST(StudySpec, ErrorsNameFileLineAndField) {
  const std::string base =
      "name: s\nreplay: {dir: d}\nobjective: {metric: m, direction: maximize}\n";
  auto bad_key = Parse(base + "fidelity: {max: 10}\ngates: {budget_usdd: 5}\n");
  ASSERT_FALSE(bad_key);
  EXPECT_EQ(bad_key.error().code, ErrorCode::kBadInput);
  EXPECT_NE(bad_key.error().message.find("study.yaml:5:"), std::string::npos)
      << bad_key.error().message;
  EXPECT_NE(bad_key.error().message.find("did you mean 'budget_usd'"), std::string::npos);

  auto bad_rungs = Parse(base + "fidelity: {max: 10, grace: 3, rungs: [2, 10]}\n");
  ASSERT_FALSE(bad_rungs);
  EXPECT_NE(bad_rungs.error().message.find("fidelity.rungs"), std::string::npos);

  auto bad_when =
      Parse(base +
            "fidelity: {max: 10}\nspace:\n  m: {type: float, low: 0, high: 1, when: {opt: sgd}}\n");
  ASSERT_FALSE(bad_when);
  EXPECT_NE(bad_when.error().message.find("study.yaml:6:"), std::string::npos)
      << bad_when.error().message;

  auto both = Parse(base + "fidelity: {max: 10}\ntrial: {command: python3 train.py}\n");
  ASSERT_FALSE(both);
  EXPECT_NE(both.error().message.find("exactly one"), std::string::npos);

  auto log0 = Parse(
      base + "fidelity: {max: 10}\nspace:\n  lr: {type: float, low: 0, high: 1, scale: log}\n");
  ASSERT_FALSE(log0);
  EXPECT_NE(log0.error().message.find("low > 0"), std::string::npos);
}

// Values a study would otherwise accept and then misbehave on: each is refused at its line,
// naming its field.
TEST(StudySpec, SamplersByName) {
  const std::string base =
      "name: s\nreplay: {dir: d}\nobjective: {metric: m, direction: maximize}\n"
      "fidelity: {max: 10}\n";
  const std::map<std::string, SamplerKind> names = {{"random", SamplerKind::kRandom},
                                                    {"halton", SamplerKind::kHalton},
                                                    {"quasi-random", SamplerKind::kHalton},
                                                    {"tpe", SamplerKind::kTpe},
                                                    {"gp", SamplerKind::kGp}};
  for (const auto& [name, kind] : names) {
    auto spec = Parse(base + "sampler: " + name + "\n");
    ASSERT_TRUE(spec) << name << ": " << spec.error().message;
    EXPECT_EQ(spec->sampler, kind) << name;
  }
  auto unknown = Parse(base + "sampler: bayes\n");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("study.yaml:5:"), std::string::npos)
      << unknown.error().message;
  EXPECT_NE(unknown.error().message.find("random, halton, tpe, gp"), std::string::npos);
}

TEST(StudySpec, OutOfRangeValuesAreRefusedAtTheirField) {
  const std::string base =
      "name: s\nreplay: {dir: d}\nobjective: {metric: m, direction: maximize}\n"
      "fidelity: {max: 10}\nresources: {price_per_hour: 2.5}\n";
  const std::string opt = "space:\n  opt: {type: categorical, choices: [adamw, sgd]}\n";
  const struct {
    std::string yaml;
    std::string field;
  } cases[] = {
      {"scheduler: {type: median, min_trials: 0}\n", "scheduler.min_trials"},
      {"scheduler: {type: sha, bracket_size: 0}\n", "scheduler.bracket_size"},
      {"gates: {max_gpu_hours: -1}\n", "gates.max_gpu_hours"},
      {"gates: {trial_max_wall: 0s}\n", "gates.trial_max_wall"},
      {"gates: {plateau: {epsilon: -0.1, trials: 5}}\n", "gates.plateau.epsilon"},
      {"gates: {plateau: {trials: 0}}\n", "gates.plateau.trials"},
      {"gates: {plateau: {spend_usd: -1}}\n", "gates.plateau.spend_usd"},
      {"space:\n  n: {type: int, low: 1.5, high: 3.5}\n", "n.low"},
      {"space:\n  bs: {type: categorical, choices: [64, 128, 64]}\n", "bs.choices"},
      {opt + "  m: {type: float, low: 0.8, high: 0.99, when: {opt: [rmsprop]}}\n", "m.when"},
      {"space:\n  lr: {type: float, low: 0, high: 1}\n"
       "  m: {type: float, low: 0, high: 1, when: {lr: [0.5]}}\n",
       "m.when"},
      {"space:\n  layers: {type: int, low: 1, high: 3}\n"
       "  w: {type: float, low: 0, high: 1, when: {layers: [4]}}\n",
       "w.when"},
  };
  for (const auto& c : cases) {
    auto spec = Parse(base + c.yaml);
    ASSERT_FALSE(spec) << c.yaml;
    EXPECT_EQ(spec.error().code, ErrorCode::kBadInput);
    EXPECT_NE(spec.error().message.find("study.yaml:"), std::string::npos) << spec.error().message;
    EXPECT_NE(spec.error().message.find("field '" + c.field + "'"), std::string::npos)
        << c.yaml << " -> " << spec.error().message;
  }
  auto dots = Parse(
      "name: ..\nreplay: {dir: d}\nobjective: {metric: m, direction: maximize}\n"
      "fidelity: {max: 10}\n");
  ASSERT_FALSE(dots);
  EXPECT_NE(dots.error().message.find("field 'name'"), std::string::npos);
  // A conditional value the parent does take, and an int parent, are fine.
  auto fine = Parse(base + opt + "  m: {type: float, low: 0.8, high: 0.99, when: {opt: sgd}}\n");
  EXPECT_TRUE(fine) << fine.error().message;
}

TEST(StudySpec, DollarGatesNeedAPrice) {
  const std::string base =
      "name: s\nreplay: {dir: d}\nobjective: {metric: m, direction: maximize}\n"
      "fidelity: {max: 10}\n";
  auto unpriced = Parse(base + "resources: {gpus: 1, tier: on_demand}\ngates: {budget_usd: 5}\n");
  ASSERT_FALSE(unpriced);
  EXPECT_NE(unpriced.error().message.find("study.yaml:6:"), std::string::npos)
      << unpriced.error().message;
  EXPECT_NE(unpriced.error().message.find("field 'gates.budget_usd'"), std::string::npos);
  auto plateau = Parse(base + "gates: {plateau: {spend_usd: 5}}\n");
  ASSERT_FALSE(plateau);
  EXPECT_NE(plateau.error().message.find("gates.plateau.spend_usd"), std::string::npos);
  auto free = Parse(base + "resources: {price_per_hour: 0}\ngates: {budget_usd: 5}\n");
  ASSERT_FALSE(free);
  EXPECT_NE(free.error().message.find("resources.price_per_hour"), std::string::npos);
  // Gates in GPU-hours and trials need no price.
  auto hours = Parse(base + "gates: {max_gpu_hours: 2, max_trials: 10}\n");
  EXPECT_TRUE(hours) << hours.error().message;
  auto priced = Parse(base + "resources: {price_per_hour: 2.5}\ngates: {budget_usd: 5}\n");
  EXPECT_TRUE(priced) << priced.error().message;
}

// Choices written as numbers reach trials as numbers (Optuna's suggest_categorical keeps the
// type); quoted ones stay text.
TEST(StudySpec, NumericChoicesAreNumbers) {
  auto spec = Parse(
      "name: s\nreplay: {dir: d}\nobjective: {metric: m, direction: maximize}\n"
      "fidelity: {max: 10}\nspace:\n  bs: {type: categorical, choices: [64, 128]}\n"
      "  drop: {type: categorical, choices: [0.1, 0.25]}\n"
      "  tag: {type: categorical, choices: ['64', sgd]}\n  epochs: {type: fixed, value: 15}\n"
      "  w: {type: float, low: 0, high: 1, when: {bs: 128}}\n");
  ASSERT_TRUE(spec) << spec.error().message;
  const Config c = spec->space.ToConfig({0.9, 0.9, 0.1, 0.5, 0.5});
  EXPECT_EQ(ConfigToJson(c).dump(), R"({"bs":128,"drop":0.25,"epochs":15,"tag":"64","w":0.5})");
  EXPECT_FALSE(spec->space.ToConfig({0.1, 0.9, 0.1, 0.5, 0.5}).contains("w"));
}

TEST(StudySpec, ScaleByReadsTheLadderAsSharesOfEachTrialsOwnSchedule) {
  auto spec = Parse(
      "name: s\nreplay: {dir: d}\nobjective: {metric: m, direction: maximize}\n"
      "fidelity: {max: 90, grace: 10, reduction_factor: 3, scale_by: epochs}\n"
      "space:\n  epochs: {type: int, low: 5, high: 90}\n");
  ASSERT_TRUE(spec) << spec.error().message;
  const RungLadder ladder = spec->Ladder();
  ASSERT_EQ(ladder.fidelities, (std::vector<double>{10, 30, 90}));
  auto rungs = [&](const Config& config) {
    std::vector<double> out;
    for (int k = 0; k <= ladder.top(); ++k) out.push_back(spec->RungFidelity(ladder, config, k));
    return out;
  };
  // The longest schedule uses the ladder as written; a 45-epoch one reports at half of each
  // rung, rounded up to whole epochs, and completes at its own end; a 5-epoch one reports
  // its first two rungs at the same epoch.
  EXPECT_EQ(rungs({{"epochs", int64_t{90}}}), (std::vector<double>{10, 30, 90}));
  EXPECT_EQ(rungs({{"epochs", int64_t{45}}}), (std::vector<double>{5, 15, 45}));
  EXPECT_EQ(rungs({{"epochs", int64_t{5}}}), (std::vector<double>{1, 2, 5}));
  EXPECT_EQ(rungs({{"epochs", std::string("20")}}), (std::vector<double>{3, 7, 20}));  // a table
  EXPECT_EQ(rungs({}), (std::vector<double>{10, 30, 90}));  // inactive: the ladder as written

  const std::string base =
      "name: s\nreplay: {dir: d}\nobjective: {metric: m, direction: "
      "maximize}\nfidelity: {max: 90, scale_by: epochs}\n";
  auto unknown = Parse(base + "space:\n  lr: {type: float, low: 0.1, high: 1}\n");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("study.yaml:4:"), std::string::npos)
      << unknown.error().message;
  EXPECT_NE(unknown.error().message.find("fidelity.scale_by"), std::string::npos);
  EXPECT_NE(unknown.error().message.find("not a parameter"), std::string::npos);
  auto text = Parse(base + "space:\n  epochs: {type: categorical, choices: [short, long]}\n");
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message.find("not a number"), std::string::npos);
  auto too_long = Parse(base + "space:\n  epochs: {type: int, low: 10, high: 120}\n");
  ASSERT_FALSE(too_long);
  EXPECT_NE(too_long.error().message.find("past fidelity.max"), std::string::npos);
  EXPECT_TRUE(Parse(base + "space:\n  epochs: {type: categorical, choices: [30, 90]}\n"));
}

TEST(StudySpec, EarlyRungsLieBelowAnUnstatedGraceAndNeverBelowAStatedOne) {
  const std::string base =
      "name: s\nreplay: {dir: d}\nobjective: {metric: m, direction: maximize}\n";
  auto ladder = [&](const std::string& rest) {
    auto spec = Parse(base + rest);
    EXPECT_TRUE(spec) << spec.error().message;
    return spec ? spec->Ladder() : RungLadder{};
  };
  // The default grace (3) with asha: an early rung at 1 below it.
  RungLadder l = ladder("fidelity: {max: 27}\n");
  EXPECT_EQ(l.fidelities, (std::vector<double>{1, 3, 9, 27}));
  EXPECT_EQ(l.early, 1);
  // A stated grace is a promise: nothing prunes before it unless early rungs are asked for.
  l = ladder("fidelity: {max: 27, grace: 3}\n");
  EXPECT_EQ(l.fidelities, (std::vector<double>{3, 9, 27}));
  EXPECT_EQ(l.early, 0);
  // Asked for: grace/η, grace/η², … rounded down to whole multiples of min.
  l = ladder("fidelity: {max: 64, grace: 8, reduction_factor: 2.5, early_rungs: auto}\n");
  EXPECT_EQ(l.fidelities, (std::vector<double>{1, 3, 8, 20, 64}));
  EXPECT_EQ(l.early, 2);
  l = ladder("fidelity: {min: 2, max: 54, grace: 6, early_rungs: auto}\n");
  EXPECT_EQ(l.fidelities, (std::vector<double>{2, 6, 18, 54}));
  EXPECT_EQ(l.early, 1);
  // No room below the grace, and the schedulers without a rung-by-rung cut: none.
  EXPECT_EQ(ladder("fidelity: {max: 27, grace: 1, early_rungs: auto}\n").early, 0);
  EXPECT_EQ(ladder("fidelity: {max: 27}\nscheduler: hyperband\n").early, 0);
  EXPECT_EQ(ladder("fidelity: {max: 27}\nscheduler: asha-stop\n").early, 1);
  EXPECT_EQ(ladder("fidelity: {max: 27, early_rungs: 'off'}\n").early, 0);

  auto sha = Parse(base + "fidelity: {max: 27, early_rungs: auto}\nscheduler: sha\n");
  ASSERT_FALSE(sha);
  EXPECT_EQ(sha.error().code, ErrorCode::kBadInput);
  EXPECT_NE(sha.error().message.find("study.yaml:4:"), std::string::npos) << sha.error().message;
  EXPECT_NE(sha.error().message.find("fidelity.early_rungs"), std::string::npos);
  auto word = Parse(base + "fidelity: {max: 27, early_rungs: yes}\n");
  ASSERT_FALSE(word);
  EXPECT_NE(word.error().message.find("'auto' or 'off'"), std::string::npos)
      << word.error().message;
}

TEST(StudySpec, WithReplaySourceReplacesTheTrialCommand) {
  const std::string yaml =
      "name: s\ntrial: {command: [python3, train.py]}\nspace:\n  lr: {type: float, low: 0.1, high: "
      "1}\n"
      "objective: {metric: m, direction: maximize}\nfidelity: {max: 10}\n";
  auto replaced = WithReplaySource(yaml, ReplaySource{"/data/curves", "id", "cost"});
  ASSERT_TRUE(replaced);
  auto spec = Parse(*replaced);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_TRUE(spec->command.empty());
  EXPECT_EQ(spec->replay->dir, "/data/curves");
  EXPECT_EQ(spec->replay->cost_column, "cost");
}

TEST(StudySpec, WithReplaySourceKeepsEveryOtherFieldOnItsLine) {
  // `tune STUDY.yaml --replay DIR` parses the replaced text: its errors must still point at
  // the user's lines and columns, comments and a multi-line trial block included.
  const std::string yaml =
      "# a comment\nname: s\ntrial:\n  command: [python3, train.py]\n  chaos: {every: 5m}\n"
      "space:\n  lr: {type: float, low: 0.1, high: 1}\n"
      "objective: {metric: m, direction: maximize}\nfidelity: {name: epoch, max: 10}\n";
  auto replaced = WithReplaySource(yaml, ReplaySource{"/data/my curves", "id", "cost"});
  ASSERT_TRUE(replaced);
  auto spec = ParseStudySpec(*replaced, "s.yaml", "/");
  ASSERT_TRUE(spec) << spec.error().message << "\n" << *replaced;
  EXPECT_TRUE(spec->command.empty());
  EXPECT_EQ(spec->replay->dir, "/data/my curves");
  EXPECT_EQ(spec->replay->config_column, "id");
  EXPECT_EQ(spec->fidelity.max_where, "s.yaml:9:30");
  auto bad = ParseStudySpec(*replaced + "seed: -1\n", "s.yaml", "/");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message.rfind("s.yaml:10:7: field 'seed'", 0), 0u) << bad.error().message;
}

}  // namespace
}  // namespace frugal::tune
