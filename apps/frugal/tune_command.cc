// frugal tune: budgeted multi-fidelity tuning. `tune STUDY.yaml [--replay DIR]`, the all-flags
// replay form, `tune status NAME`, `tune resume NAME`, `tune check STUDY.yaml`.

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

#include "commands.h"
#include "frugal/app/studies.h"
#include "frugal/catalog/catalog.h"
#include "frugal/core/atomic_file.h"
#include "frugal/core/file_lock.h"
#include "frugal/core/table.h"
#include "frugal/ledger/ledger.h"
#include "frugal/tune/replay_runner.h"
#include "frugal/tune/study.h"
#include "frugal/tune/study_check.h"
#include "frugal/tune/study_curve.h"
#include "frugal/tune/study_report.h"
#include "policy_gate.h"
#include "tune_setup.h"
#include "tune_spec_text.h"

namespace frugal::cli {

namespace {

namespace fs = std::filesystem;
using tune::StudySpec;

/// A ninja-style status line on a smart terminal: overprinted, at most ten times a second;
/// nothing elsewhere. `printer` must outlive the study's run.
tune::RunOptions WithStatusLine(tune::RunOptions options, LinePrinter& printer) {
  if (!printer.smart()) return options;
  auto last = std::make_shared<std::chrono::steady_clock::time_point>();
  options.on_event = [&printer, last](const tune::Study& study) {
    const auto now = std::chrono::steady_clock::now();
    if (now - *last < std::chrono::milliseconds(100)) return;
    *last = now;
    const tune::StudySummary sum = study.Summary();
    printer.Status(fmt::format("[{} trials · {} · {:.1f} GPU-h · best {}]", sum.trials_started,
                               sum.spend.ToString(), sum.gpu_hours,
                               sum.best_value ? fmt::format("{:.4f}", *sum.best_value) : "-"));
  };
  return options;
}

/// --curve-svg: the best-so-far curve of `summary` (a summary's JSON) as an SVG file.
Result<void> WriteCurveSvg(const std::string& path, const nlohmann::json& summary,
                           const StudySpec& spec) {
  if (path.empty()) return {};
  const std::optional<double> budget =
      spec.gates.budget ? std::optional<double>(spec.gates.budget->dollars()) : std::nullopt;
  return WriteFileAtomically(
      path, tune::BestSoFarSvg(summary.value("best_so_far", nlohmann::json::array()),
                               spec.objective.metric, summary.value("spend_usd", 0.0), budget));
}

Result<void> Finish(Streams& s, const GlobalOptions& global, const tune::Study& study,
                    const Bench& b, Result<tune::StudySummary> result,
                    const std::string& curve_svg) {
  if (!result) return Fail(result.error());
  FRUGAL_TRY(WriteCurveSvg(curve_svg, tune::SummaryToJson(*result), study.spec()));
  if (global.json) {
    nlohmann::json doc = tune::RunJson(study, *result, b.table.get());
    if (b.supervised != nullptr) {
      doc["supervised"] = {{"invocations", b.supervised->invocations()},
                           {"preemptions", b.supervised->preemptions()},
                           {"workers", b.spec.resources.workers},
                           {"peak_concurrency", b.supervised->peak_concurrency()},
                           {"trials_dir", (StudyDir(result->name) / "trials").string()}};
    }
    WriteJson(s, doc);
  } else {
    tune::PrintRun(s.out, study, *result, b.table.get());
    if (b.supervised != nullptr) {
      s.out << fmt::format(
          "supervised: {} supervisor invocation(s), {} preemption(s), each resumed from the "
          "trial's newest checkpoint; runs under {}\n",
          b.supervised->invocations(), b.supervised->preemptions(),
          (StudyDir(result->name) / "trials").string());
    }
  }
  // A study whose every trial failed found nothing: a script must not take it for success.
  const int64_t failed = result->trials_by_state.at("failed");
  if (result->trials_started > 0 && failed == result->trials_started) {
    return Fail(ErrorCode::kFailed,
                fmt::format("study '{}': {} failed; see {} under {}", result->name,
                            failed == 1 ? std::string("its one trial")
                                        : fmt::format("all {} trials", failed),
                            failed == 1 ? "its log" : "their logs",
                            b.supervised != nullptr ? (StudyDir(result->name) / "trials").string()
                                                    : "the replay table (every curve diverged)"));
  }
  return {};
}

/// A study that trains real trials, checked against the policy before anything is stored or
/// cleared. Replays spend nothing on GPUs and are not checked.
/// The study as `load` reads it from the catalog, judged by the policy in force for `command`;
/// refused (exit 3) unless overridden.
template <typename LoadSubject>
Result<PolicyCheck> JudgeStudy(const std::string& command, const StudySpec& spec, LoadSubject load,
                               const TuneOptions& o, const GlobalOptions& global, Streams& s) {
  PolicyCheck check;
  const catalog::Catalog catalog = FRUGAL_TRY(LoadCatalog(global));
  check.policy = FRUGAL_TRY(PolicyInEffect(global, catalog));
  if (!check.policy) return check;
  const policy::Subject subject = FRUGAL_TRY(load(catalog));
  check.enforcement = {command, "study " + spec.name, subject.tags,
                       policy::Check(check.policy->policy, subject), o.override_reason};
  FRUGAL_TRY(RefuseUnlessOverridden(check.enforcement, *check.policy, global, s));
  return check;
}

Result<PolicyCheck> CheckStudyAgainstPolicy(const TuneOptions& o, const StudySpec& spec,
                                            const GlobalOptions& global, Streams& s) {
  if (spec.replay) return PolicyCheck{};
  return JudgeStudy(
      "tune", spec, [&o](const catalog::Catalog& c) { return policy::LoadSubject(o.spec_path, c); },
      o, global, s);
}

/// A resume that raises or sets a study's budget or GPU-hour cap is admitted again: the stored
/// spec with its new caps is checked against the policy in force, as a new study would be (a
/// budget above the approval limit needs its tag, or --override).
Result<PolicyCheck> CheckResumeAgainstPolicy(const TuneOptions& o, const tune::SpecText& text,
                                             const StudySpec& spec, const tune::CapChange& caps,
                                             const GlobalOptions& global, Streams& s) {
  if (spec.replay || (!caps.budget && !caps.max_gpu_hours)) return PolicyCheck{};
  return JudgeStudy(
      "tune resume", spec,
      [&](const catalog::Catalog& c) -> Result<policy::Subject> {
        policy::Subject subject =
            FRUGAL_TRY(policy::StudySubjectFromText(text.yaml, text.source, c));
        subject.budget = spec.gates.budget;
        return subject;
      },
      o, global, s);
}

/// Records an override in the study's ledger (or the default one when study state is kept in
/// files) and links it to the study once the ledger knows it.
class StudyOverride {
 public:
  Result<void> Record(const PolicyCheck& check, const GlobalOptions& global,
                      ledger::Ledger* ledger) {
    if (check.enforcement.violations.empty()) return {};
    if (ledger == nullptr) {
      own_ = FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kCreateIfMissing));
      ledger = own_.get();
    }
    ledger_ = ledger;
    id_ = FRUGAL_TRY(RecordOverride(*ledger, check.enforcement, *check.policy));
    return {};
  }
  /// Links the override to the study `name` when it is in the same ledger; once.
  void Link(const std::string& name, Streams& s) {
    if (!id_ || linked_ || own_) return;
    auto found = ledger_->FindStudy(name);
    if (!found || !*found) return;
    if (auto done = ledger_->LinkOverride(*id_, std::nullopt, (*found)->id); !done) {
      s.err << fmt::format("frugal: warning: override {} not linked to study {}: {}\n", *id_, name,
                           done.error().message);
    }
    linked_ = true;
  }

