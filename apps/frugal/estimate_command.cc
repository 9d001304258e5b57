// frugal estimate: memory, FLOPs, runtime and cost of one job on one GPU configuration.

#include <fmt/format.h>

#include "commands.h"
#include "estimate_commit.h"
#include "estimate_knobs.h"
#include "estimate_measured.h"
#include "frugal/catalog/catalog.h"
#include "frugal/core/table.h"
#include "frugal/core/text.h"
#include "frugal/estimate/commitment.h"
#include "frugal/estimate/estimate_json.h"
#include "frugal/estimate/estimator.h"
#include "frugal/estimate/hardware.h"
#include "frugal/estimate/network.h"

namespace frugal::cli {
namespace {

namespace fs = std::filesystem;
using estimate::kBytesPerGib;

struct EstimateOptions {
  std::string params, tokens, samples, steps;
  std::optional<int> layers, hidden, heads, kv_heads, ffn, vocab, experts, experts_per_token;
  int seq = 2048;
  std::string mlp = "swiglu";
  bool tied_embeddings = false;
  std::string dtype = "bf16", optimizer = "adamw", method = "full";
  std::string recompute;  ///< empty: what frameworks default to for the model's size
  std::string master_weights = "fp32", lora_targets = "all";
  int lora_rank = 16, micro_batch = 1, global_batch = 0, zero = 0;
  double epochs = 1;
  std::optional<double> tokens_per_sample, tokens_per_second, mfu;
  std::string gpu;
  int gpus = 1;
  int tensor_parallel = 1, pipeline_parallel = 1, virtual_stages = 1, expert_parallel = 1;
  int context_parallel = 1;
  bool sequence_parallel = false, optimizer_in_backward = false;
  std::string attention = "flash", loss = "standard", offload = "none";
  std::string memory_basis = "nvidia-smi";  ///< what the reported peak counts
  std::optional<double> network_gbps;
  std::string tier;                   ///< only this tier's cheapest offer
  std::string offer;                  ///< exactly this offer (id or instance type)
  MeasuredEstimateOptions measured;   ///< --measured: predict from measured throughput
  std::string utilization_text;       ///< --utilization as given: 60% or 0.6
  std::optional<double> utilization;  ///< share of a reservation this team uses, parsed
  std::string commitment;             ///< --commitment 1y|3y: would one pay?
  bool micro_batch_given = false;
  bool knobs = false;  ///< --knobs: the knob settings side by side
};

Result<double> Count(const std::string& text, std::string_view flag) {
  return ParseCount(text).map_error(
      [&](const Error& e) { return e.Wrap(fmt::format("--{}", flag)); });
}

Result<estimate::Model> ModelFrom(const EstimateOptions& o) {
  estimate::ModelSpec spec;
  if (!o.params.empty()) spec.params = FRUGAL_TRY(Count(o.params, "params"));
  spec.layers = o.layers;
  spec.hidden = o.hidden;
  spec.heads = o.heads;
  spec.kv_heads = o.kv_heads;
  spec.ffn = o.ffn;
  spec.vocab = o.vocab;
  spec.seq = o.seq;
  spec.mlp = FRUGAL_TRY(estimate::ParseMlp(o.mlp));
  spec.tied_embeddings = o.tied_embeddings;
  spec.experts = o.experts;
  spec.experts_per_token = o.experts_per_token;
  return estimate::ResolveModel(spec);
}

/// The library names training fields as the job spec spells them; on the command line, say
/// the flag to change ("--global-batch 12 is not a multiple of --micro-batch 8 ...").
Error NameFlags(Error e) {
  static const std::pair<std::string_view, std::string_view> kFlags[] = {
      {"micro_batch", "--micro-batch"},
      {"global_batch", "--global-batch"},
      {"tensor_parallel", "--tensor-parallel"},
      {"pipeline_parallel", "--pipeline-parallel"},
      {"virtual_stages", "--virtual-stages"},
      {"expert_parallel", "--expert-parallel"},
      {"context_parallel", "--context-parallel"},
      {"sequence_parallel", "--sequence-parallel"},
      {"lora_rank", "--lora-rank"},
      {"zero stage", "--zero"},
      {"gpus", "--gpus"}};
  std::string out;
  const std::string& m = e.message;
  for (size_t i = 0; i < m.size();) {
    bool replaced = false;
    for (const auto& [field, flag] : kFlags) {
      const bool starts_word = i == 0 || m[i - 1] == ' ';
      const size_t end = i + field.size();
      // A field longer than the rest of the message ends past it: no match (and no read there).
      const bool ends_word = end <= m.size() && (end == m.size() || m[end] == ' ' || m[end] == ',');
      if (starts_word && ends_word && m.compare(i, field.size(), field) == 0) {
        out += flag;
        i = end;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += m[i++];
  }
  e.message = std::move(out);
  return e;
}

Result<estimate::Training> TrainingFrom(const EstimateOptions& o, const estimate::Model& m) {
  estimate::Training t;
  t.precision = FRUGAL_TRY(
      catalog::ParsePrecision(o.dtype).map_error([](const Error& e) { return e.Wrap("--dtype"); }));
  t.optimizer = FRUGAL_TRY(estimate::ParseOptimizer(o.optimizer));
  t.method = FRUGAL_TRY(estimate::ParseMethod(o.method));
  t.recompute = o.recompute.empty() ? estimate::DefaultRecompute(m.params)
                                    : FRUGAL_TRY(estimate::ParseRecompute(o.recompute));
  t.lora_rank = o.lora_rank;
  t.lora_targets = FRUGAL_TRY(estimate::ParseLoraTargets(o.lora_targets));
  t.master_weights = FRUGAL_TRY(estimate::ParseMasterWeights(o.master_weights));
  t.micro_batch = o.micro_batch;
  t.global_batch = o.global_batch;
  t.zero_stage = o.zero;
  t.gpus = o.gpus;
  t.tensor_parallel = o.tensor_parallel;
  t.pipeline_parallel = o.pipeline_parallel;
  t.virtual_stages = o.virtual_stages;
  t.expert_parallel = o.expert_parallel;
  t.context_parallel = o.context_parallel;
  t.sequence_parallel = o.sequence_parallel;
  t.attention = FRUGAL_TRY(estimate::ParseAttention(o.attention).map_error([](const Error& e) {
    return e.Wrap("--attention");
  }));
  t.loss = FRUGAL_TRY(
      estimate::ParseLoss(o.loss).map_error([](const Error& e) { return e.Wrap("--loss"); }));
  t.offload = FRUGAL_TRY(estimate::ParseOffload(o.offload).map_error(
      [](const Error& e) { return e.Wrap("--offload"); }));
  t.optimizer_in_backward = o.optimizer_in_backward;
  t.memory_basis =
      FRUGAL_TRY(estimate::ParseMemoryBasis(o.memory_basis).map_error([](const Error& e) {
        return e.Wrap("--memory-basis");
      }));
  FRUGAL_TRY(t.Validate().map_error(NameFlags));
  return t;
}

Result<estimate::Work> WorkFrom(const EstimateOptions& o) {
  estimate::Work w;
  if (!o.tokens.empty()) w.tokens = FRUGAL_TRY(Count(o.tokens, "tokens"));
  if (!o.samples.empty()) w.samples = FRUGAL_TRY(Count(o.samples, "samples"));
  if (!o.steps.empty()) w.steps = FRUGAL_TRY(Count(o.steps, "steps"));
  w.epochs = o.epochs;
  w.tokens_per_sample = o.tokens_per_sample;
  return w;
}

double Gib(double bytes) { return bytes / kBytesPerGib; }

/// "fits (3.2 GiB headroom)" or "does NOT fit (short by 1.5 GiB)".
std::string FitText(const estimate::Estimate& e) {
  return e.fits ? fmt::format("fits ({:.1f} GiB headroom)", Gib(e.HeadroomBytes()))
                : fmt::format("does NOT fit (short by {:.1f} GiB)", -Gib(e.HeadroomBytes()));
}

/// The memory line (in the --memory-basis the user reads) and its terms.
void PrintMemory(const estimate::Estimate& e, const std::string& gpu, std::ostream& out) {
  const estimate::MemoryBreakdown& b = e.memory;
  const estimate::MemoryBasis basis = e.training.memory_basis;
  out << fmt::format("Memory per GPU: {:.1f} GiB{} of {:.0f} GiB on {} — {}\n",
                     Gib(estimate::MemoryInBasis(b, basis)),
                     basis == estimate::MemoryBasis::kNvidiaSmi
                         ? ""
                         : fmt::format(" {} ({:.1f} GiB on the device)",
                                       estimate::MemoryBasisName(basis), Gib(b.Total())),
                     Gib(e.capacity_bytes), gpu, FitText(e));
  Table mem({{"TERM"}, {"GIB", Align::kRight}});
  for (const auto& [name, bytes] : {std::pair{"weights", b.weights},
                                    {"gradients", b.gradients},
                                    {"optimizer states", b.optimizer_states},
                                    {"activations", b.activations},
                                    {"logits and loss", b.logits},
                                    {"framework overhead", b.overhead}}) {
    mem.AddRow({name, fmt::format("{:.2f}", Gib(bytes))});
  }
  mem.Render(out);
}

/// How a modelled step of a multi-GPU job splits: compute, bubble and the communication not
/// hidden behind it.
void PrintParallelism(const estimate::Estimate& e, std::ostream& out) {
  const estimate::Training& tr = e.training;
  const estimate::StepTime& s = e.step;
  out << fmt::format(
      "Parallelism: TP {} x PP {}{} x DP {}; per step {:.3g} s = compute {:.3g} + bubble {:.3g} "
      "+ tensor-parallel {:.3g} + expert-parallel {:.3g}{} + data-parallel {:.3g} not hidden (of "
      "{:.3g})\n",
      tr.tensor_parallel, tr.pipeline_parallel,
      tr.context_parallel > 1 ? fmt::format(" x CP {}", tr.context_parallel) : "",
      tr.DataParallel(), s.Total(), s.compute, s.bubble, s.tensor_parallel, s.expert_parallel,
      tr.context_parallel > 1 ? fmt::format(" + context-parallel {:.3g} not hidden (of {:.3g})",
                                            s.exposed_context_parallel, s.context_parallel)
                              : "",
      s.exposed_data_parallel, s.data_parallel);
}

void PrintCosts(const std::vector<estimate::TierCost>& costs, std::ostream& out) {
  if (costs.empty()) {
    out << "Cost: no offer for this GPU in the catalog.\n";
    return;
  }
  Table t({{"TIER"},
           {"OFFER"},
           {"INSTANCES", Align::kRight},
           {"$/HOUR", Align::kRight},
           {"COST", Align::kRight}});
  for (const auto& c : costs) {
    const std::string mark = c.offer->price_estimated ? " (est.)" : "";
    t.AddRow({std::string(CapacityTierName(c.offer->tier)), c.offer->Id(),
              std::to_string(c.instances), c.offer->price.ToString() + mark,
              c.cost.ToString() + mark});
  }
  t.Render(out);
  out << "Spot cost is before preemption overhead; `frugal plan` prices that in.\n";
}

void PrintHuman(const estimate::Estimate& e, const std::string& gpu,
                const std::vector<estimate::TierCost>& costs, std::ostream& out) {
  out << fmt::format("Model: {:.3g}B parameters{}, {} layers, hidden {}, seq {}\n",
                     e.model.params / 1e9,
                     e.model.shape_derived ? " (shape derived from the count)" : "", e.model.layers,
                     e.model.hidden, e.model.seq);
  PrintMemory(e, gpu, out);
  out << fmt::format("Work: {:.4g} tokens, {:.4g} optimizer steps ({} accumulation steps)\n",
                     e.tokens, e.steps, e.training.AccumulationSteps());
  out << fmt::format("Compute: {:.3e} FLOPs ({:.3e} recompute); MFU {:.1f}% ({})\n",
                     e.flops.Total(), e.flops.recompute, 100 * e.mfu,
                     estimate::UtilizationSourceName(e.source));
  out << fmt::format("Time: {:.2f} h wall on {}, {:.1f} GPU-hours\n", e.WallHours(),
                     Counted(e.training.gpus, "GPU"), e.GpuHours());
  for (const std::string& w : e.warnings) out << "Warning: " << w << "\n";
  if (e.training.gpus > 1 && e.source == estimate::UtilizationSource::kPrior) {
    PrintParallelism(e, out);
  }
  PrintCosts(costs, out);
}

/// The costs to show: one offer (--offer), one tier's cheapest (--tier), or every tier's.
Result<std::vector<estimate::TierCost>> Costs(const EstimateOptions& o, const catalog::Catalog& c,
                                              const std::string& gpu, int gpus, double wall_hours) {
  if (!o.offer.empty()) {
    const catalog::Offer* offer = c.FindOffer(o.offer, gpu);
    if (offer == nullptr) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("--offer: no offer '{}' with {} GPUs (see 'frugal catalog offers "
                              "--gpu {}')",
                              o.offer, gpu, gpu));
    }
    if (!estimate::CanHost(*offer, gpus)) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("--offer: {} has {} GPU(s) per instance; {} GPUs would be {} "
                              "instances over the network, and instances under 8 GPUs are "
                              "not clustered (as in `frugal plan`): use an offer with at "
                              "least {} GPUs, or fewer --gpus",
                              o.offer, offer->gpu_count, gpus,
                              (gpus + offer->gpu_count - 1) / offer->gpu_count, std::min(gpus, 8)));
    }
    return std::vector<estimate::TierCost>{estimate::PriceOffer(*offer, gpus, wall_hours)};
  }
  std::vector<estimate::TierCost> costs = estimate::CheapestPerTier(c, gpu, gpus, wall_hours);
  if (!o.tier.empty()) {
    const CapacityTier tier = FRUGAL_TRY(
        ParseRentedTier(o.tier).map_error([](const Error& e) { return e.Wrap("--tier"); }));
    std::erase_if(costs, [&](const estimate::TierCost& t) { return t.offer->tier != tier; });
  }
  // A reservation is paid whether used or not: shown only at a stated utilization.
  FRUGAL_TRY(estimate::ApplyReservedUtilization(costs, o.utilization, wall_hours)
                 .map_error([](const Error& e) { return e.Wrap("--utilization"); }));
  return costs;
}

