#include "fuzz_targets.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace frugal::fuzz {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

void Copy(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

std::string Db(const CaseDir& c) { return (c.dir / "ledger.sqlite").string(); }

/// A ledger holding the seed bill, for the commands that read one (the audit).
void LedgerWithBill(const CaseDir& c) {
  const std::string command = "'" + c.frugal.string() + "' --db '" + Db(c) +
                              "' ledger import --format focus '" +
                              (c.seeds / "focus" / "bill.csv").string() + "' >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0)
    throw std::runtime_error("cannot make a ledger: " + command);
}

/// A small replay table (configs.csv, curves.csv) for replay studies under `dir`/t.
void ReplayTable(const fs::path& dir) {
  Write(dir / "t" / "configs.csv", "config_id,lr\nc1,0.1\nc2,0.01\nc3,0.001\nc4,0.3\n");
  std::string curves = "config_id,epoch,elapsed_s,val_loss,train_loss\n";
  for (int c = 1; c <= 4; ++c) {
    for (int e = 1; e <= 4; ++e) {
      curves += "c" + std::to_string(c) + "," + std::to_string(e) + "," + std::to_string(60 * e) +
                "," + std::to_string(1.0 / (e + c)) + "," + std::to_string(1.2 / (e + c)) + "\n";
    }
  }
  Write(dir / "t" / "curves.csv", curves);
}

/// A supervised command: frugal runs `script` in the case directory.
std::vector<std::string> RunArgs(const CaseDir& c, const std::string& script) {
  return {"--json",
          "--db",
          Db(c),
          "run",
          "--price",
          "1/h",
          "--run-id",
          "fuzz-" + std::to_string(c.number),
          "--run-dir",
          (c.dir / "rd").string(),
          "--heartbeat-interval",
          "1s",
          "--",
          "sh",
          "-c",
          script};
}

}  // namespace

std::vector<Target> AllTargets() {
  std::vector<Target> t;
  t.push_back({"job",
               "job.yaml",
               [](const CaseDir& c) {
                 Copy(c.seeds / "offers" / "seed-offers.yaml", c.dir / "offers.yaml");
               },
               [](const CaseDir& c) -> std::vector<std::string> {
                 return {"--json", "plan", c.input.string()};
               },
               {0, 2}});
  t.push_back({"study",
               "study.yaml",
               [](const CaseDir& c) { ReplayTable(c.dir); },
               [](const CaseDir& c) -> std::vector<std::string> {
                 return {"--json", "tune", "check", c.input.string()};
               },
               {0, 1, 2, 3}});  // 1: the checklist has items missing
  t.push_back({"policy",
               "policy.yaml",
               [](const CaseDir& c) {
                 Copy(c.seeds / "job" / "seed-job.yaml", c.dir / "spec.yaml");
                 Copy(c.seeds / "offers" / "seed-offers.yaml", c.dir / "offers.yaml");
               },
               [](const CaseDir& c) -> std::vector<std::string> {
                 return {"--json",   "policy",         "check",
                         "--policy", c.input.string(), (c.dir / "spec.yaml").string()};
               },
               {0, 2, 3}});
  t.push_back({"offers",
               "offers.yaml",
               [](const CaseDir&) {},
               [](const CaseDir& c) -> std::vector<std::string> {
                 return {"--json",  "--catalog", c.input.string(), "catalog", "offers",
                         "--limit", "5"};
               },
               {0, 2}});
  t.push_back({"thresholds",
               "audit.yaml",
               LedgerWithBill,
               [](const CaseDir& c) -> std::vector<std::string> {
                 return {"--json", "--db", Db(c), "audit", "--thresholds", c.input.string()};
               },
               {0, 2}});
  t.push_back({"skypilot",
               "aws_vms.csv",
               [](const CaseDir&) {},
               [](const CaseDir& c) -> std::vector<std::string> {
                 return {"--json",
                         "catalog",
                         "import",
                         "--skypilot",
                         c.input.string(),
                         "--output",
                         (c.dir / "out").string(),
                         "--snapshot-date",
                         "2026-01-01"};
               },
               {0, 2}});
  t.push_back({"focus",
               "bill.csv",
               [](const CaseDir&) {},
               [](const CaseDir& c) -> std::vector<std::string> {
                 return {"--json", "--db",     Db(c),   "ledger",
                         "import", "--format", "focus", c.input.string()};
               },
               {0, 2}});
  t.push_back({"trace",
               "trace.json",
               [](const CaseDir&) {},
               [](const CaseDir& c) -> std::vector<std::string> {
                 return {"--json",       "simulate", "--trace",    c.input.string(),
                         "--compute",    "1h",       "--deadline", "3h",
                         "--changeover", "10m",      "--starts",   "2"};
               },
               {0, 2}});
  // The report channel: the command appends the mutated lines to $FRUGAL_REPORT. Garbage is
  // counted and warned about, never fatal: the run ends as its command does.
  t.push_back(
      {"report",
       "channel.jsonl",
       [](const CaseDir&) {},
       [](const CaseDir& c) { return RunArgs(c, "cat channel.jsonl >> \"$FRUGAL_REPORT\""); },
       {0},
       /*bad_input_names_file=*/false});
  // A committed checkpoint whose manifest is mutated: a bad one is rejected, the run goes on.
  t.push_back({"manifest",
               "rd/checkpoints/committed/ckpt-000001/.frugal-manifest.json",
               [](const CaseDir& c) {
                 Write(c.dir / "rd" / "checkpoints" / "committed" / "ckpt-000001" / "model.pt",
                       "frugal fuzz checkpoint\n");
               },
               [](const CaseDir& c) { return RunArgs(c, "echo \"$FRUGAL_RESUME_FROM\""); },
               {0},
               /*bad_input_names_file=*/false});
  t.push_back({"inventory",
               "inventory.yaml",
               LedgerWithBill,
               [](const CaseDir& c) -> std::vector<std::string> {
                 return {"--json", "--db", Db(c), "audit", "--inventory", c.input.string()};
               },
               {0, 2}});
  // The queue's fields: pools, prices and schedules, windows and budgets; jobs with their
  // sizes, GPUs, arrivals, deadlines and dependencies. Each is simulated against the other's
  // seed.
  t.push_back({"capacity",
               "capacity.yaml",
               [](const CaseDir& c) {
                 Copy(c.seeds / "workload" / "seed-workload.yaml", c.dir / "workload.yaml");
               },
               [](const CaseDir& c) -> std::vector<std::string> {
                 return {"--json",
                         "queue",
                         "simulate",
                         "--workload",
                         (c.dir / "workload.yaml").string(),
                         "--capacity",
                         c.input.string()};
               },
               {0, 2}});
  t.push_back({"workload",
               "workload.yaml",
               [](const CaseDir& c) {
                 Copy(c.seeds / "capacity" / "seed-capacity.yaml", c.dir / "capacity.yaml");
               },
               [](const CaseDir& c) -> std::vector<std::string> {
                 return {"--json",
                         "queue",
                         "simulate",
                         "--workload",
                         c.input.string(),
                         "--capacity",
                         (c.dir / "capacity.yaml").string()};
               },
               {0, 2}});
  return t;
}

}  // namespace frugal::fuzz
