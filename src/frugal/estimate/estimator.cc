#include "frugal/estimate/estimator.h"

#include <fmt/format.h>

#include "frugal/estimate/small_work.h"

namespace frugal::estimate {

std::string_view UtilizationSourceName(UtilizationSource s) {
  switch (s) {
    case UtilizationSource::kPrior:
      return "prior";
    case UtilizationSource::kMeasuredThroughput:
      return "measured_throughput";
    case UtilizationSource::kMeasuredMfu:
      return "measured_mfu";
  }
  return "?";
}

Result<double> WorkTokens(const Work& w, const Model& m, const Training& t) {
  const int forms = (w.tokens ? 1 : 0) + (w.samples ? 1 : 0) + (w.steps ? 1 : 0);
  if (forms != 1) {
    return Fail(ErrorCode::kBadInput, forms == 0
                                          ? "the work needs tokens, samples (with epochs) or steps"
                                          : "give only one of tokens, samples or steps");
  }
  const auto positive = [](double v, std::string_view field) -> Result<double> {
    if (!(v > 0))
      return Fail(ErrorCode::kBadInput, fmt::format("{} must be positive, got {}", field, v));
    return v;
  };
  // Checked whatever the form: an epochs the work then ignores is still a mistake to point out.
  FRUGAL_TRY(positive(w.epochs, "epochs"));
  if (w.tokens) return positive(*w.tokens, "tokens");
  const double seq = static_cast<double>(m.seq);
  if (w.samples) {
    FRUGAL_TRY(positive(*w.samples, "samples"));
    const double per_sample =
        FRUGAL_TRY(positive(w.tokens_per_sample.value_or(seq), "tokens_per_sample"));
    return *w.samples * w.epochs * per_sample;
  }
  FRUGAL_TRY(positive(*w.steps, "steps"));
  const int batch = t.GlobalBatch();
  return *w.steps * static_cast<double>(batch) * seq;
}

Result<Estimate> EstimateTraining(const Model& m, const Training& t, const Hardware& hw,
                                  double tokens, const Measured& measured) {
  FRUGAL_TRY(t.Validate());
  if (!(hw.peak_flops > 0)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("GPU '{}' has no published peak for this precision", hw.gpu));
  }
  if (!(tokens > 0)) return Fail(ErrorCode::kBadInput, "the work must be more than zero tokens");
  if (t.expert_parallel > 1 && m.experts % t.expert_parallel != 0) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("expert_parallel {} does not divide the model's {} experts",
                            t.expert_parallel, m.experts));
  }
  Estimate e;
  e.model = m;
  e.training = t;
  e.memory = EstimateMemory(m, t);
  e.capacity_bytes = hw.memory_gib * kBytesPerGib;
  e.fits = e.memory.Total() <= e.capacity_bytes;
  e.tokens = tokens;
  e.steps = tokens / (static_cast<double>(t.GlobalBatch()) * static_cast<double>(m.seq));
  e.flops = TrainingFlops(m, t, tokens);
  e.compute_hfu = PriorHfu(hw, t, m.params);
  // Small work per micro-step: kernel launches the GPU waits on (small_work.h).
  const double micro_step_flops =
      e.flops.Total() / tokens * static_cast<double>(t.micro_batch) * static_cast<double>(m.seq);
  e.compute_hfu *= SmallWorkFactor(micro_step_flops, hw.peak_flops, e.compute_hfu, m.layers);
  const double cluster_peak = hw.peak_flops * static_cast<double>(t.gpus);
  const double compute_seconds = e.flops.Total() / (cluster_peak * e.compute_hfu);
  e.step = EstimateStepTime(m, t, hw, compute_seconds / e.steps);
  const double prior_wall = e.step.Total() * e.steps;
  e.prior_hfu = e.flops.Total() / (cluster_peak * prior_wall);
  if (measured.tokens_per_second) {
    if (!(*measured.tokens_per_second > 0)) {
      return Fail(ErrorCode::kBadInput, "measured tokens per second must be positive");
    }
    e.source = UtilizationSource::kMeasuredThroughput;
    e.wall_seconds = tokens / *measured.tokens_per_second;
  } else if (measured.mfu) {
    if (!(*measured.mfu > 0 && *measured.mfu <= 1)) {
      return Fail(ErrorCode::kBadInput, "measured MFU must be in (0, 1]");
    }
    e.source = UtilizationSource::kMeasuredMfu;
    e.wall_seconds = e.flops.model / (cluster_peak * *measured.mfu);
  } else {
    e.wall_seconds = prior_wall;
  }
  e.mfu = e.flops.model / (cluster_peak * e.wall_seconds);
  e.warnings = EstimateWarnings(e);
  return e;
}

std::vector<std::string> EstimateWarnings(const Estimate& e) {
  std::vector<std::string> out;
  const Training& t = e.training;
  if (t.method == Method::kInference) return out;
  if (t.zero_stage == 3 && t.gpus > kGpusPerNode) {
    out.push_back(fmt::format(
        "ZeRO-3 over {} GPUs ({} nodes) gathers every layer's weights over the network at each "
        "of the {} micro-step(s) per step ({:.3g} s of traffic per step, {:.3g} s of it not "
        "hidden by compute in this model): at this scale that is optimistic; measure a step "
        "(frugal profile) before trusting the time, or compare ZeRO-1/2",
        t.gpus, (t.gpus + kGpusPerNode - 1) / kGpusPerNode, t.AccumulationSteps(),
        e.step.data_parallel, e.step.exposed_data_parallel));
  }
  const double step = e.step.Total();
  if (t.pipeline_parallel > 1 && step > 0 && e.step.bubble / step > kBubbleWarnShare) {
    out.push_back(fmt::format(
        "pipeline parallel {} with {} micro-step(s) per step: the bubble is {:.0f}% of each "
        "step; more accumulation steps (a larger global_batch) or fewer stages shrink it",
        t.pipeline_parallel, t.AccumulationSteps(), 100 * e.step.bubble / step));
  }
  if (e.source == UtilizationSource::kPrior && e.mfu > 0 && e.mfu < kLowMfuWarn) {
    out.push_back(fmt::format(
        "MFU {:.1f}%: a global batch of {} sequence(s) over {} GPU(s) ({} per GPU per step) "
        "leaves the GPUs waiting on launches and communication; raise training.global_batch "
        "(or micro_batch){}",
        100 * e.mfu, t.GlobalBatch(), t.gpus,
        static_cast<double>(t.GlobalBatch()) / static_cast<double>(t.gpus),
        t.gpus > 1 ? ", or use fewer GPUs" : ""));
  }
  return out;
}

}  // namespace frugal::estimate