/// Does the job fit? Needs no FLOPs, no work and no peak: any GPU with a memory figure. When
/// it does not, which knob settings would (`fits_with`).
Result<void> RunMemoryOnly(const estimate::Model& model, const estimate::Training& training,
                           const plan::KnobQuestion& q, const catalog::Catalog& c,
                           const GlobalOptions& global, Streams& s) {
  const catalog::GpuSpec& gpu = *q.gpu;
  estimate::Estimate e;
  e.model = model;
  e.training = training;
  e.memory = estimate::EstimateMemory(model, training);
  e.capacity_bytes = gpu.memory_gib * kBytesPerGib;
  e.fits = e.memory.Total() <= e.capacity_bytes;
  std::optional<plan::KnobComparison> ways;
  if (!e.fits) ways = FRUGAL_TRY(plan::CompareKnobs(q, c));
  if (global.json) {
    nlohmann::json doc = estimate::EstimateJson(e, {});
    for (const char* key : {"tokens", "steps", "total_flops", "model_flops", "recompute_flops",
                            "mfu", "mfu_source", "prior_hfu", "wall_hours", "gpu_hours"}) {
      doc[key] = nullptr;
    }
    doc["gpu"] = gpu.name;
    doc["memory_only"] = true;
    if (ways) doc["fits_with"] = WaysToFitJson(*ways);
    WriteJson(s, doc);
    return {};
  }
  const estimate::MemoryBreakdown& b = e.memory;
  s.out << fmt::format("Memory per GPU: {:.1f} GiB of {:.0f} GiB on {} — {}\n", Gib(b.Total()),
                       Gib(e.capacity_bytes), gpu.name, FitText(e));
  if (ways) PrintWaysToFit(*ways, q, s.out);
  s.out << "No work given (--tokens, --samples or --steps): memory only, no time or cost.\n";
  return {};
}