 private:
  std::unique_ptr<ledger::Ledger> own_;
  ledger::Ledger* ledger_ = nullptr;
  std::optional<ledger::OverrideId> id_;
  bool linked_ = false;
};

Result<void> RunTune(const TuneOptions& o, const GlobalOptions& global, Streams& s) {
  FRUGAL_TRY(CheckOverrideReason(o.override_reason));
  if (o.spec_path.empty() && o.replay_dir.empty()) {
    return Fail(
        ErrorCode::kBadInput,
        "tune needs a STUDY.yaml, or --replay DIR with --metric (see 'frugal tune --help')");
  }
  if (!o.spec_path.empty() && !o.flags_form_given.empty()) {
    return Fail(ErrorCode::kBadInput,
                o.flags_form_given.front() + " cannot change " + o.spec_path +
                    ": set it in the spec (with a spec, only --replay applies)");
  }
  const tune::SpecText text = FRUGAL_TRY(o.spec_path.empty() ? SpecFromFlags(o) : SpecFromFile(o));
  const StudySpec parsed = FRUGAL_TRY(tune::ParseStudySpec(text.yaml, text.source, text.base_dir));
  // The policy first: a refused study writes nothing, not even the ledger its trials would use.
  const PolicyCheck policy_check = FRUGAL_TRY(CheckStudyAgainstPolicy(o, parsed, global, s));
  const FileLock lock = FRUGAL_TRY(LockStudy(parsed.name));
  Bench b = FRUGAL_TRY(Assemble(text, global, FreshRunPrefix(parsed.name)));
  Store st = FRUGAL_TRY(OpenStore(global, ledger::CreateMode::kCreateIfMissing, parsed.name));
  tune::StudyStore& store = *st.store;
  if (auto existing = store.Load(b.spec.name); existing && !o.restart) {
    if (existing->value("status", "") != "finished") {
      return Fail(ErrorCode::kBadInput,
                  "study '" + b.spec.name + "' exists and has not finished: " +
                      "'frugal tune resume " + b.spec.name + "', or pass --restart");
    }
  }
  StudyOverride overridden;
  FRUGAL_TRY(overridden.Record(policy_check, global, st.ledger.get()));
  // The earlier study of this name keeps its results (and its trials' checkpoints) under
  // another name; the new one starts clean, so none of them is resumed by mistake.
  const std::string kept = FRUGAL_TRY(store.Retire(b.spec.name));
  if (!kept.empty()) {
    s.err << "note: the earlier study '" << b.spec.name << "' is kept as '" << kept
          << "' (frugal tune status " << kept << ")\n";
  }
  if (b.supervised != nullptr) FRUGAL_TRY(SetTrialsAside(b.spec.name, kept));
  // Said before anything is spent: a budget below one full run can only buy a partial result.
  if (const auto full_run = tune::FullRunItem(b.spec, b.table.get()); full_run && !full_run->ok) {
    s.err << "warning: study '" << b.spec.name << "': " << full_run->detail << "; " << full_run->fix
          << "\n";
  }
  auto study = FRUGAL_TRY(tune::Study::Create(text, b.spec, *b.runner, store, b.table.get()));
  overridden.Link(b.spec.name, s);
  if (b.supervised != nullptr) b.supervised->BindGate(&study->gate());
  LinePrinter status(s.err, s.err_terminal, s.color);
  Result<tune::StudySummary> ran = study->Run(
      WithStatusLine({o.halt_after, {}, o.save_every_ms, b.supervised != nullptr}, status));
  status.Clear();
  overridden.Link(b.spec.name, s);
  return Finish(s, global, *study, b, std::move(ran), o.curve_svg);
}

