#include "frugal/catalog/custom_offers.h"

#include <fmt/format.h>

#include <map>

#include "frugal/catalog/gpu_names.h"
#include "frugal/core/text.h"
#include "frugal/core/yaml.h"
#include "frugal/core/yaml_guard.h"

namespace frugal::catalog {
namespace {

/// The offer's GPU model (one the catalog knows) and how many it has.
Result<void> ReadOfferGpus(const YamlDoc& doc, const YAML::Node& node,
                           const std::vector<std::string>& known, Offer& o) {
  if (auto gpu = FRUGAL_TRY(doc.OptionalString(node, "gpu"))) {
    const auto names = ResolveGpuName(*gpu, known);
    if (names.size() != 1) {
      return Fail(doc.ErrorAt(node["gpu"], "gpu",
                              names.empty() ? fmt::format("unknown GPU '{}'{}", Abbreviate(*gpu),
                                                          DidYouMean(*gpu, known))
                                            : AmbiguousGpuMessage(*gpu, names)));
    }
    o.gpu = names.front();
  }
  const int64_t default_count = o.gpu.empty() ? 0 : 1;
  const int64_t count = FRUGAL_TRY(doc.OptionalInt(node, "gpus")).value_or(default_count);
  if (count < 0 || count > 4096 || (!o.gpu.empty() && count == 0)) {
    return Fail(doc.ErrorAt(node["gpus"], "gpus", "expected a GPU count between 1 and 4096"));
  }
  if (o.gpu.empty() && count > 0)
    return Fail(doc.ErrorAt(node["gpus"], "gpus", "a GPU count needs 'gpu'"));
  o.gpu_count = static_cast<int>(count);
  return {};
}

/// The offer's price (per instance or per GPU), its tier, and how often it is preempted.
Result<void> ReadOfferPrice(const YamlDoc& doc, const YAML::Node& node, Offer& o) {
  const auto whole = FRUGAL_TRY(doc.OptionalMoney(node, "price_per_hour"));
  const auto per_gpu = FRUGAL_TRY(doc.OptionalMoney(node, "price_per_gpu_hour"));
  if (whole.has_value() == per_gpu.has_value()) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: offer '{}': give exactly one of price_per_hour and "
                            "price_per_gpu_hour",
                            doc.Where(node), o.instance_type));
  }
  if (per_gpu && o.gpu_count == 0) {
    return Fail(doc.ErrorAt(node["price_per_gpu_hour"], "price_per_gpu_hour",
                            "a CPU-only offer needs price_per_hour"));
  }
  o.price = Rate{whole ? *whole : *per_gpu * o.gpu_count};
  const char* price_key = whole ? "price_per_hour" : "price_per_gpu_hour";
  if (o.price.per_hour <= Money())
    return Fail(doc.ErrorAt(node[price_key], price_key,
                            "must be positive, at least $0.000001 an hour (amounts are kept to "
                            "the millionth of a dollar)"));
  if (auto tier = FRUGAL_TRY(doc.OptionalString(node, "tier"))) {
    auto t = ParseRentedTier(*tier);
    if (!t) return Fail(doc.ErrorAt(node["tier"], "tier", t.error().message));
    o.tier = *t;
  }
  o.preemptions_per_hour = FRUGAL_TRY(doc.OptionalDouble(node, "preemptions_per_hour")).value_or(0);
  if (o.preemptions_per_hour < 0 || o.preemptions_per_hour > 60) {
    return Fail(doc.ErrorAt(node["preemptions_per_hour"], "preemptions_per_hour",
                            "expected a rate in [0, 60]"));
  }
  return {};
}

/// The time an instance takes to boot, set up and stage data, and how it is billed; kept on
/// the offer only when the spec gives any of it.
Result<void> ReadOfferLaunch(const YamlDoc& doc, const YAML::Node& node, Offer& o) {
  OfferLaunch launch;
  for (const auto& [key, field] : {std::pair{"boot", &launch.boot_hours},
                                   {"setup", &launch.setup_hours},
                                   {"billing_increment", &launch.billing_increment_hours},
                                   {"minimum_billed", &launch.minimum_billed_hours}}) {
    if (auto d = FRUGAL_TRY(doc.OptionalDuration(node, key))) {
      if (d->count() < 0) return Fail(doc.ErrorAt(node[key], key, "must not be negative"));
      *field = ToHours(*d);
    }
  }
  launch.staging_gbps = FRUGAL_TRY(doc.OptionalDouble(node, "staging_gbps"));
  if (launch.staging_gbps && !(*launch.staging_gbps > 0)) {
    return Fail(doc.ErrorAt(node["staging_gbps"], "staging_gbps", "must be positive"));
  }
  if (launch.boot_hours || launch.setup_hours || launch.billing_increment_hours ||
      launch.minimum_billed_hours || launch.staging_gbps) {
    o.launch = std::make_shared<const OfferLaunch>(launch);
  }
  return {};
}