/// The network between nodes the communication model uses, and where the figure came from.
struct NetworkChoice {
  double gbps = 0;  ///< 0: the estimator's default
  std::string source;
};

/// --network-gbps; else the --offer's instance from the network table; else the best figure
/// the table lists for the GPU (a cluster built for training it); else the default.
Result<NetworkChoice> ChooseNetwork(const EstimateOptions& o, const catalog::Catalog& c,
                                    const std::string& gpu) {
  if (o.network_gbps) {
    if (!(*o.network_gbps > 0))
      return Fail(ErrorCode::kBadInput, "--network-gbps: must be positive");
    return NetworkChoice{*o.network_gbps, "flag"};
  }
  const auto table = FRUGAL_TRY(estimate::LoadShippedNetworkTable());
  if (const catalog::Offer* offer = o.offer.empty() ? nullptr : c.FindOffer(o.offer, gpu)) {
    if (auto g = estimate::NetworkGbpsFor(table, offer->cloud, offer->instance_type))
      return NetworkChoice{*g, "offer"};
  }
  if (auto g = estimate::BestNetworkGbps(table, gpu)) return NetworkChoice{*g, "best_for_gpu"};
  return NetworkChoice{0, "default"};
}

/// The question the knob comparison answers for these flags (work optional).
Result<plan::KnobQuestion> KnobQuestionFrom(const EstimateOptions& o, const estimate::Model& model,
                                            const estimate::Training& training,
                                            const catalog::Catalog& c, const catalog::GpuSpec& gpu,
                                            std::optional<double> tokens) {
  plan::KnobQuestion q;
  q.model = model;
  q.base = training;
  q.tokens = tokens;
  q.gpu = &gpu;
  q.network_gbps = FRUGAL_TRY(ChooseNetwork(o, c, gpu.name)).gbps;
  if (!o.tier.empty()) {
    q.tier = FRUGAL_TRY(
        ParseRentedTier(o.tier).map_error([](const Error& e) { return e.Wrap("--tier"); }));
  }
  // --offer: the same checks as the plain estimate's costs, and that offer's price.
  if (!o.offer.empty()) q.offer = FRUGAL_TRY(Costs(o, c, gpu.name, training.gpus, 1)).front().offer;
  return q;
}