Result<void> ResumeTune(const TuneOptions& o, const GlobalOptions& global, Streams& s) {
  FRUGAL_TRY(CheckOverrideReason(o.override_reason));
  const tune::CapChange caps = FRUGAL_TRY(tune::ParseCapFlags(o.new_caps));
  const FileLock lock = FRUGAL_TRY(LockStudy(o.study));
  Store st = FRUGAL_TRY(OpenStore(global, ledger::CreateMode::kMustExist, o.study));
  tune::StudyStore& store = *st.store;
  const nlohmann::json state = FRUGAL_TRY(store.Load(o.study));
  const tune::SpecText text{state.value("spec_yaml", ""), state.value("spec_source", ""),
                            state.value("spec_base", "")};
  NoteEditedSpec(state, s);
  Bench b = FRUGAL_TRY(Assemble(text, global, "", &state));
  // New caps replace the stored ones for good: the study saves the caps in force.
  const tune::Gates before = b.spec.gates;
  const std::vector<tune::CapEdit> edits = FRUGAL_TRY(tune::ApplyCapChange(b.spec, caps));
  const PolicyCheck policy_check =
      FRUGAL_TRY(CheckResumeAgainstPolicy(o, text, b.spec, caps, global, s));
  StudyOverride overridden;
  FRUGAL_TRY(overridden.Record(policy_check, global, st.ledger.get()));
  overridden.Link(o.study, s);
  auto study = FRUGAL_TRY(tune::Study::Restore(state, b.spec, *b.runner, store, b.table.get()));
  if (b.supervised != nullptr) b.supervised->BindGate(&study->gate());
  if (!edits.empty()) {
    study->OnCapsChanged(before, edits);
    PrintCapEdits(o.study, edits, study->gate(), s);
  }
  LinePrinter status(s.err, s.err_terminal, s.color);
  Result<tune::StudySummary> ran = study->Run(
      WithStatusLine({o.halt_after, {}, o.save_every_ms, b.supervised != nullptr}, status));
  status.Clear();
  return Finish(s, global, *study, b, std::move(ran), o.curve_svg);
}