Result<Offer> ReadOffer(const YamlDoc& doc, const YAML::Node& node,
                        const std::vector<std::string>& known) {
  FRUGAL_TRY(
      doc.CheckKeys(node, "offer",
                    {"name", "cloud", "region", "zone", "gpu", "gpus", "price_per_hour",
                     "price_per_gpu_hour", "tier", "preemptions_per_hour", "vcpus", "ram_gib",
                     "boot", "setup", "staging_gbps", "billing_increment", "minimum_billed"}));
  Offer o;
  o.source = OfferSource::kCustom;
  o.instance_type = FRUGAL_TRY(doc.RequiredString(node, "name"));
  o.cloud = FRUGAL_TRY(doc.OptionalString(node, "cloud")).value_or("onprem");
  o.region = FRUGAL_TRY(doc.OptionalString(node, "region")).value_or("local");
  o.zone = FRUGAL_TRY(doc.OptionalString(node, "zone")).value_or("");
  FRUGAL_TRY(ReadOfferGpus(doc, node, known, o));
  FRUGAL_TRY(ReadOfferPrice(doc, node, o));
  FRUGAL_TRY(ReadOfferLaunch(doc, node, o));
  o.vcpus = FRUGAL_TRY(doc.OptionalDouble(node, "vcpus")).value_or(0);
  if (o.vcpus < 0) return Fail(doc.ErrorAt(node["vcpus"], "vcpus", "must not be negative"));
  o.ram_gib = FRUGAL_TRY(doc.OptionalDouble(node, "ram_gib")).value_or(0);
  if (o.ram_gib < 0) return Fail(doc.ErrorAt(node["ram_gib"], "ram_gib", "must not be negative"));
  return o;
}

Result<PreemptionRate> ReadRate(const YamlDoc& doc, const YAML::Node& node) {
  FRUGAL_TRY(doc.CheckKeys(node, "preemption rate", {"cloud", "gpu", "per_hour"}));
  PreemptionRate r;
  r.cloud = FRUGAL_TRY(doc.OptionalString(node, "cloud")).value_or("*");
  r.gpu = FRUGAL_TRY(doc.OptionalString(node, "gpu")).value_or("*");
  r.per_hour = FRUGAL_TRY(doc.RequiredDouble(node, "per_hour"));
  if (r.per_hour < 0 || r.per_hour > 60) {
    return Fail(doc.ErrorAt(node["per_hour"], "per_hour", "expected a rate in [0, 60]"));
  }
  r.source = "user override in " + doc.source();
  return r;
}

Result<CustomCatalog> ReadCustomOffersDoc(const YamlDoc& doc, const std::vector<GpuSpec>& gpus);

}  // namespace

Result<CustomCatalog> ReadCustomOffers(const std::filesystem::path& path,
                                       const std::vector<GpuSpec>& gpus) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Load(path));
  return GuardYaml(doc.source(), [&] { return ReadCustomOffersDoc(doc, gpus); });
}

namespace {

Result<CustomCatalog> ReadCustomOffersDoc(const YamlDoc& doc, const std::vector<GpuSpec>& gpus) {
  FRUGAL_TRY(doc.CheckKeys(doc.root(), "custom offers file",
                           {"apiVersion", "offers", "preemption_rates"}));
  const std::string version = FRUGAL_TRY(doc.RequiredString(doc.root(), "apiVersion"));
  if (version != "frugal/v1") {
    return Fail(doc.ErrorAt(
        doc.root()["apiVersion"], "apiVersion",
        fmt::format("unsupported version '{}' (this frugal reads frugal/v1)", version)));
  }
  std::vector<std::string> known;
  known.reserve(gpus.size());
  for (const GpuSpec& g : gpus) known.push_back(g.name);
  CustomCatalog out;
  if (const YAML::Node offers = doc.root()["offers"]; offers) {
    if (!offers.IsSequence()) return Fail(doc.ErrorAt(offers, "offers", "expected a list"));
    // Two offers with one id would make --offer and measured profiles ambiguous.
    std::map<std::string, std::string> first_at;
    for (const auto& node : offers) {
      Offer o = FRUGAL_TRY(ReadOffer(doc, node, known));
      const auto [it, fresh] = first_at.emplace(o.Id(), doc.Where(node));
      if (!fresh) {
        return Fail(doc.ErrorAt(node["name"], "name",
                                fmt::format("offer '{}' is already defined at {} (same name, "
                                            "cloud, region, zone and tier)",
                                            o.Id(), it->second)));
      }
      out.offers.push_back(std::move(o));
    }
  }
  if (const YAML::Node rates = doc.root()["preemption_rates"]; rates) {
    if (!rates.IsSequence()) return Fail(doc.ErrorAt(rates, "preemption_rates", "expected a list"));
    for (const auto& node : rates) out.preemption_rates.push_back(FRUGAL_TRY(ReadRate(doc, node)));
  }
  return out;
}

}  // namespace
}  // namespace frugal::catalog
