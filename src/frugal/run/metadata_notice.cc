#include "frugal/run/metadata_notice.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "frugal/core/log.h"
#include "frugal/core/module.h"
#include "frugal/core/text.h"

namespace frugal::run {

Result<MetadataKind> ParseMetadataKind(std::string_view text) {
  const std::string t = ToLower(text);
  if (t == "aws") return MetadataKind::kAws;
  if (t == "gcp") return MetadataKind::kGcp;
  if (t == "azure") return MetadataKind::kAzure;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown metadata kind '{}' (use aws, gcp or azure)", text));
}

std::string DefaultMetadataEndpoint(MetadataKind kind) {
  return kind == MetadataKind::kGcp ? "http://metadata.google.internal" : "http://169.254.169.254";
}

std::optional<std::string> ParseAwsInstanceAction(int status, std::string_view body) {
  if (status != 200) return std::nullopt;
  const nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("action") ||
      !doc.at("action").is_string()) {
    return std::nullopt;
  }
  const std::string action = doc.at("action").get<std::string>();
  if (action != "terminate" && action != "stop" && action != "hibernate") return std::nullopt;
  return fmt::format("spot instance-action {} at {}", action, doc.value("time", "?"));
}

std::optional<std::string> ParseGcpPreempted(int status, std::string_view body) {
  if (status != 200) return std::nullopt;
  if (ToLower(Trim(body)) != "true") return std::nullopt;
  return std::string("instance preempted");
}

std::optional<std::string> ParseAzureScheduledEvents(int status, std::string_view body) {
  if (status != 200) return std::nullopt;
  const nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("Events") ||
      !doc.at("Events").is_array()) {
    return std::nullopt;
  }
  for (const nlohmann::json& e : doc.at("Events")) {
    if (e.is_object() && e.value("EventType", "") == "Preempt") {
      return fmt::format("scheduled event Preempt {} not before {}", e.value("EventId", "?"),
                         e.value("NotBefore", "?"));
    }
  }
  return std::nullopt;
}

Result<MetadataEntry> LoadMetadataClient() {
  void* entry = FRUGAL_TRY(ModuleEntry(kMetadataModule, kMetadataEntry));
  return reinterpret_cast<MetadataEntry>(entry);
}

Result<std::unique_ptr<MetadataPreemptions>> MetadataPreemptions::Start(MetadataKind kind,
                                                                        std::string endpoint,
                                                                        Duration interval) {
  const MetadataEntry request = FRUGAL_TRY(LoadMetadataClient());
  return std::make_unique<MetadataPreemptions>(kind, std::move(endpoint), interval, request);
}

MetadataPreemptions::MetadataPreemptions(MetadataKind kind, std::string endpoint, Duration interval,
                                         MetadataEntry request)
    : kind_(kind), endpoint_(std::move(endpoint)), request_(request), interval_(interval) {
  poller_ = std::thread([this] { PollLoop(); });
}

MetadataPreemptions::~MetadataPreemptions() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  poller_.join();
}

void MetadataPreemptions::SegmentStarted(SteadyTime /*now*/) {
  std::lock_guard lock(mu_);
  notice_.reset();
  delivered_ = false;
}

std::optional<PreemptionNotice> MetadataPreemptions::Poll(SteadyTime /*now*/) {
  std::lock_guard lock(mu_);
  if (!notice_ || delivered_) return std::nullopt;
  delivered_ = true;
  static constexpr const char* kNames[] = {"aws instance-action", "gcp preempted",
                                           "azure scheduled events"};
  return PreemptionNotice{kNames[static_cast<int>(kind_)], *notice_};
}

MetadataExchange MetadataPreemptions::Request(
    const std::string& method, const std::string& path,
    std::vector<std::pair<std::string, std::string>> headers) const {
  MetadataExchange exchange;
  exchange.endpoint = endpoint_;
  exchange.method = method;
  exchange.path = path;
  exchange.headers = std::move(headers);
  request_(&exchange);
  return exchange;
}

std::optional<std::string> MetadataPreemptions::PollOnce() {
  std::vector<std::pair<std::string, std::string>> headers;
  std::string path;
  switch (kind_) {
    case MetadataKind::kAws: {
      path = "/latest/meta-data/spot/instance-action";
      // IMDSv2: a session token when the endpoint hands one out; IMDSv1 otherwise.
      const MetadataExchange token =
          Request("PUT", "/latest/api/token", {{"X-aws-ec2-metadata-token-ttl-seconds", "300"}});
      if (token.answered && token.status == 200) {
        headers.emplace_back("X-aws-ec2-metadata-token", token.body);
      }
      break;
    }
    case MetadataKind::kGcp:
      path = "/computeMetadata/v1/instance/preempted";
      headers.emplace_back("Metadata-Flavor", "Google");
      break;
    case MetadataKind::kAzure:
      path = "/metadata/scheduled-events?api-version=2020-07-01";
      headers.emplace_back("Metadata", "true");
      break;
  }
  const MetadataExchange response = Request("GET", path, std::move(headers));
  ++polls_;
  if (!response.answered) {
    if (!warned_unreachable_) {
      warned_unreachable_ = true;
      log::Warning("metadata endpoint {} unreachable ({}); still polling", endpoint_,
                   response.error);
    }
    return std::nullopt;
  }
  switch (kind_) {
    case MetadataKind::kAws:
      return ParseAwsInstanceAction(response.status, response.body);
    case MetadataKind::kGcp:
      return ParseGcpPreempted(response.status, response.body);
    case MetadataKind::kAzure:
      return ParseAzureScheduledEvents(response.status, response.body);
  }
  return std::nullopt;
}

void MetadataPreemptions::PollLoop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    std::optional<std::string> seen = PollOnce();
    lock.lock();
    if (seen && !notice_) notice_ = std::move(seen);
    wake_.wait_for(lock, interval_, [this] { return stopping_; });
  }
}

}  // namespace frugal::run