Result<void> StatusTune(const TuneOptions& o, const GlobalOptions& global, Streams& s) {
  const Store st = FRUGAL_TRY(OpenStore(global, ledger::CreateMode::kMustExist, ""));
  const tune::StudyStatus status = FRUGAL_TRY(tune::LoadStudyStatus(*st.store, o.study));
  if (status.interrupted && !global.json) {
    // Saved as running, but the tuner that ran it is gone (killed): say what it is.
    s.err << "note: no tuner is running study '" << o.study
          << "' (it was stopped without saving); continue it with 'frugal tune resume " << o.study
          << "'\n";
  }
  FRUGAL_TRY(WriteCurveSvg(o.curve_svg, status.state.value("summary", nlohmann::json::object()),
                           status.spec));
  if (global.json) {
    WriteJson(s, tune::StatusJson(status.spec, status.state, status.trials));
  } else {
    tune::PrintStatus(s.out, status.spec, status.state, status.trials);
  }
  return {};
}

/// `tune list`: every study in the store (app/studies.h), the document GET /api/v1/studies
/// returns.
Result<void> ListTune(const GlobalOptions& global, Streams& s) {
  const Store st = FRUGAL_TRY(OpenStore(global, ledger::CreateMode::kMustExist, ""));
  const nlohmann::json doc = FRUGAL_TRY(app::StudyListJson(*st.store));
  if (global.json) {
    WriteJson(s, doc);
    return {};
  }
  Table t({{"NAME"}, {"STATUS"}, {"TRIALS", Align::kRight}, {"SPEND", Align::kRight}, {"BEST"}});
  for (const nlohmann::json& study : doc.at("studies")) {
    const auto text = [&study](const char* key) {
      if (!study.contains(key) || study.at(key).is_null()) return std::string("-");
      return study.at(key).is_string() ? study.at(key).get<std::string>() : study.at(key).dump();
    };
    t.AddRow({text("name"), study.contains("error") ? "unreadable" : text("status"),
              text("trials_started"), study.contains("spend_usd") ? "$" + text("spend_usd") : "-",
              text("best_value")});
  }
  t.Render(s.out);
  return {};
}