/// kBadInput naming the flag to change when `gpu` cannot run the --dtype at all.
Result<void> CheckDtype(const catalog::GpuSpec& gpu, estimate::Precision p) {
  const auto use = plan::PrecisionToUse(gpu, p);
  if (!use) return {};
  return Fail(ErrorCode::kBadInput,
              fmt::format("--dtype {}: {} ({}) {}; use --dtype {}", catalog::PrecisionName(p),
                          gpu.name, gpu.architecture,
                          p == estimate::Precision::kFp8
                              ? "has no fp8 tensor cores"
                              : fmt::format("has no {} support", catalog::PrecisionName(p)),
                          catalog::PrecisionName(*use)));
}

/// Memory, FLOPs, time and cost of the configuration; when it does not fit, the knob settings
/// that would (as plan's advice).
Result<void> RunModelled(const EstimateOptions& o, const plan::KnobQuestion& q,
                         const catalog::Catalog& c, const GlobalOptions& global, Streams& s) {
  const estimate::Model& model = q.model;
  const estimate::Training& training = q.base;
  const catalog::GpuSpec* gpu = q.gpu;
  FRUGAL_TRY(CheckDtype(*gpu, training.precision));
  estimate::Hardware hw = FRUGAL_TRY(estimate::HardwareFor(*gpu, training.precision));
  const NetworkChoice network = FRUGAL_TRY(ChooseNetwork(o, c, gpu->name));
  hw.network_gbps = network.gbps;
  estimate::Measured measured;
  measured.tokens_per_second = o.tokens_per_second;
  measured.mfu = o.mfu;
  const estimate::Estimate e =
      FRUGAL_TRY(estimate::EstimateTraining(model, training, hw, *q.tokens, measured));
  const auto costs = FRUGAL_TRY(Costs(o, c, gpu->name, training.gpus, e.WallHours()));
  // A configuration that does not fit: which knob settings would (as plan's advice).
  std::optional<plan::KnobComparison> ways;
  if (!e.fits) ways = FRUGAL_TRY(plan::CompareKnobs(q, c));
  if (global.json) {
    nlohmann::json doc = estimate::EstimateJson(e, costs);
    doc["gpu"] = gpu->name;
    doc["network_gbps"] = network.gbps > 0 ? network.gbps : estimate::kDefaultNetworkGbps;
    doc["network_source"] = network.source;
    if (ways) doc["fits_with"] = WaysToFitJson(*ways);
    WriteJson(s, doc);
    return {};
  }
  PrintHuman(e, gpu->name, costs, s.out);
  if (ways) PrintWaysToFit(*ways, q, s.out);
  if (global.verbosity > 0 && e.source == estimate::UtilizationSource::kPrior) {
    const estimate::MfuPrior prior = estimate::PriorUtilization(hw, training, model.params);
    s.out << "Utilization prior (docs/estimate.md):";
    for (const auto& f : prior.factors) s.out << fmt::format(" {} {:.2f};", f.what, f.factor);
    s.out << fmt::format(" = {:.3f}\n", prior.hfu);
  }
  return {};
}

