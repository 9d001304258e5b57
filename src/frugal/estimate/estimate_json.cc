#include "frugal/estimate/estimate_json.h"

namespace frugal::estimate {
namespace {

double Gib(double bytes) { return bytes / kBytesPerGib; }

nlohmann::json StepJson(const StepTime& s) {
  return {{"total", s.Total()},
          {"compute", s.compute},
          {"pipeline_bubble", s.bubble},
          {"tensor_parallel", s.tensor_parallel},
          {"expert_parallel", s.expert_parallel},
          {"context_parallel", s.context_parallel},
          {"context_parallel_exposed", s.exposed_context_parallel},
          {"data_parallel", s.data_parallel},
          {"data_parallel_exposed", s.exposed_data_parallel}};
}

nlohmann::json ModelJson(const Model& m) {
  return {{"params", m.params},
          {"layers", m.layers},
          {"hidden", m.hidden},
          {"heads", m.heads},
          {"kv_heads", m.kv_heads},
          {"ffn", m.ffn},
          {"vocab", m.vocab},
          {"seq", m.seq},
          {"mlp", MlpName(m.mlp)},
          {"experts", m.experts},
          {"experts_per_token", m.experts_per_token},
          {"shape_derived", m.shape_derived}};
}

nlohmann::json TrainingJson(const Training& t) {
  return {{"dtype", catalog::PrecisionName(t.precision)},
          {"optimizer", OptimizerName(t.optimizer)},
          {"method", MethodName(t.method)},
          {"lora_rank", t.method == Method::kFull ? nlohmann::json() : nlohmann::json(t.lora_rank)},
          {"micro_batch", t.micro_batch},
          {"global_batch", t.GlobalBatch()},
          {"accumulation_steps", t.AccumulationSteps()},
          {"recompute", RecomputeName(t.recompute)},
          {"zero", t.zero_stage},
          {"gpus", t.gpus},
          {"tensor_parallel", t.tensor_parallel},
          {"pipeline_parallel", t.pipeline_parallel},
          {"virtual_stages", t.virtual_stages},
          {"expert_parallel", t.expert_parallel},
          {"context_parallel", t.context_parallel},
          {"data_parallel", t.DataParallel()},
          {"sequence_parallel", t.sequence_parallel},
          {"attention", AttentionName(t.attention)},
          {"loss", LossName(t.loss)},
          {"offload", OffloadName(t.offload)},
          {"optimizer_in_backward", t.optimizer_in_backward}};
}

}  // namespace

nlohmann::json MemoryJson(const MemoryBreakdown& m) {
  return {{"weights_gib", Gib(m.weights)},
          {"gradients_gib", Gib(m.gradients)},
          {"optimizer_states_gib", Gib(m.optimizer_states)},
          {"activations_gib", Gib(m.activations)},
          {"logits_gib", Gib(m.logits)},
          {"overhead_gib", Gib(m.overhead)}};
}

nlohmann::json CostJson(const std::vector<TierCost>& costs) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : costs) {
    list.push_back({{"tier", CapacityTierName(c.offer->tier)},
                    {"cloud", c.offer->cloud},
                    {"instance_type", c.offer->instance_type},
                    {"region", c.offer->region},
                    {"instances", c.instances},
                    {"price_per_hour", c.offer->price.per_hour.dollars()},
                    {"price_estimated", c.offer->price_estimated},
                    {"cost_usd", c.cost.dollars()}});
  }
  return list;
}

nlohmann::json EstimateJson(const Estimate& e, const std::vector<TierCost>& costs) {
  const Training& t = e.training;
  return {{"fits", e.fits},
          {"peak_memory_gib_per_gpu", Gib(MemoryInBasis(e.memory, t.memory_basis))},
          {"memory_basis", MemoryBasisName(t.memory_basis)},
          {"device_memory_gib_per_gpu", Gib(e.memory.Total())},
          {"capacity_gib_per_gpu", Gib(e.capacity_bytes)},
          {"headroom_gib", Gib(e.HeadroomBytes())},
          {"memory", MemoryJson(e.memory)},
          // The two parts of memory.overhead_gib, outside `memory` so that its terms still sum to
          // the device total.
          {"overhead_parts",
           {{"context_gib", Gib(e.memory.context)},
            {"fragmentation_gib", Gib(e.memory.overhead - e.memory.context)}}},
          {"model", ModelJson(e.model)},
          {"training", TrainingJson(t)},
          {"tokens", e.tokens},
          {"steps", e.steps},
          {"total_flops", e.flops.Total()},
          {"model_flops", e.flops.model},
          {"recompute_flops", e.flops.recompute},
          {"mfu", e.mfu},
          {"mfu_source", UtilizationSourceName(e.source)},
          {"prior_hfu", e.prior_hfu},
          {"compute_hfu", e.compute_hfu},
          {"step_seconds", StepJson(e.step)},
          {"wall_hours", e.WallHours()},
          {"gpu_hours", e.GpuHours()},
          {"warnings", e.warnings},
          {"costs", CostJson(costs)}};
}

}  // namespace frugal::estimate