Result<void> CheckTune(const TuneOptions& o, const GlobalOptions& global, Streams& s) {
  // The spec as `tune SPEC --replay DIR` would run it: --replay replaces the spec's table.
  TuneOptions file = o;
  file.spec_path = o.check_path;
  const tune::SpecText text = FRUGAL_TRY(SpecFromFile(file));
  const StudySpec spec = FRUGAL_TRY(ParsePriced(text, global));
  std::optional<tune::CheckItem> full_run;
  // What `tune` would refuse before spending, `check` refuses too (exit 2): a trial program
  // that is not there, a replay table that is unreadable or does not match the space.
  if (spec.replay) {
    const tune::ReplayTable table = FRUGAL_TRY(
        tune::ReplayTable::Load(*spec.replay, spec.objective.metric, spec.fidelity.name));
    tune::ReplayRunner runner(table, spec.fidelity.max);
    tune::MemoryStudyStore scratch;
    FRUGAL_TRY(tune::Study::Create(text, spec, runner, scratch, &table));
    full_run = tune::FullRunItem(spec, &table);
  } else {
    FRUGAL_TRY(CheckCommand(spec, text.base_dir));
    full_run = tune::FullRunItem(spec, nullptr);
  }
  std::vector<tune::CheckItem> items = tune::CheckStudy(spec);
  if (full_run) items.push_back(std::move(*full_run));
  const auto missing =
      std::count_if(items.begin(), items.end(), [](const auto& i) { return !i.ok; });
  if (global.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& i : items) {
      list.push_back({{"item", i.name}, {"ok", i.ok}, {"detail", i.detail}, {"fix", i.fix}});
    }
    WriteJson(s, {{"study", spec.name}, {"items", list}, {"missing", missing}});
  } else {
    for (const auto& i : items) {
      s.out << (i.ok ? "  ok       " : "  MISSING  ") << i.name << ": " << i.detail << "\n";
      if (!i.ok) s.out << "           fix: " << i.fix << "\n";
    }
    s.out << (missing == 0 ? "ready to spend\n" : fmt::format("{} item(s) missing\n", missing));
  }
  if (missing > 0)
    return Fail(ErrorCode::kFailed,
                fmt::format("{}: {} checklist item(s) missing", o.check_path, missing));
  return {};
}

void AddReplayFlags(CLI::App* tune, TuneOptions& o) {
  tune->add_option("--replay", o.replay_dir,
                   "Replay tabulated curves from DIR (configs.csv, curves.csv)");
  tune->add_option("--metric", o.metric, "Objective metric column (flags form)");
  CLI::Option* maximize =
      tune->add_flag("--maximize", o.maximize, "Maximize the metric (default: minimize)");
  tune->add_flag("--minimize", o.minimize, "Minimize the metric (the default)")->excludes(maximize);
  tune->add_option("--fidelity", o.fidelity, "Fidelity column (default epoch)");
  tune->add_option("--cost-column", o.cost_column,
                   "Cumulative cost column in seconds (default elapsed_s)");
  tune->add_option("--config-column", o.config_column, "Config id column (default config_id)");
  tune->add_option("--price-per-hour", o.price_per_hour, "Price per GPU-hour, e.g. 2.5");
  tune->add_option("--budget", o.budget, "Hard dollar budget");
  tune->add_option("--max-gpu-hours", o.max_gpu_hours, "Hard GPU-hour cap");
  tune->add_option("--max-trials", o.max_trials, "At most this many trials");
  tune->add_option("--scheduler", o.scheduler, "asha, asha-stop, sha, hyperband, median, none");
  tune->add_option("--sampler", o.sampler, "random, halton, tpe, gp (default tpe)");
  tune->add_option("--workers", o.workers, "Parallel workers")->check(WholeNumber(1, 4096));
  tune->add_option("--seed", o.seed, "Seed of the sampler");
  tune->add_option("--grace", o.grace,
                   "Fidelity before the first prune (default 3, with early rungs below it that "
                   "prune once their ranks agree with the next rung's)");
  tune->add_option("--reduction-factor", o.reduction_factor, "η: keep the top 1/η at each rung");
  tune->add_option("--scale-by", o.scale_by,
                   "Config column that sets each trial's own schedule length (e.g. epochs): "
                   "rungs become shares of it");
  tune->add_option("--name", o.name, "Study name (default replay-<dir>)");
  tune->add_option("--curve-svg", o.curve_svg,
                   "Write the best-so-far curve against spend to this SVG file");
}