Result<void> RunEstimate(const EstimateOptions& o, const GlobalOptions& global, Streams& s) {
  if (o.knobs && (!o.commitment.empty() || !o.measured.measured.empty())) {
    return Fail(ErrorCode::kBadInput,
                "--knobs compares modelled knob settings: not with --commitment or --measured");
  }
  if (!o.commitment.empty()) {
    if (!o.utilization) {
      return Fail(ErrorCode::kBadInput,
                  "--commitment needs --utilization (the share of the month the GPUs would be "
                  "busy: 60% or 0.6)");
    }
    return RunCommitmentEstimate(o.commitment, *o.utilization, o.gpu, o.gpus, global, s);
  }
  if (!o.measured.measured.empty() || !o.measured.profile.empty()) {
    MeasuredEstimateJob job{o.gpu,   o.dtype, o.params, o.tokens, o.samples,
                            o.steps, o.tier,  o.gpus,   o.epochs, std::nullopt};
    if (o.micro_batch_given) job.batch_per_gpu = o.micro_batch;
    return RunMeasuredEstimate(o.measured, job, global, s);
  }
  const estimate::Model model = FRUGAL_TRY(ModelFrom(o));
  const estimate::Training training = FRUGAL_TRY(TrainingFrom(o, model));
  const catalog::Catalog c = FRUGAL_TRY(LoadCatalog(global));
  const catalog::GpuSpec* gpu =
      FRUGAL_TRY(c.RequireGpu(o.gpu).map_error([](const Error& e) { return e.Wrap("--gpu"); }));
  const bool no_work = o.tokens.empty() && o.samples.empty() && o.steps.empty();
  std::optional<double> tokens;
  if (!no_work) {
    const estimate::Work work = FRUGAL_TRY(WorkFrom(o));
    tokens = FRUGAL_TRY(estimate::WorkTokens(work, model, training));
  }
  const plan::KnobQuestion q = FRUGAL_TRY(KnobQuestionFrom(o, model, training, c, *gpu, tokens));
  if (o.knobs) return RunKnobsEstimate(q, c, global, s);
  if (no_work) return RunMemoryOnly(model, training, q, c, global, s);
  return RunModelled(o, q, c, global, s);
}

