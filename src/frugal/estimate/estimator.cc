#include "frugal/estimate/estimator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "frugal/core/numbers.h"
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
  if (t.context_parallel > 1 && m.seq % t.context_parallel != 0) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("context_parallel {} does not divide the sequence length {}",
                            t.context_parallel, m.seq));
  }
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
  const double micro_step_flops = e.flops.Total() / tokens * static_cast<double>(t.micro_batch) *
                                  static_cast<double>(m.seq) /
                                  static_cast<double>(t.context_parallel);
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

namespace {

/// The global batch (sequences) whose micro-batches per pipeline bring the bubble to at most
/// kBubbleWarnShare of the step: bubble / (compute + bubble) <= w needs (stages − 1) /
/// (virtual stages × micro-batches) <= w / (1 − w).
int BatchForSmallBubble(const Training& t) {
  const double per_pipeline = std::ceil(D(t.pipeline_parallel - 1) * (1.0 - kBubbleWarnShare) /
                                        (kBubbleWarnShare * D(t.virtual_stages)));
  return static_cast<int>(std::max(1.0, per_pipeline)) * t.micro_batch * t.DataParallel();
}

std::string ZeroThreeWarning(const Estimate& e) {
  const Training& t = e.training;
  return fmt::format(
      "ZeRO-3 over {} GPUs ({} nodes) gathers every layer's weights and reduce-scatters its "
      "gradients over the network at each of the {} micro-step(s) per step: {:.3g} s of traffic "
      "per step, {:.3g} s of it not hidden by the compute of micro_batch {} (--micro-batch); a "
      "larger micro_batch hides more, tensor or pipeline parallelism moves less, ZeRO-1/2 only "
      "the gradients",
      t.gpus, (t.gpus + kGpusPerNode - 1) / kGpusPerNode, t.AccumulationSteps(),
      e.step.data_parallel, e.step.exposed_data_parallel, t.micro_batch);
}

std::string BubbleWarning(const Estimate& e, double step) {
  const Training& t = e.training;
  return fmt::format(
      "pipeline parallel {} with {} micro-step(s) per step{}: the bubble is {:.0f}% of each "
      "step; global_batch (--global-batch) {} (or more) brings it under {:.0f}%, as do "
      "virtual_stages (--virtual-stages) or fewer stages",
      t.pipeline_parallel, t.AccumulationSteps(),
      t.global_batch == 0 ? " (no global_batch given: one micro-batch per pipeline)" : "",
      100 * e.step.bubble / step, BatchForSmallBubble(t), 100 * kBubbleWarnShare);
}

/// What the low MFU is spent on: the largest part of the step that is not compute.
std::string LowMfuWarning(const Estimate& e, double step) {
  const Training& t = e.training;
  const StepTime& s = e.step;
  std::string cause;
  if (s.bubble >= std::max({s.tensor_parallel, s.exposed_data_parallel, s.expert_parallel}) &&
      s.bubble > 0.25 * step) {
    cause = fmt::format(
        "the pipeline bubble ({:.0f}% of the step): raise global_batch "
        "(--global-batch) to {} or more",
        100 * s.bubble / step, BatchForSmallBubble(t));
  } else if (s.tensor_parallel >= std::max(s.exposed_data_parallel, s.expert_parallel) &&
             s.tensor_parallel > 0.25 * step) {
    cause = fmt::format(
        "tensor-parallel all-reduces ({:.0f}% of the step){}: lower "
        "tensor_parallel (--tp)",
        100 * s.tensor_parallel / step, t.tensor_parallel > kGpusPerNode ? ", across nodes" : "");
  } else if (s.exposed_data_parallel > 0.25 * step) {
    cause = fmt::format(
        "data-parallel traffic compute does not hide ({:.0f}% of the step): "
        "raise micro_batch (--micro-batch) or use fewer GPUs",
        100 * s.exposed_data_parallel / step);
  } else {
    cause = fmt::format(
        "a batch of {:g} sequence(s) per GPU per step leaves the GPUs waiting on "
        "launches: raise global_batch (--global-batch) or micro_batch "
        "(--micro-batch){}",
        D(t.GlobalBatch()) / D(t.gpus), t.gpus > 1 ? ", or use fewer GPUs" : "");
  }
  return fmt::format(
      "MFU {:.1f}% at global_batch {} over {} GPU(s), compute {:.0f}% of the step: the time goes "
      "to {}",
      100 * e.mfu, t.GlobalBatch(), t.gpus, 100 * s.compute / step, cause);
}

}  // namespace

std::vector<std::string> EstimateWarnings(const Estimate& e) {
  std::vector<std::string> out;
  const Training& t = e.training;
  if (t.method == Method::kInference) return out;
  if (t.zero_stage == 3 && t.gpus > kGpusPerNode && t.ShardParallel() > 1) {
    out.push_back(ZeroThreeWarning(e));
  }
  if (t.tensor_parallel > kGpusPerNode) {
    out.push_back(fmt::format(
        "tensor parallel {} spans {} nodes: its all-reduces cross the network at every layer "
        "({:.3g} s per step, never hidden); keep tensor_parallel (--tp) within a node ({}) and "
        "add pipeline stages instead",
        t.tensor_parallel, (t.tensor_parallel + kGpusPerNode - 1) / kGpusPerNode,
        e.step.tensor_parallel, kGpusPerNode));
  }
  const double step = e.step.Total();
  if (t.pipeline_parallel > 1 && step > 0 && e.step.bubble / step > kBubbleWarnShare) {
    out.push_back(BubbleWarning(e, step));
  }
  const bool collapsed = e.mfu < kLowMfuWarn || e.step.compute < kComputeShareWarn * step;
  if (e.source == UtilizationSource::kPrior && e.mfu > 0 && step > 0 && collapsed) {
    out.push_back(LowMfuWarning(e, step));
  }
  return out;
}

}  // namespace frugal::estimate