/// `frugal tune resume NAME`: its flags, and the caps it may replace.
void AddResumeCommand(CLI::App* tune, const std::shared_ptr<TuneOptions>& o, GlobalOptions& global,
                      Action& action) {
  CLI::App* resume = tune->add_subcommand("resume", "Continue a study with its rung state intact");
  resume->add_option("name", o->study, "Study name")->required();
  resume->add_option("--curve-svg", o->curve_svg,
                     "Write the best-so-far curve against spend to this SVG file");
  resume->add_option("--halt-after", o->halt_after, "Stop after N events as if killed (drills)")
      ->check(WholeNumber(1, 1'000'000'000));
  resume
      ->add_option("--save-every-ms", o->save_every_ms,
                   "Save the study state at most this often (default 200)")
      ->check(WholeNumber(0, 86'400'000));
  resume->add_option("--budget", o->new_caps.budget,
                     "New hard dollar budget (replaces the study's; lower than spent: stop)");
  resume->add_option("--max-gpu-hours", o->new_caps.max_gpu_hours, "New hard GPU-hour cap");
  resume->add_option("--max-trials", o->new_caps.max_trials, "New cap on the number of trials");
  resume->add_option("--trial-max-wall", o->new_caps.trial_max_wall,
                     "New per-trial wall-clock cap (e.g. 3h)");
  resume->add_option("--plateau-trials", o->new_caps.plateau_trials,
                     "New plateau gate: stop after N trials without improvement");
  resume->add_option("--plateau-spend", o->new_caps.plateau_spend,
                     "New plateau gate: stop after this many dollars without improvement");
  resume->add_option("--plateau-epsilon", o->new_caps.plateau_epsilon,
                     "New plateau ε: the least gain that counts as an improvement");
  AddOverrideOption(resume, o->override_reason);
  resume->callback([o, &global, &action] {
    action = [o, &global](Streams& s) { return ResumeTune(*o, global, s); };
  });
}

}  // namespace

void RegisterTune(CLI::App& app, GlobalOptions& global, Action& action) {
  auto o = std::make_shared<TuneOptions>();
  CLI::App* tune = app.add_subcommand("tune", "Tune hyperparameters under a hard dollar budget");
  tune->add_option("study", o->spec_path, "Study spec (YAML)");
  AddReplayFlags(tune, *o);
  tune->add_flag("--restart", o->restart, "Replace an unfinished study of the same name");
  tune->add_option("--halt-after", o->halt_after, "Stop after N events as if killed (drills)")
      ->check(WholeNumber(1, 1'000'000'000));
  tune->add_option("--save-every-ms", o->save_every_ms,
                   "Save the study state at most this often (default 200)")
      ->check(WholeNumber(0, 86'400'000));
  AddOverrideOption(tune, o->override_reason);
  tune->callback([o, tune, &global, &action] {
    if (!tune->get_subcommands().empty()) return;  // status, resume or check set the action
    for (const char* flag :
         {"--metric", "--maximize", "--minimize", "--fidelity", "--price-per-hour", "--budget",
          "--max-gpu-hours", "--max-trials", "--scheduler", "--sampler", "--workers", "--seed",
          "--grace", "--reduction-factor", "--scale-by", "--name"}) {
      if (tune->count(flag) > 0) o->flags_form_given.emplace_back(flag);
    }
    o->grace_given = tune->count("--grace") > 0;
    o->scheduler_given = tune->count("--scheduler") > 0;
    action = [o, &global](Streams& s) { return RunTune(*o, global, s); };
  });

  CLI::App* list = tune->add_subcommand("list", "Every study in the ledger, with its status");
  list->callback(
      [&global, &action] { action = [&global](Streams& s) { return ListTune(global, s); }; });
  CLI::App* status = tune->add_subcommand("status", "Leaderboard, rungs, spend against the gates");
  status->add_option("name", o->study, "Study name")->required();
  status->add_option("--curve-svg", o->curve_svg,
                     "Write the best-so-far curve against spend to this SVG file");
  status->callback([o, &global, &action] {
    action = [o, &global](Streams& s) { return StatusTune(*o, global, s); };
  });
  AddResumeCommand(tune, o, global, action);
  CLI::App* check = tune->add_subcommand("check", "The checklist to run before spending");
  check->add_option("study", o->check_path, "Study spec (YAML)")->required();
  check->callback([o, &global, &action] {
    action = [o, &global](Streams& s) { return CheckTune(*o, global, s); };
  });
}

}  // namespace frugal::cli
