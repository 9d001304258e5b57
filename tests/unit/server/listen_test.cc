#include <gtest/gtest.h>

#include "frugal/server/server.h"

namespace frugal::server {
namespace {

TEST(ParseListen, ReadsHostAndPortIncludingBracketedIpv6) {
  auto a = ParseListen("127.0.0.1:8787");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 8787);
  auto b = ParseListen("[::1]:0");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->host, "::1");
  EXPECT_EQ(b->port, 0);
}

TEST(ParseListen, RefusesWhatIsNotHostColonPortNamingTheFlag) {
  for (const char* bad : {"8787", ":8787", "localhost:", "localhost:http", "host:70000", "::1:80",
                          "[::1]80", "127.0.0.1:-1"}) {
    const auto r = ParseListen(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
    EXPECT_NE(r.error().message.find("--listen"), std::string::npos) << r.error().message;
  }
}

TEST(IsLoopback, KnowsLoopbackFromTheRest) {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "::1", "localhost"}) {
    EXPECT_TRUE(IsLoopback(host)) << host;
  }
  for (const char* host : {"0.0.0.0", "10.0.0.1", "::", "example.com", "128.0.0.1"}) {
    EXPECT_FALSE(IsLoopback(host)) << host;
  }
}

}  // namespace
}  // namespace frugal::server