/// The model: its size and shape.
void AddModelFlags(CLI::App* cmd, EstimateOptions& o) {
  cmd->add_option("--params", o.params, "Parameters: 7b, 350m, 7e9");
  cmd->add_option("--layers", o.layers, "Transformer layers");
  cmd->add_option("--hidden", o.hidden, "Hidden size");
  cmd->add_option("--heads", o.heads, "Attention heads (default hidden/128)");
  cmd->add_option("--kv-heads", o.kv_heads,
                  "Key/value heads for grouped-query attention (default: heads)");
  cmd->add_option("--ffn", o.ffn,
                  "Feed-forward width (default 8/3·hidden for SwiGLU, 4·hidden for GELU)");
  cmd->add_option("--vocab", o.vocab, "Vocabulary size (default 32000)");
  cmd->add_option("--seq", o.seq, "Sequence length in tokens")->capture_default_str();
  cmd->add_option("--mlp", o.mlp, "swiglu or gelu")->capture_default_str();
  cmd->add_flag("--tied-embeddings", o.tied_embeddings, "Output head shares the input embedding");
  cmd->add_option("--experts", o.experts, "Mixture of experts: MLPs per layer (default 1)");
  cmd->add_option("--experts-per-token,--top-k", o.experts_per_token,
                  "Experts each token is routed to (default 2 with --experts)");
}

