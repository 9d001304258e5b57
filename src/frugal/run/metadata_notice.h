#pragma once
// Cloud metadata preemption notices, polled on a configurable endpoint from a thread of their
// own (an HTTP request never delays the supervisor's loop):
//   aws:   GET /latest/meta-data/spot/instance-action   200 {"action":"terminate","time":...}
//          (404 while none); an IMDSv2 token is fetched first when the endpoint offers one
//   gcp:   GET /computeMetadata/v1/instance/preempted   "TRUE" once preempted
//          (header Metadata-Flavor: Google)
//   azure: GET /metadata/scheduled-events?api-version=2020-07-01 with an event whose
//          EventType is "Preempt" (header Metadata: true)

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "frugal/core/duration.h"
#include "frugal/core/error.h"
#include "frugal/run/metadata_http.h"
#include "frugal/run/preemption_source.h"

namespace frugal::run {

enum class MetadataKind { kAws, kGcp, kAzure };
/// "aws", "gcp", "azure"; kBadInput otherwise.
[[nodiscard]] Result<MetadataKind> ParseMetadataKind(std::string_view text);
/// The real endpoint of each cloud ("http://169.254.169.254", "http://metadata.google.internal").
std::string DefaultMetadataEndpoint(MetadataKind kind);

/// Whether a response announces a preemption; the notice's detail when it does.
std::optional<std::string> ParseAwsInstanceAction(int status, std::string_view body);
std::optional<std::string> ParseGcpPreempted(int status, std::string_view body);
std::optional<std::string> ParseAzureScheduledEvents(int status, std::string_view body);

class MetadataPreemptions : public PreemptionSource {
 public:
  /// Opens the metadata client (metadata_http.h) and starts polling `endpoint`
  /// ("http://host:port") every `interval`; kBadInput naming the client's module when it is
  /// missing.
  [[nodiscard]] static Result<std::unique_ptr<MetadataPreemptions>> Start(MetadataKind kind,
                                                                          std::string endpoint,
                                                                          Duration interval);
  /// Starts polling through `request`, the metadata client's entry point.
  MetadataPreemptions(MetadataKind kind, std::string endpoint, Duration interval,
                      MetadataEntry request);
  /// Stops and joins the polling thread.
  ~MetadataPreemptions() override;
  MetadataPreemptions(const MetadataPreemptions&) = delete;
  MetadataPreemptions& operator=(const MetadataPreemptions&) = delete;

  /// A notice seen before a segment started belongs to the old machine; start afresh.
  void SegmentStarted(SteadyTime now) override;
  std::optional<PreemptionNotice> Poll(SteadyTime now) override;

  /// Completed polls (tests wait on this).
  [[nodiscard]] int64_t polls() const { return polls_.load(); }

 private:
  void PollLoop();
  std::optional<std::string> PollOnce();

  /// One request through the client.
  MetadataExchange Request(const std::string& method, const std::string& path,
                           std::vector<std::pair<std::string, std::string>> headers) const;

  MetadataKind kind_;
  std::string endpoint_;
  MetadataEntry request_;
  Duration interval_;
  std::atomic<int64_t> polls_{0};
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;              // GUARDED_BY(mu_)
  std::optional<std::string> notice_;  // GUARDED_BY(mu_)
  bool delivered_ = false;             // GUARDED_BY(mu_)
  bool warned_unreachable_ = false;    // polling thread only
  std::thread poller_;
};

}  // namespace frugal::run
