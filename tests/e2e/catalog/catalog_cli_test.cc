// Runs the real frugal binary: catalog listing, filters, sorting, JSON shape, errors, import.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "support/test_support.h"

namespace frugal {
namespace {

using testing::RunFrugal;
using testing::TempDir;
using testing::WriteTestFile;

nlohmann::json Json(const testing::CommandResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(CatalogCli, HelpAndVersion) {
  TempDir home;
  auto version = RunFrugal({"--version"}, home.path());
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("frugal ", 0), 0u);
  for (auto args : std::vector<std::vector<std::string>>{{"--help"},
                                                         {"catalog", "--help"},
                                                         {"catalog", "offers", "--help"},
                                                         {"catalog", "gpus", "--help"},
                                                         {"catalog", "import", "--help"}}) {
    auto r = RunFrugal(args, home.path());
    EXPECT_EQ(r.exit_code, 0) << args.back();
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << r.out;
  }
}

// Only the command being run is built: it is found past the global options and their values,
// and help, --version and a word that names no command behave as with every command built.
TEST(CatalogCli, TheCommandIsFoundPastGlobalOptionsAndHelpStillListsEvery) {
  TempDir home;
  auto help = RunFrugal({"--help"}, home.path());
  ASSERT_EQ(help.exit_code, 0);
  for (const char* command :
       {"catalog", "runs", "report", "ledger", "simulate", "estimate", "plan", "run", "tune",
        "drill", "audit", "policy", "tco", "serve", "commit", "profile", "queue"}) {
    EXPECT_NE(help.out.find(std::string("\n  ") + command + " "), std::string::npos) << command;
  }
  // CLI11 answers --version first, whatever follows it.
  auto version_then_help = RunFrugal({"--version", "--help"}, home.path());
  EXPECT_EQ(version_then_help.exit_code, 0);
  EXPECT_EQ(version_then_help.out.rfind("frugal ", 0), 0u) << version_then_help.out;
  const std::string db = (home / "ledger.sqlite").string();
  auto gpus =
      RunFrugal({"--db", db, "--color", "never", "-v", "--json", "catalog", "gpus"}, home.path());
  ASSERT_EQ(gpus.exit_code, 0) << gpus.err;
  EXPECT_FALSE(Json(gpus)["gpus"].empty());
  auto equals = RunFrugal({"--db=" + db, "catalog", "gpus", "--json"}, home.path());
  EXPECT_EQ(equals.exit_code, 0) << equals.err;
  // A value that spells a command's name is still the option's value.
  auto named_run = RunFrugal({"--catalog", "run", "catalog", "offers"}, home.path());
  EXPECT_EQ(named_run.exit_code, 2) << named_run.err;
  EXPECT_NE(named_run.err.find("run"), std::string::npos) << named_run.err;
  auto typo = RunFrugal({"--color", "never", "catlog", "gpus"}, home.path());
  EXPECT_EQ(typo.exit_code, 2) << typo.err;
}

// A script reading --json output gets one document on a failure too: the error, its kind and
// the exit code, while the message still goes to stderr for people.
TEST(CatalogCli, AJsonFailureIsOneErrorDocument) {
  TempDir home;
  auto bad =
      RunFrugal({"--json", "catalog", "offers", "--tier", "spot", "--limit", "-1"}, home.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--limit"), std::string::npos) << bad.err;
  auto doc = nlohmann::json::parse(bad.out);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["error"]["kind"], "bad_input");
  EXPECT_EQ(doc["error"]["exit_code"], 2);
  EXPECT_NE(doc["error"]["message"].get<std::string>().find("--limit"), std::string::npos);

  // A flag CLI11 cannot parse, with --json after the command, and an error from the command
  // itself (a file that is not there).
  auto unknown = RunFrugal({"catalog", "offers", "--no-such-flag", "--json"}, home.path());
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(nlohmann::json::parse(unknown.out)["error"]["kind"], "bad_input");
  auto missing = RunFrugal({"--json", "catalog", "import", "--snapshot-date", "2026-02-30",
                            "--skypilot", (home.path() / "aws_vms.csv").string()},
                           home.path());
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(nlohmann::json::parse(missing.out)["error"]["message"].get<std::string>().find(
                "--snapshot-date"),
            std::string::npos)
      << missing.out;

  // Without --json stdout stays empty, even when the command frugal would run has one.
  auto child = RunFrugal({"run", "--bogus", "--", "echo", "--json"}, home.path());
  EXPECT_EQ(child.exit_code, 2);
  EXPECT_EQ(child.out, "");
  auto plain = RunFrugal({"catalog", "offers", "--limit", "-1"}, home.path());
  EXPECT_EQ(plain.exit_code, 2);
  EXPECT_EQ(plain.out, "");
}

TEST(CatalogCli, OffersFilterAndSortWithStableJsonShape) {
  TempDir home;
  auto doc = Json(RunFrugal({"catalog", "offers", "--gpu", "A100-80GB", "--min-gpus", "8", "--tier",
                             "spot", "--sort", "price_per_gpu", "--limit", "10", "--json"},
                            home.path()));
  EXPECT_EQ(doc["schema_version"], 1);
  const auto& offers = doc["offers"];
  ASSERT_GT(offers.size(), 0u);
  EXPECT_LE(offers.size(), 10u);
  double previous = 0;
  for (const auto& o : offers) {
    for (const char* key : {"cloud", "instance_type", "region", "zone", "gpu", "gpu_count", "vcpus",
                            "ram_gib", "tier", "price_per_hour", "price_per_gpu_hour",
                            "price_estimated", "preemptions_per_hour"}) {
      EXPECT_TRUE(o.contains(key)) << key;
    }
    EXPECT_EQ(o["gpu"], "A100-80GB");
    EXPECT_GE(o["gpu_count"].get<int>(), 8);
    EXPECT_EQ(o["tier"], "spot");
    EXPECT_GE(o["price_per_gpu_hour"].get<double>(), previous);
    previous = o["price_per_gpu_hour"].get<double>();
  }
}

TEST(CatalogCli, ReservedPricesAreFlaggedEstimated) {
  TempDir home;
  auto doc = Json(RunFrugal({"catalog", "offers", "--gpu", "L4", "--tier", "reserved_1y", "--json"},
                            home.path()));
  ASSERT_GT(doc["offers"].size(), 0u);
  for (const auto& o : doc["offers"]) EXPECT_TRUE(o["price_estimated"].get<bool>());
  auto table = RunFrugal(
      {"catalog", "offers", "--gpu", "L4", "--tier", "reserved_3y", "--limit", "2"}, home.path());
  EXPECT_NE(table.out.find("(est.)"), std::string::npos) << table.out;
}

TEST(CatalogCli, BadFlagsAndNamesExitTwo) {
  TempDir home;
  auto unknown_gpu = RunFrugal({"catalog", "offers", "--gpu", "A100-90GB"}, home.path());
  EXPECT_EQ(unknown_gpu.exit_code, 2);
  EXPECT_NE(unknown_gpu.err.find("unknown GPU 'A100-90GB'"), std::string::npos) << unknown_gpu.err;
  auto bad_tier = RunFrugal({"catalog", "offers", "--tier", "sport"}, home.path());
  EXPECT_EQ(bad_tier.exit_code, 2);
  EXPECT_NE(bad_tier.err.find("unknown tier 'sport'"), std::string::npos);
  auto bad_price = RunFrugal({"catalog", "offers", "--max-price", "ten"}, home.path());
  EXPECT_EQ(bad_price.exit_code, 2);
  EXPECT_NE(bad_price.err.find("--max-price"), std::string::npos);
  EXPECT_EQ(RunFrugal({"catalog", "offers", "--sort", "speed"}, home.path()).exit_code, 2);
  EXPECT_EQ(RunFrugal({"catalog", "offers", "--limit", "-1"}, home.path()).exit_code, 2);
  auto bad_cloud = RunFrugal({"catalog", "offers", "--cloud", "awz"}, home.path());
  EXPECT_EQ(bad_cloud.exit_code, 2);
  EXPECT_NE(bad_cloud.err.find("unknown cloud 'awz' (did you mean 'aws'?)"), std::string::npos)
      << bad_cloud.err;
  EXPECT_EQ(
      RunFrugal({"catalog", "offers", "--cloud", "AWS", "--limit", "1"}, home.path()).exit_code, 0);
  EXPECT_EQ(RunFrugal({"catalog", "frobnicate"}, home.path()).exit_code, 2);
  EXPECT_EQ(RunFrugal({"nosuchcommand"}, home.path()).exit_code, 2);
}

TEST(CatalogCli, CustomOffersAreListedLikeAnyOther) {
  TempDir home;
  WriteTestFile(
      home / "pool.yaml",
      "apiVersion: frugal/v1\noffers:\n  - name: dc1-a100x8\n    region: dc1\n    gpu: A100-80GB\n"
      "    gpus: 8\n    price_per_gpu_hour: 0.40\n");
  auto doc = Json(
      RunFrugal({"--catalog", (home / "pool.yaml").string(), "catalog", "offers", "--gpu",
                 "A100-80GB", "--min-gpus", "8", "--tier", "on_demand", "--limit", "1", "--json"},
                home.path()));
  ASSERT_EQ(doc["offers"].size(), 1u);
  EXPECT_EQ(doc["offers"][0]["instance_type"], "dc1-a100x8");
  EXPECT_EQ(doc["offers"][0]["source"], "custom");
  EXPECT_DOUBLE_EQ(doc["offers"][0]["price_per_hour"].get<double>(), 3.2);

  WriteTestFile(home / "bad.yaml",
                "apiVersion: frugal/v1\noffers:\n  - name: x\n    gpu: A100-80GB\n    prise: 1\n");
  auto bad =
      RunFrugal({"--catalog", (home / "bad.yaml").string(), "catalog", "offers"}, home.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.yaml:5:5: unknown key 'prise'"), std::string::npos) << bad.err;
}

TEST(CatalogCli, ImportTakesPrecedenceAndBadFilesChangeNothing) {
  TempDir home;
  auto before = Json(RunFrugal({"catalog", "info", "--json"}, home.path()));
  EXPECT_EQ(before["in_use"], "shipped");

  WriteTestFile(home / "in" / "lambda_vms.csv",
                "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,"
                "GpuInfo,SpotPrice\n"
                "gpu_1x_a10,A10,1.0,30.0,200.0,0.75,us-east-1,,\n"
                "gpu_1x_mystery,Q9000,1.0,30.0,200.0,0.75,us-east-1,,\n");
  auto import = RunFrugal({"catalog", "import", "--skypilot", (home / "in").string()}, home.path());
  ASSERT_EQ(import.exit_code, 0) << import.err;
  EXPECT_NE(import.out.find("unknown GPU 'Q9000': 1 rows"), std::string::npos) << import.out;
  auto after = Json(RunFrugal({"catalog", "info", "--json"}, home.path()));
  EXPECT_EQ(after["in_use"], "imported");
  // Lambda now has exactly the imported row (plus derived reserved tiers); other clouds remain.
  EXPECT_EQ(after["counts"]["lambda"]["on_demand"], 1);
  EXPECT_EQ(after["counts"]["aws"]["on_demand"], before["counts"]["aws"]["on_demand"]);

  WriteTestFile(home / "bad" / "aws_vms.csv", "InstanceType,Price\nx,1\n");
  auto bad = RunFrugal({"catalog", "import", "--skypilot", (home / "bad" / "aws_vms.csv").string()},
                       home.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("missing column"), std::string::npos) << bad.err;
  auto unchanged = Json(RunFrugal({"catalog", "info", "--json"}, home.path()));
  EXPECT_EQ(unchanged["offers"], after["offers"]);
}

TEST(CatalogCli, NumbersOutOfRangeSayWhatIsExpected) {
  TempDir home;
  auto min_gpus = RunFrugal({"catalog", "offers", "--min-gpus", "-1"}, home.path());
  EXPECT_EQ(min_gpus.exit_code, 2);
  EXPECT_NE(min_gpus.err.find("--min-gpus: expected a whole number from 0 to 1000000, got '-1'"),
            std::string::npos)
      << min_gpus.err;
  auto negative = RunFrugal({"catalog", "offers", "--max-price", "-5"}, home.path());
  EXPECT_EQ(negative.exit_code, 2);
  EXPECT_NE(negative.err.find("--max-price: must not be negative"), std::string::npos)
      << negative.err;
  auto top = RunFrugal({"plan", (home / "job.yaml").string(), "--top", "0"}, home.path());
  EXPECT_EQ(top.exit_code, 2);
  EXPECT_NE(top.err.find("--top: expected a whole number from 1"), std::string::npos) << top.err;
}

TEST(CatalogCli, ADirectoryOrEmptyFileAsCustomOffersIsNamedAsSuch) {
  TempDir home;
  auto dir = RunFrugal({"--catalog", home.path().string(), "catalog", "offers"}, home.path());
  EXPECT_EQ(dir.exit_code, 2);
  EXPECT_NE(dir.err.find("is a directory"), std::string::npos) << dir.err;
  WriteTestFile(home / "empty.yaml", "");
  auto empty =
      RunFrugal({"--catalog", (home / "empty.yaml").string(), "catalog", "offers"}, home.path());
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("empty.yaml:1:1: empty document"), std::string::npos) << empty.err;
}

TEST(CatalogCli, ImportRefusesACutOffFileAndAnUnreadableSnapshotDate) {
  TempDir home;
  const std::string header =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,"
      "SpotPrice\n";
  WriteTestFile(home / "cut" / "lambda_vms.csv",
                header + "gpu_1x_a10,A10,1.0,30.0,200.0,0.75,us-east-1,,\ngpu_1x_a10,A10,1.0,30");
  auto cut = RunFrugal({"catalog", "import", "--skypilot", (home / "cut").string()}, home.path());
  EXPECT_EQ(cut.exit_code, 2);
  EXPECT_NE(cut.err.find("lambda_vms.csv:3: 4 fields, the header has 9"), std::string::npos)
      << cut.err;
  EXPECT_NE(cut.err.find("nothing was imported"), std::string::npos) << cut.err;

  WriteTestFile(home / "ok" / "lambda_vms.csv",
                header + "gpu_1x_a10,A10,1.0,30.0,200.0,0.75,us-east-1,,\n");
  for (const char* date : {"yesterday", "2026-02-30", "2026-1-5"}) {
    auto bad = RunFrugal(
        {"catalog", "import", "--skypilot", (home / "ok").string(), "--snapshot-date", date},
        home.path());
    EXPECT_EQ(bad.exit_code, 2) << date;
    EXPECT_NE(bad.err.find("--snapshot-date"), std::string::npos) << bad.err;
  }
  auto info = Json(RunFrugal({"catalog", "info", "--json"}, home.path()));
  EXPECT_EQ(info["in_use"], "shipped");
  auto good = RunFrugal(
      {"catalog", "import", "--skypilot", (home / "ok").string(), "--snapshot-date", "2028-02-29"},
      home.path());
  ASSERT_EQ(good.exit_code, 0) << good.err;
  EXPECT_EQ(Json(RunFrugal({"catalog", "info", "--json"}, home.path()))["snapshot_date"],
            "2028-02-29");
}

TEST(CatalogCli, ImportOfAFileWithNoUsableRowsWritesNothing) {
  TempDir home;
  WriteTestFile(home / "in" / "aws_vms.csv",
                "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,"
                "GpuInfo,SpotPrice\n");
  auto out = RunFrugal({"catalog", "import", "--skypilot", (home / "in").string(), "--output",
                        (home / "o3").string()},
                       home.path());
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_NE(out.err.find("aws_vms.csv: no usable rows"), std::string::npos) << out.err;
  EXPECT_FALSE(std::filesystem::exists(home / "o3"));
  auto in_place =
      RunFrugal({"catalog", "import", "--skypilot", (home / "in").string()}, home.path());
  EXPECT_EQ(in_place.exit_code, 2);
  auto info = Json(RunFrugal({"catalog", "info", "--json"}, home.path()));
  EXPECT_EQ(info["in_use"], "shipped");
  EXPECT_GT(info["counts"]["aws"]["on_demand"].get<int>(), 0);
}

TEST(CatalogCli, ImportThatCannotWriteItsMetadataLeavesAWorkingCatalog) {
  TempDir home;
  WriteTestFile(home / "in" / "lambda_vms.csv",
                "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,"
                "GpuInfo,SpotPrice\ngpu_1x_a10,A10,1.0,30.0,200.0,0.75,us-east-1,,\n");
  // snapshot.json cannot be replaced (a directory sits there): the import fails. offers.csv
  // used to be written first, and every later command failed reading the missing metadata.
  std::filesystem::create_directories(home / "data" / "catalog" / "snapshot.json");
  auto import = RunFrugal({"catalog", "import", "--skypilot", (home / "in").string()}, home.path());
  EXPECT_NE(import.exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(home / "data" / "catalog" / "offers.csv"));
  auto info = Json(RunFrugal({"catalog", "info", "--json"}, home.path()));
  EXPECT_EQ(info["in_use"], "shipped");
}

TEST(CatalogCli, GpusListsSpecsWithSources) {
  TempDir home;
  auto doc = Json(RunFrugal({"catalog", "gpus", "--json"}, home.path()));
  bool found = false;
  for (const auto& g : doc["gpus"]) {
    if (g["name"] == "H100-80GB-SXM") {
      found = true;
      EXPECT_DOUBLE_EQ(g["dense_tflops"]["bf16_fp16"].get<double>(), 989.5);
      EXPECT_DOUBLE_EQ(g["memory_gib"].get<double>(), 80);
      EXPECT_FALSE(g["source"].get<std::string>().empty());
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace frugal

namespace frugal {
namespace {

TEST(CatalogCli, CpuOffersAreQueryableByClassOnEveryTier) {
  TempDir home;
  auto r = RunFrugal({"--json", "catalog", "offers", "--gpu", "CPU", "--cpu-class", "memory",
                      "--min-ram", "64", "--cloud", "aws", "--region", "us-east-1"},
                     home.path());
  const auto doc = Json(r);
  ASSERT_GT(doc["count"].get<int>(), 0);
  std::set<std::string> tiers;
  for (const auto& o : doc["offers"]) {
    EXPECT_TRUE(o["gpu"].is_null());
    EXPECT_EQ(o["gpu_count"], 0);
    EXPECT_EQ(o["cpu_class"], "memory");
    EXPECT_GE(o["ram_gib"].get<double>(), 64);
    tiers.insert(o["tier"].get<std::string>());
  }
  EXPECT_EQ(tiers, (std::set<std::string>{"on_demand", "spot", "reserved_1y", "reserved_3y"}));
  // --cpu is the same query; the human table names the class.
  auto human = RunFrugal({"catalog", "offers", "--cpu", "--cpu-class", "compute", "--cloud", "gcp",
                          "--tier", "on_demand", "--limit", "3"},
                         home.path());
  EXPECT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find("cpu (compute)"), std::string::npos) << human.out;
  auto bad = RunFrugal({"catalog", "offers", "--cpu-class", "gpu"}, home.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--cpu-class"), std::string::npos) << bad.err;
  auto mixed = RunFrugal({"catalog", "offers", "--cpu", "--gpu", "T4"}, home.path());
  EXPECT_EQ(mixed.exit_code, 2);
}

TEST(CatalogCli, EstimatedGpuFiguresAreFlaggedAndMemoryQuestionsNeedNoFlops) {
  TempDir home;
  const auto gpus = Json(RunFrugal({"--json", "catalog", "gpus"}, home.path()));
  bool saw_a10g = false;
  for (const auto& g : gpus["gpus"]) {
    if (g["name"] != "A10G") continue;
    saw_a10g = true;
    EXPECT_EQ(g["estimated"], true);
    EXPECT_EQ(g["dense_tflops"]["bf16_fp16"], 70);
    EXPECT_NE(g["notes"].get<std::string>().find("Baseten"), std::string::npos);
  }
  EXPECT_TRUE(saw_a10g);
  // Memory only: no work, and a GPU that publishes no FLOPs at all still gets an answer.
  for (const char* gpu : {"RTXA6000", "M4000"}) {
    auto mem = Json(RunFrugal({"--json", "estimate", "--params", "1b", "--gpu", gpu}, home.path()));
    EXPECT_EQ(mem["memory_only"], true) << gpu;
    EXPECT_TRUE(mem["wall_hours"].is_null());
    EXPECT_GT(mem["peak_memory_gib_per_gpu"].get<double>(), 0);
  }
  auto big =
      Json(RunFrugal({"--json", "estimate", "--params", "13b", "--gpu", "M4000"}, home.path()));
  EXPECT_EQ(big["fits"], false);
}

}  // namespace
}  // namespace frugal

namespace frugal {
namespace {

// `catalog gpus` reads the GPU table alone: with an offer table that cannot be parsed, it still
// lists every GPU, while a command that needs offers names the broken file.
TEST(CatalogCli, GpusDoNotReadTheOfferTable) {
  TempDir home;
  TempDir data;
  const std::filesystem::path shipped = std::filesystem::path(FRUGAL_SOURCE_DIR) / "data";
  std::filesystem::copy(shipped, data.path(), std::filesystem::copy_options::recursive);
  WriteTestFile(data / "catalog" / "offers.csv", "cloud,instance_type\naws\n");
  const std::vector<std::string> env = {"FRUGAL_DATA_DIR=" + data.path().string()};
  const auto gpus = RunFrugal({"--json", "catalog", "gpus"}, home.path(), env);
  ASSERT_EQ(gpus.exit_code, 0) << gpus.err;
  const auto listed = nlohmann::json::parse(gpus.out).at("gpus");
  const auto shipped_list = Json(RunFrugal({"--json", "catalog", "gpus"}, home.path()));
  EXPECT_EQ(listed, shipped_list.at("gpus"));
  EXPECT_GT(listed.size(), 10u);
  const auto offers = RunFrugal({"catalog", "offers"}, home.path(), env);
  EXPECT_EQ(offers.exit_code, 2);
  EXPECT_NE(offers.err.find("offers.csv"), std::string::npos) << offers.err;
}

}  // namespace
}  // namespace frugal

namespace frugal {
namespace {

// The offer table is read through a binary cache keyed by the table's content: a changed table
// is read afresh, and a damaged cache is rebuilt, never believed (docs/catalog.md).
TEST(CatalogCli, TheOfferCacheFollowsTheTableAndADamagedOneIsRebuilt) {
  TempDir home;
  TempDir data;
  const std::filesystem::path shipped = std::filesystem::path(FRUGAL_SOURCE_DIR) / "data";
  std::filesystem::copy(shipped, data.path(), std::filesystem::copy_options::recursive);
  const std::vector<std::string> env = {"FRUGAL_DATA_DIR=" + data.path().string()};
  const std::vector<std::string> cheapest = {
      "--json",   "catalog",   "offers", "--gpu",     "T4",      "--cloud", "aws",
      "--region", "us-east-1", "--tier", "on_demand", "--limit", "1"};
  const auto first = Json(RunFrugal(cheapest, home.path(), env));
  const std::filesystem::path cache_dir = home / "cache" / "catalog";
  const auto cache_files = [&] {
    std::vector<std::filesystem::path> files;
    // The caches (.bin), one per table content; the key file beside them (.key) names the
    // table's path.
    for (const auto& e : std::filesystem::directory_iterator(cache_dir)) {
      if (e.path().extension() == ".bin") files.push_back(e.path());
    }
    return files;
  };
  ASSERT_EQ(cache_files().size(), 1u);
  EXPECT_EQ(first["offers"][0]["instance_type"], "g4dn.xlarge");
  // A cheaper row appended: the next command lists it, not the cached table.
  std::string table = testing::ReadTestFile(data / "catalog" / "offers.csv");
  table += "aws,zz-test.xlarge,us-east-1,,T4,1,4,16,on_demand,0.000123,\n";
  WriteTestFile(data / "catalog" / "offers.csv", table);
  const auto changed = Json(RunFrugal(cheapest, home.path(), env));
  EXPECT_EQ(changed["offers"][0]["instance_type"], "zz-test.xlarge");
  EXPECT_EQ(changed["offers"][0]["price_per_hour"], 0.000123);
  // Every cache file damaged in place (same size, other bytes): the same answer, and a valid
  // cache again afterwards.
  for (const auto& file : cache_files()) {
    std::string bytes = testing::ReadTestFile(file);
    for (size_t i = 64; i < bytes.size(); i += 97) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
    WriteTestFile(file, bytes);
  }
  const auto damaged = RunFrugal(cheapest, home.path(), env);
  ASSERT_EQ(damaged.exit_code, 0) << damaged.err;
  EXPECT_EQ(nlohmann::json::parse(damaged.out), changed);
  EXPECT_EQ(Json(RunFrugal(cheapest, home.path(), env)), changed);
  // Without a cache directory that can be written, the same answer still.
  std::filesystem::remove_all(home / "cache");
  WriteTestFile(home / "cache", "a file where the cache directory would be");
  EXPECT_EQ(Json(RunFrugal(cheapest, home.path(), env)), changed);
}

}  // namespace
}  // namespace frugal