/// How it trains: precision, optimizer, method, batch, recompute, ZeRO.
void AddTrainingFlags(CLI::App* cmd, EstimateOptions& o) {
  cmd->add_option("--dtype", o.dtype, "fp32, tf32, bf16, fp16, fp8")->capture_default_str();
  cmd->add_option("--optimizer", o.optimizer,
                  "adamw, adam8bit, paged_adam8bit, paged_adamw, sgd, adafactor")
      ->capture_default_str();
  cmd->add_option("--method", o.method, "full, lora, qlora, inference (weights-only load)")
      ->capture_default_str();
  cmd->add_option("--lora-rank", o.lora_rank, "LoRA rank")->capture_default_str();
  cmd->add_option("--lora-targets", o.lora_targets,
                  "all (every linear layer), qv, qkv or qkv_fused")
      ->capture_default_str();
  cmd->add_option(
         "--master-weights", o.master_weights,
         "fp32 (16-bit weights, fp32 master), amp (torch autocast: fp32 weights and grads) or none")
      ->capture_default_str();
  cmd->add_option("--micro-batch", o.micro_batch, "Sequences per GPU per step")
      ->capture_default_str();
  cmd->add_option("--global-batch", o.global_batch,
                  "Sequences per optimizer step (default micro-batch × GPUs)");
  cmd->add_option("--recompute", o.recompute,
                  "none, selective, full (default: full from 100B parameters, else none)");
  cmd->add_option("--zero", o.zero, "ZeRO stage 0-3 (FSDP full shard = 3)")->capture_default_str();
}

/// How much it trains: tokens, samples with epochs, or steps.
void AddWorkFlags(CLI::App* cmd, EstimateOptions& o) {
  cmd->add_option("--tokens", o.tokens, "Training tokens: 2t, 500m");
  cmd->add_option("--samples", o.samples, "Training samples (with --epochs, --tokens-per-sample)");
  cmd->add_option("--epochs", o.epochs, "Epochs over --samples")->capture_default_str();
  cmd->add_option("--tokens-per-sample", o.tokens_per_sample, "Tokens per sample (default --seq)");
  cmd->add_option("--steps", o.steps, "Optimizer steps of the global batch");
}

