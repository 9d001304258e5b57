#include "frugal/run/metadata_notice.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <thread>

namespace frugal::run {
namespace {

using std::chrono::milliseconds;

/// A loopback server impersonating the three clouds' metadata services. Nothing is announced
/// until `preempt` is set.
class FakeMetadataServer {
 public:
  FakeMetadataServer() {
    server_.Put("/latest/api/token", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("token-123", "text/plain");
    });
    server_.Get("/latest/meta-data/spot/instance-action",
                [this](const httplib::Request& req, httplib::Response& res) {
                  if (req.get_header_value("X-aws-ec2-metadata-token") != "token-123") {
                    res.status = 401;
                  } else if (!preempt) {
                    res.status = 404;
                  } else {
                    res.set_content(R"({"action": "terminate", "time": "2026-05-20T08:22:00Z"})",
                                    "application/json");
                  }
                });
    server_.Get("/computeMetadata/v1/instance/preempted",
                [this](const httplib::Request& req, httplib::Response& res) {
                  if (req.get_header_value("Metadata-Flavor") != "Google") {
                    res.status = 403;
                    return;
                  }
                  res.set_content(preempt ? "TRUE" : "FALSE", "text/plain");
                });
    server_.Get(
        "/metadata/scheduled-events", [this](const httplib::Request& req, httplib::Response& res) {
          if (req.get_header_value("Metadata") != "true") {
            res.status = 400;
            return;
          }
          const char* events =
              preempt ? R"({"DocumentIncarnation":2,"Events":[{"EventId":"E1","EventType":"Freeze"},
        {"EventId":"E2","EventType":"Preempt","NotBefore":"Mon, 19 Sep 2026 18:29:47 GMT"}]})"
                      : R"({"DocumentIncarnation":1,"Events":[]})";
          res.set_content(events, "application/json");
        });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ~FakeMetadataServer() {
    server_.stop();
    thread_.join();
  }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::atomic<bool> preempt{false};

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

TEST(MetadataNotice, ParsesEachCloudsDocuments) {
  EXPECT_TRUE(ParseAwsInstanceAction(200, R"({"action":"stop","time":"t"})"));
  EXPECT_FALSE(ParseAwsInstanceAction(404, "Not Found"));
  EXPECT_FALSE(ParseAwsInstanceAction(200, "garbage"));
  EXPECT_TRUE(ParseGcpPreempted(200, "TRUE\n"));
  EXPECT_FALSE(ParseGcpPreempted(200, "FALSE"));
  EXPECT_TRUE(ParseAzureScheduledEvents(200, R"({"Events":[{"EventType":"Preempt"}]})"));
  EXPECT_FALSE(ParseAzureScheduledEvents(200, R"({"Events":[{"EventType":"Reboot"}]})"));
  EXPECT_FALSE(ParseMetadataKind("ibm").has_value());
}

void ExpectNoticeAfterPreempt(MetadataKind kind, const std::string& source) {
  FakeMetadataServer server;
  Result<std::unique_ptr<MetadataPreemptions>> started =
      MetadataPreemptions::Start(kind, server.endpoint(), milliseconds(20));
  ASSERT_TRUE(started.has_value()) << started.error().message;
  MetadataPreemptions& poller = **started;
  poller.SegmentStarted(std::chrono::steady_clock::now());
  for (int i = 0; i < 500 && poller.polls() < 3; ++i) std::this_thread::sleep_for(milliseconds(5));
  ASSERT_GE(poller.polls(), 3);
  EXPECT_FALSE(poller.Poll(std::chrono::steady_clock::now()));
  server.preempt = true;
  std::optional<PreemptionNotice> notice;
  for (int i = 0; i < 500 && !notice; ++i) {
    std::this_thread::sleep_for(milliseconds(5));
    notice = poller.Poll(std::chrono::steady_clock::now());
  }
  ASSERT_TRUE(notice.has_value());
  EXPECT_EQ(notice->source, source);
  EXPECT_FALSE(poller.Poll(std::chrono::steady_clock::now()));  // delivered once
}

TEST(MetadataNotice, AwsInstanceActionOverImdsV2) {
  ExpectNoticeAfterPreempt(MetadataKind::kAws, "aws instance-action");
}
TEST(MetadataNotice, GcpPreempted) {
  ExpectNoticeAfterPreempt(MetadataKind::kGcp, "gcp preempted");
}
TEST(MetadataNotice, AzureScheduledEventsPreempt) {
  ExpectNoticeAfterPreempt(MetadataKind::kAzure, "azure scheduled events");
}

TEST(MetadataNotice, UnreachableEndpointIsNotFatal) {
  Result<std::unique_ptr<MetadataPreemptions>> started =
      MetadataPreemptions::Start(MetadataKind::kGcp, "http://127.0.0.1:1", milliseconds(20));
  ASSERT_TRUE(started.has_value()) << started.error().message;
  MetadataPreemptions& poller = **started;
  for (int i = 0; i < 500 && poller.polls() < 2; ++i) std::this_thread::sleep_for(milliseconds(5));
  EXPECT_FALSE(poller.Poll(std::chrono::steady_clock::now()));
}

}  // namespace
}  // namespace frugal::run
