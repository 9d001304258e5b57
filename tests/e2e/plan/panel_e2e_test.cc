// A panel of twenty everyday jobs planned over the shipped catalog by the real binary. The
// accepted answers (the GPU classes and counts an experienced engineer would sign for the top
// option, memory left free, spot priced on what the job can do) were written down before the
// panel was first run; a plan that strays from them fails here.

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/test_support.h"

namespace frugal {
namespace {

using testing::RunFrugal;
using testing::TempDir;
using testing::WriteTestFile;

/// Modern NVIDIA GPUs with tensor cores a small job may take: no partitions, no pre-Volta
/// parts (K80, M60, P4, P100), no MI25 (a VDI part).
const std::set<std::string> kSmall = {
    "T4",        "L4",        "A10",         "A10G",          "V100-16GB",
    "V100-32GB", "L40S",      "L40",         "A40",           "A6000",
    "RTXA6000",  "RTXA5000",  "RTXA4000",    "A4000",         "RTXA4500",
    "RTX4090",   "RTX3090",   "RTX4000-Ada", "RTX6000-Ada",   "RTX5880-Ada",
    "RTX5090",   "A100-40GB", "A100-80GB",   "H100-80GB-SXM", "H100-80GB-PCIe"};
/// What a 7B-13B adapter fine-tune or a 7B model served takes: 24 GiB and up.
const std::set<std::string> kMid = {
    "L4",          "A10",      "A10G",        "L40S",      "L40",           "A40",
    "A6000",       "RTXA6000", "RTX4090",     "RTX3090",   "RTXA5000",      "RTX6000-Ada",
    "RTX5880-Ada", "RTX5090",  "A100-40GB",   "A100-80GB", "H100-80GB-SXM", "H100-80GB-PCIe",
    "H200",        "GH200",    "RTXPRO6000WS"};
/// What full training of 7B and up, or a 70B adapter, takes: data-centre parts of 40 GiB+.
const std::set<std::string> kLarge = {"A100-40GB",  "A100-80GB", "H100-80GB-SXM", "H100-80GB-PCIe",
                                      "H200",       "B200",      "GH200",         "MI300X",
                                      "L40S",       "A6000",     "RTXA6000",      "RTX6000-Ada",
                                      "RTX5880-Ada"};
/// 70B at 16 bits: 80 GiB parts and up.
const std::set<std::string> kHuge = {"A100-80GB", "H100-80GB-SXM", "H100-80GB-PCIe", "H200",
                                     "B200",      "MI300X",        "GH200"};
const std::set<std::string> kCpu = {"CPU"};

struct PanelJob {
  std::string name;
  std::string spec;            ///< YAML after apiVersion
  std::set<std::string> gpus;  ///< accepted GPU classes of the top option ("CPU": no GPU)
  int min_gpus = 1;            ///< accepted GPU count (per replica when serving)
  int max_gpus = 8;
  bool serving = false;
  bool declares_checkpoints = false;
  /// When set, the GPU count is judged by memory instead: the top option's GPUs (per replica
  /// when serving) hold at least this many GiB in all.
  double min_memory_gib = 0;
};

const std::string kLlama7b =
    "  layers: 32\n  hidden: 4096\n  heads: 32\n  ffn: 11008\n  vocab: 32000\n";
const std::string kLlama13b =
    "  layers: 40\n  hidden: 5120\n  heads: 40\n  ffn: 13824\n  vocab: 32000\n";
const std::string kLlama70b =
    "  layers: 80\n  hidden: 8192\n  heads: 64\n  kv_heads: 8\n  ffn: 28672\n  vocab: 32000\n";
const std::string kFt = "fault_tolerance: {checkpoint_write: 2m, restart: 6m}\n";

std::vector<PanelJob> Panel() {
  return {
      {"resnet50-finetune",
       "kind: Job\nname: resnet50\nmodel: {family: cnn}\n"
       "work: {samples: 1.28m, epochs: 3}\n"
       "measured:\n  - {gpu: T4, samples_per_second: 400}\n"
       "constraints: {deadline: 24h}\n",
       kSmall, 1, 2},
      {"bert-base-classifier",
       "kind: Job\nname: bert-base\nmodel: {layers: 12, hidden: 768, heads: 12, vocab: 30522, "
       "seq: 512}\n"
       "training: {micro_batch: 16, global_batch: 64}\nwork: {tokens: 500m}\n"
       "constraints: {deadline: 12h}\n",
       kSmall, 1, 4},
      {"vit-base-finetune",
       "kind: Job\nname: vit-base\nmodel: {layers: 12, hidden: 768, heads: 12, vocab: 1000, "
       "seq: 197}\n"
       "training: {micro_batch: 32, global_batch: 256}\nwork: {tokens: 1b}\n"
       "constraints: {deadline: 24h}\n",
       kSmall, 1, 4},
      {"gpt2-medium-finetune",
       "kind: Job\nname: gpt2-medium\nmodel: {layers: 24, hidden: 1024, heads: 16, vocab: 50257, "
       "seq: 1024}\n"
       "training: {micro_batch: 8, global_batch: 64}\nwork: {tokens: 2b}\n"
       "constraints: {deadline: 48h}\n" +
           kFt,
       kSmall, 1, 8, false, true},
      {"t5-base-like-finetune",
       "kind: Job\nname: t5-base\nmodel: {layers: 24, hidden: 768, heads: 12, vocab: 32128, "
       "seq: 512}\n"
       "training: {micro_batch: 16, global_batch: 128}\nwork: {tokens: 1b}\n"
       "constraints: {deadline: 24h}\n",
       kSmall, 1, 4},
      {"gpt-1.3b-full-finetune",
       "kind: Job\nname: gpt-1.3b\nmodel: {layers: 24, hidden: 2048, heads: 16, vocab: 50257, "
       "seq: 2048}\n"
       "training: {micro_batch: 4, global_batch: 64}\nwork: {tokens: 5b}\n"
       "knobs: {recompute: [none, selective, full], zero: [0, 1, 2, 3]}\n"
       "constraints: {deadline: 72h}\n" +
           kFt,
       kMid, 1, 8, false, true},
      {"llama-7b-lora",
       "kind: Job\nname: llama-7b-lora\nmodel:\n" + kLlama7b +
           "  seq: 2048\ntraining: {method: lora, micro_batch: 4, global_batch: 32}\n"
           "work: {tokens: 150m}\nconstraints: {deadline: 24h}\n",
       kMid, 1, 8},
      {"llama-7b-qlora",
       "kind: Job\nname: llama-7b-qlora\nmodel:\n" + kLlama7b +
           "  seq: 2048\ntraining: {method: qlora, micro_batch: 2, global_batch: 16}\n"
           "work: {tokens: 50m}\nconstraints: {deadline: 24h}\n",
       kMid, 1, 2},
      {"mistral-7b-lora-1b-tokens",
       "kind: Job\nname: mistral-7b\nmodel:\n  layers: 32\n  hidden: 4096\n  heads: 32\n"
       "  kv_heads: 8\n  ffn: 14336\n  vocab: 32000\n  seq: 4096\n"
       "training: {method: lora, micro_batch: 2, global_batch: 64}\n"
       "work: {tokens: 1b}\nconstraints: {deadline: 48h}\n" +
           kFt,
       kMid, 1, 8, false, true},
      {"llama-13b-lora",
       "kind: Job\nname: llama-13b-lora\nmodel:\n" + kLlama13b +
           "  seq: 2048\ntraining: {method: lora, micro_batch: 2, global_batch: 32}\n"
           "work: {tokens: 150m}\nconstraints: {deadline: 36h}\n",
       kLarge, 1, 8},
      {"llama-7b-full-finetune",
       "kind: Job\nname: llama-7b-full\nmodel:\n" + kLlama7b +
           "  seq: 4096\ntraining: {micro_batch: 1, global_batch: 64}\n"
           "knobs: {recompute: [none, selective, full], zero: [1, 2, 3]}\n"
           "work: {tokens: 2b}\nconstraints: {deadline: 72h, max_gpus: 16}\n" +
           kFt,
       kLarge, 1, 16, false, true, 4 * 40},
      {"llama-70b-qlora",
       "kind: Job\nname: llama-70b-qlora\nmodel:\n" + kLlama70b +
           "  seq: 2048\ntraining: {method: qlora, micro_batch: 1, global_batch: 16}\n"
           "work: {tokens: 20m}\nconstraints: {deadline: 48h}\n",
       kLarge, 1, 8},
      {"llama-70b-full-finetune",
       "kind: Job\nname: llama-70b-full\nmodel:\n" + kLlama70b +
           "  seq: 4096\ntraining: {micro_batch: 1, global_batch: 256}\n"
           "knobs: {recompute: [selective, full], zero: [3]}\n"
           "work: {tokens: 1b}\nconstraints: {deadline: 96h, max_gpus: 64}\n" +
           kFt,
       kHuge, 1, 64, false, true, 16 * 80},
      {"lightgbm-cpu",
       "kind: Job\nname: lightgbm\nmodel: {family: tree_ensemble}\n"
       "memory: {host_ram_gib: 24}\n"
       "measured:\n  - {offer: 'aws:m6i.8xlarge:us-east-1', runtime: 90m}\n"
       "constraints: {clouds: [aws], deadline: 8h}\n",
       kCpu, 0, 0},
      {"xgboost-cpu",
       "kind: Job\nname: xgboost\nmodel: {family: tree_ensemble}\n"
       "memory: {host_ram_gib: 12}\n"
       "measured:\n  - {offer: 'aws:c6i.4xlarge:us-east-1', runtime: 3h}\n"
       "constraints: {clouds: [aws], deadline: 12h}\n",
       kCpu, 0, 0},
      {"random-forest-cpu",
       "kind: Job\nname: forest\nmodel: {family: tree_ensemble}\n"
       "memory: {host_ram_gib: 8}\n"
       "measured:\n  - {offer: 'aws:m6i.2xlarge:us-east-1', runtime: 20m}\n"
       "constraints: {clouds: [aws]}\n",
       kCpu, 0, 0},
      {"serve-bert-base-classifier",
       "kind: Inference\nname: classifier\nmodel: {type: encoder, layers: 12, hidden: 768, "
       "heads: 12, vocab: 30522, seq: 128, weights: fp16}\n"
       "workload: {rps: 50, peak_rps: 100, items_per_request: 1, tokens_per_item: 128}\n"
       "latency: {request_p95: 100ms}\nserving: {hours: 24/7, lifetime_months: 12}\n",
       {"T4", "L4", "A10", "A10G", "CPU", "cpu", ""},
       0,
       1,
       true},
      {"serve-llama-7b-awq",
       "kind: Inference\nname: chat-7b\nmodel:\n" + kLlama7b +
           "  type: decoder\n  seq: 4096\n  weights: awq\n"
           "workload: {rps: 2, peak_rps: 6, input_tokens: 512, output_tokens: 256}\n"
           "latency: {ttft_p95: 2s, tpot_p95: 100ms}\n"
           "serving: {hours: 24/7, lifetime_months: 12}\n",
       kMid, 1, 2, true},
      {"serve-llama-70b-fp16",
       "kind: Inference\nname: chat-70b\nmodel:\n" + kLlama70b +
           "  type: decoder\n  seq: 4096\n  weights: fp16\n"
           "workload: {rps: 1, peak_rps: 3, input_tokens: 1024, output_tokens: 256}\n"
           "latency: {ttft_p95: 3s, tpot_p95: 100ms}\n"
           "serving: {hours: 24/7, lifetime_months: 12}\n",
       kHuge, 1, 8, true, false, 2 * 75},
      {"batch-inference-7b",
       "kind: Inference\nname: batch-7b\nmodel:\n" + kLlama7b +
           "  type: decoder\n  seq: 4096\n  weights: fp16\n"
           "workload: {rps: 20, input_tokens: 1024, output_tokens: 128}\n"
           "latency: {ttft_p95: 60s, tpot_p95: 500ms}\n"
           "serving: {hours_per_day: 8, days_per_week: 5, lifetime_months: 1, "
           "interruptible: true}\n",
       kMid, 1, 4, true},
  };
}

bool Accepted(const std::set<std::string>& gpus, const nlohmann::json& gpu) {
  const std::string name = gpu.is_string() ? gpu.get<std::string>() : "CPU";
  return gpus.contains(name);
}

void CheckTraining(const PanelJob& job, const nlohmann::json& doc) {
  ASSERT_FALSE(doc["options"].empty()) << job.name << ": " << doc["excluded"].dump(1);
  const nlohmann::json& top = doc["options"][0];
  const std::string where = job.name + ": top option " + top["cloud"].get<std::string>() + ":" +
                            top["instance_type"].get<std::string>() + " " +
                            top["run"].get<std::string>();
  EXPECT_TRUE(Accepted(job.gpus, top["gpu"])) << where << " on " << top["gpu"];
  const int gpus = top["gpu_count"].get<int>();
  EXPECT_GE(gpus, job.min_gpus) << where;
  if (job.min_memory_gib > 0) {
    EXPECT_GE(gpus * top["nameplate_memory_gib_per_gpu"].get<double>(), job.min_memory_gib)
        << where;
  }
  EXPECT_LE(gpus, job.max_gpus) << where;
  // Memory with headroom: a peak the plan knows leaves the headroom free.
  if (!top["inside_memory_headroom"].is_null()) {
    EXPECT_FALSE(top["inside_memory_headroom"].get<bool>()) << where;
  }
  EXPECT_TRUE(top["meets_deadline"].get<bool>()) << where;
  // The plan says what it assumed of checkpoints, and spot is priced on it.
  EXPECT_EQ(doc["fault_tolerance"]["checkpoints"], job.declares_checkpoints ? "declared" : "none")
      << job.name;
  if (!top["spot"].is_null()) {
    if (!job.declares_checkpoints) {
      EXPECT_EQ(top["spot"]["strategy"], "restart_from_scratch") << where;
    }
    EXPECT_FALSE(top["spot"]["price_outlier"].get<bool>()) << where;
  }
}

void CheckServing(const PanelJob& job, const nlohmann::json& doc) {
  ASSERT_FALSE(doc["options"].empty()) << job.name << ": " << doc.dump(1).substr(0, 4000);
  const nlohmann::json& top = doc["options"][0];
  const std::string where = job.name + ": top option " + top["offer"].get<std::string>();
  EXPECT_TRUE(Accepted(job.gpus, top["gpu"])) << where << " on " << top["gpu"];
  const int gpus = top["gpus_per_replica"].get<int>();
  EXPECT_GE(gpus, job.min_gpus) << where;
  if (job.min_memory_gib > 0) {
    EXPECT_GE(gpus * top["memory_gib_per_device"]["capacity"].get<double>(), job.min_memory_gib)
        << where;
  }
  EXPECT_LE(gpus, job.max_gpus) << where;
  EXPECT_TRUE(top["meets_latency"].get<bool>()) << where;
  // 24/7 serving that does not tolerate interruption is not on a marketplace host.
  if (job.spec.find("interruptible: true") == std::string::npos) {
    EXPECT_NE(top["cloud"], "vast") << where;
  }
  // No GPU partition (an NVv4 or NVadsA10 v5 share) serves.
  const std::string type = top["instance_type"].get<std::string>();
  EXPECT_EQ(type.find("as_v4"), std::string::npos) << where;
}

// Every job of the panel gets a top option an engineer would sign (issue 34). What brought the
// last eight here: marketplace hosts no longer serve 24/7 what does not tolerate interruption
// (the BERT classifier, the 7B AWQ model), 4-bit kernels skip the V100, and within 5% of the
// cheapest fewer GPUs rank first (the 7B LoRA/QLoRA and 13B LoRA jobs take one 48 GB card, not
// four 24 GB ones). Some accepted answers written before the first run were corrected after
// it, each an omission rather than a new judgement: the RTX A5000 (24 GB, Ampere) joins its
// class beside the A10 and RTX 3090, the RTX 5880 Ada (48 GB) beside the RTX 6000 Ada, and the
// large jobs' GPU counts are judged as the memory they stood for: the 7B full fine-tune's
// "4 GPUs" (of 40 GB) lets two 80 GB H100 count, the 70B jobs' "16" and "2" (of 80 GB) eight
// MI300X (192 GB each) and one B200 (180 GB).
TEST(PlanPanel, EveryJobGetsATopOptionAnEngineerWouldSign) {
  TempDir home;
  for (const PanelJob& job : Panel()) {
    SCOPED_TRACE(job.name);
    const auto path = home.path() / (job.name + ".yaml");
    WriteTestFile(path, "apiVersion: frugal/v1\n" + job.spec);
    const auto r = RunFrugal({"--json", "plan", path.string(), "--top", "3"}, home.path());
    ASSERT_EQ(r.exit_code, 0) << job.name << ": " << r.err;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    if (job.serving) {
      CheckServing(job, doc);
    } else {
      CheckTraining(job, doc);
    }
  }
}

}  // namespace
}  // namespace frugal
