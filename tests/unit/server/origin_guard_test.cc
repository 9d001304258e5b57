#include "frugal/server/origin_guard.h"

#include <gtest/gtest.h>

namespace frugal::server {
namespace {

TEST(HostAllowed, OnLoopbackOnlyLoopbackNamesAndTheBindName) {
  for (const char* host : {"127.0.0.1:8787", "localhost:8787", "LOCALHOST", "localhost.:1",
                           "127.9.9.9", "[::1]:8787", "[::1]"}) {
    EXPECT_TRUE(HostAllowed("127.0.0.1", true, host)) << host;
  }
  for (const char* host :
       {"evil.example:8787", "evil.example", "127.0.0.1.evil.example:8787",
        "localhost.evil.example", "[::1", "0.0.0.0:8787", "", "10.0.0.1", "::1:80"}) {
    EXPECT_FALSE(HostAllowed("127.0.0.1", true, host)) << host;
  }
  // The name the server was told to listen on is its own.
  EXPECT_TRUE(HostAllowed("127.0.0.2", true, "127.0.0.2:80"));
  // HTTP/1.0 may send no Host; off loopback the token guards every request.
  EXPECT_TRUE(HostAllowed("127.0.0.1", false, ""));
  EXPECT_TRUE(HostAllowed("0.0.0.0", true, "evil.example"));
}

TEST(SameOrigin, APageOfAnotherSiteIsNotTheServer) {
  EXPECT_TRUE(SameOrigin(false, "", "127.0.0.1:8787"));
  EXPECT_TRUE(SameOrigin(true, "http://127.0.0.1:8787", "127.0.0.1:8787"));
  EXPECT_TRUE(SameOrigin(true, "http://LocalHost:8787", "localhost:8787"));
  EXPECT_FALSE(SameOrigin(true, "http://evil.example", "127.0.0.1:8787"));
  EXPECT_FALSE(SameOrigin(true, "http://127.0.0.1:9999", "127.0.0.1:8787"));
  EXPECT_FALSE(SameOrigin(true, "null", "127.0.0.1:8787"));
  EXPECT_FALSE(SameOrigin(true, "https://127.0.0.1:8787", "127.0.0.1:8787"));
}

}  // namespace
}  // namespace frugal::server
