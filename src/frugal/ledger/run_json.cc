#include "frugal/ledger/run_json.h"

#include <optional>

namespace frugal::ledger {

nlohmann::json RunSummaryJson(const RunSummary& r) {
  return {{"id", r.run.id},
          {"name", r.run.name},
          {"status", RunStatusName(r.run.status)},
          {"tags", r.run.tags.ToJson()},
          {"start", FormatTimestamp(r.run.start)},
          {"end", r.run.end ? nlohmann::json(FormatTimestamp(*r.run.end)) : nlohmann::json()},
          {"cost_usd", r.cost.ToPlainString()},
          {"cost_micros", r.cost.micros()},
          {"gpu_hours", r.gpu_hours},
          {"gpu", r.gpu.empty() ? nlohmann::json() : nlohmann::json(r.gpu)},
          {"tier", r.tier ? nlohmann::json(CapacityTierName(*r.tier)) : nlohmann::json()},
          {"segments", r.segments}};
}

nlohmann::json RunListJson(const std::vector<RunSummary>& runs) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : runs) list.push_back(RunSummaryJson(r));
  return {{"runs", list}};
}

namespace {

nlohmann::json SegmentJson(const Segment& seg, Timestamp now) {
  return {{"id", seg.id},
          {"cloud", seg.offer.cloud},
          {"instance_type", seg.offer.instance_type},
          {"region", seg.offer.region},
          {"zone", seg.offer.zone.empty() ? nlohmann::json() : nlohmann::json(seg.offer.zone)},
          {"gpu", seg.offer.gpu},
          {"gpu_count", seg.offer.gpu_count},
          {"tier", CapacityTierName(seg.offer.tier)},
          {"price_per_hour_usd", seg.offer.price.per_hour.ToPlainString()},
          {"on_demand_price_per_hour_usd",
           seg.offer.on_demand_price
               ? nlohmann::json(seg.offer.on_demand_price->per_hour.ToPlainString())
               : nlohmann::json()},
          {"start", FormatTimestamp(seg.start)},
          {"end", seg.end ? nlohmann::json(FormatTimestamp(*seg.end)) : nlohmann::json()},
          {"end_reason",
           seg.end_reason ? nlohmann::json(EndReasonName(*seg.end_reason)) : nlohmann::json()},
          {"cost_usd", seg.Cost(now).ToPlainString()}};
}

nlohmann::json Optional(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

}  // namespace

nlohmann::json RunDetailJson(const RunDetail& d, Timestamp now) {
  nlohmann::json doc = RunSummaryJson(d.summary);
  doc["command"] = d.summary.run.command;
  doc["budget_usd"] = d.summary.run.budget ? nlohmann::json(d.summary.run.budget->ToPlainString())
                                           : nlohmann::json();
  nlohmann::json segments = nlohmann::json::array();
  for (const auto& seg : d.segments) segments.push_back(SegmentJson(seg, now));
  doc["segments"] = segments;
  nlohmann::json events = nlohmann::json::array();
  for (const auto& e : d.events) {
    events.push_back({{"time", FormatTimestamp(e.time)},
                      {"type", EventTypeName(e.type)},
                      {"payload", e.payload}});
  }
  doc["events"] = events;
  doc["utilization"] = {{"samples", d.utilization.samples},
                        {"gpu_util_percent", Optional(d.utilization.gpu_util)},
                        {"cpu_util_percent", Optional(d.utilization.cpu_util)},
                        {"gpu_mem_bytes", Optional(d.utilization.gpu_mem_bytes)},
                        {"power_watts", Optional(d.utilization.power_watts)},
                        {"io_wait_percent", Optional(d.utilization.io_wait)}};
  return doc;
}

Result<RunFilter> ParseRunFilter(const RunFilterText& o, Timestamp now, std::string_view prefix) {
  const auto wrap = [prefix](const char* field) {
    return [name = std::string(prefix) + field](Error e) { return e.Wrap(name); };
  };
  RunFilter filter;
  if (!o.since.empty())
    filter.since = FRUGAL_TRY(ParseTimeOrAgo(o.since, now).map_error(wrap("since")));
  if (!o.until.empty())
    filter.until = FRUGAL_TRY(ParseTimeOrAgo(o.until, now).map_error(wrap("until")));
  if (!o.status.empty())
    filter.status = FRUGAL_TRY(ParseRunStatus(o.status).map_error(wrap("status")));
  for (const std::string& text : o.tags) {
    const Tag tag = FRUGAL_TRY(ParseTag(text).map_error(wrap("tag")));
    filter.tags.emplace_back(tag.key, tag.value);
  }
  filter.limit = o.limit;
  return filter;
}

}  // namespace frugal::ledger