/// Where it trains: the GPUs, their parallelism and the kernels' memory choices.
void AddGpuFlags(CLI::App* cmd, EstimateOptions& o) {
  cmd->add_option("--gpu", o.gpu, "GPU model (A100-80GB, H100, L4, ...)")->required();
  cmd->add_option("--gpus", o.gpus, "Number of GPUs (all of them: TP x PP x data parallel)")
      ->capture_default_str();
  cmd->add_option("--tensor-parallel,--tp", o.tensor_parallel, "Tensor-parallel GPUs per layer")
      ->capture_default_str();
  cmd->add_option("--pipeline-parallel,--pp", o.pipeline_parallel, "Pipeline stages (1F1B)")
      ->capture_default_str();
  cmd->add_option("--expert-parallel,--ep", o.expert_parallel,
                  "GPUs the experts are split over (all-to-all token exchange)")
      ->capture_default_str();
  cmd->add_option("--context-parallel,--cp", o.context_parallel,
                  "Context parallelism: GPUs each sequence is split over (ring attention)")
      ->capture_default_str();
  cmd->add_option("--virtual-stages", o.virtual_stages,
                  "Interleaved pipeline: model chunks per stage (shrinks the bubble)")
      ->capture_default_str();
  cmd->add_flag("--sequence-parallel", o.sequence_parallel,
                "Megatron sequence parallelism (with --tensor-parallel > 1)");
  cmd->add_option("--attention", o.attention, "flash (or sdpa) or eager")->capture_default_str();
  cmd->add_option("--loss", o.loss, "standard, chunked (torchtune) or fused (Liger)")
      ->capture_default_str();
  cmd->add_option("--offload", o.offload, "none, optimizer (ZeRO-Offload) or all (FSDP CPU)")
      ->capture_default_str();
  cmd->add_option("--memory-basis", o.memory_basis,
                  "What the reported peak counts: allocated, reserved or nvidia-smi")
      ->capture_default_str();
  cmd->add_flag("--optimizer-in-backward", o.optimizer_in_backward,
                "Step each parameter in backward and free its gradient (torchtune)");
}

/// What the time costs, and measured figures that replace the prior.
void AddPricingFlags(CLI::App* cmd, EstimateOptions& o) {
  cmd->add_option("--network-gbps", o.network_gbps,
                  "Network between nodes, Gbit/s per node (default: the offer's, else the best "
                  "listed for the GPU)");
  cmd->add_option("--tier", o.tier,
                  "Price only this tier: on_demand, spot, reserved_1y, reserved_3y");
  cmd->add_option("--offer", o.offer,
                  "Price exactly this offer (id from 'frugal catalog offers', or instance type)");
  cmd->add_option("--tokens-per-second", o.tokens_per_second,
                  "Measured throughput of the whole job; overrides the MFU prior");
  cmd->add_option("--mfu", o.mfu, "Measured model FLOPs utilization (0-1); overrides the prior");
  AddMeasuredEstimateOptions(cmd, o.measured);
  cmd->add_flag("--knobs", o.knobs,
                "Compare knob settings side by side on --gpu: precision, micro-batch with "
                "accumulation, recompute, LoRA/QLoRA, ZeRO; memory, time, cost and the smallest "
                "GPU each fits");
  cmd->add_option("--utilization", o.utilization_text,
                  "Share (60% or 0.6) of a reservation your team keeps busy: reserved tiers are "
                  "priced at price x hours / utilization, and shown only with it");
  cmd->add_option("--commitment", o.commitment,
                  "1y or 3y: would a commitment of --gpus x --gpu pay at --utilization, against "
                  "on demand and spot? (no model needed)");
}

}  // namespace

void RegisterEstimate(CLI::App& app, GlobalOptions& global, Action& action) {
  auto o = std::make_shared<EstimateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "estimate", "Memory, FLOPs, runtime and cost of one job on one GPU configuration");
  AddModelFlags(cmd, *o);
  AddTrainingFlags(cmd, *o);
  AddWorkFlags(cmd, *o);
  AddGpuFlags(cmd, *o);
  AddPricingFlags(cmd, *o);
  cmd->callback([&, o, cmd] {
    o->micro_batch_given = cmd->count("--micro-batch") > 0;
    action = [&global, o](Streams& s) -> Result<void> {
      // The parser `frugal commit --utilization` uses: 60% and 0.6 are the same share.
      if (!o->utilization_text.empty()) {
        o->utilization = FRUGAL_TRY(estimate::ParseUtilization(o->utilization_text));
      }
      return RunEstimate(*o, global, s);
    };
  });
}

}  // namespace frugal::cli
