#pragma once
// The HTTP client of the metadata notices (metadata_notice.h), built as the module
// frugal_metadata (core/module.h): only a run that polls a cloud's metadata endpoint loads
// cpp-httplib and the TLS and compression libraries behind it.

#include <string>
#include <utility>
#include <vector>

#include "frugal/core/error.h"

namespace frugal::run {

/// One request to a metadata endpoint and what came back. The client waits at most 1 s to
/// connect and 2 s for the answer.
struct MetadataExchange {
  std::string endpoint;  ///< "http://host:port"
  std::string method;    ///< "GET" or "PUT"
  std::string path;
  std::vector<std::pair<std::string, std::string>> headers;

  bool answered = false;  ///< false: no HTTP answer (error says why)
  int status = 0;
  std::string body;
  std::string error;
};

/// The module's entry point: performs `*exchange` and fills in its answer.
using MetadataEntry = void (*)(MetadataExchange* exchange);
inline constexpr const char* kMetadataModule = "frugal_metadata";
inline constexpr const char* kMetadataEntry = "frugal_metadata_request";

/// Opens the module (once per process); kBadInput naming it when it is missing.
[[nodiscard]] Result<MetadataEntry> LoadMetadataClient();

}  // namespace frugal::run

/// Exported by the module, called through MetadataEntry.
extern "C" [[gnu::visibility("default")]] void frugal_metadata_request(
    frugal::run::MetadataExchange* exchange);
