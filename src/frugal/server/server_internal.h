#pragma once
// What the server's request handlers share (server.cc builds it, api.cc adds the routes).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "frugal/audit/thresholds.h"
#include "frugal/catalog/catalog.h"
#include "frugal/catalog/transfer_prices.h"
#include "frugal/ledger/fleet_cache.h"
#include "frugal/server/http_daemon.h"
#include "frugal/server/ledger_pool.h"
#include "frugal/server/router.h"
#include "frugal/server/server.h"

namespace frugal::server {

struct Server::Impl {
  ServerOptions options;
  Router http;  ///< the API routes (api.cc); anything else is a dashboard file
  std::unique_ptr<HttpDaemon> daemon;
  std::filesystem::path web_dir;  ///< the dashboard's files ("" when they are not built)
  LedgerPool pool;
  std::string ledger_where;
  catalog::Catalog catalog;
  audit::Thresholds thresholds;
  catalog::TransferPrices transfer;
  int port = 0;

  /// The ended history /metrics sums, kept and extended by what the ledger's change log adds.
  ledger::FleetFactsCache metrics_cache;

  Impl(ServerOptions o, catalog::Catalog c, audit::Thresholds t, catalog::TransferPrices p)
      : options(std::move(o)),
        pool(options.db),
        catalog(std::move(c)),
        thresholds(std::move(t)),
        transfer(std::move(p)) {}
};

/// The token the request carries ("Authorization: Bearer T"), or "".
[[nodiscard]] std::string TokenOf(const Request& req);
/// Whether two tokens are equal, compared in time independent of where they differ.
[[nodiscard]] bool SameToken(std::string_view a, std::string_view b);
/// Refuses (and answers) a request the token does not allow; true when it may go on. A request
/// that `changes` state always needs the token; one that only reads, off loopback.
[[nodiscard]] bool Authorized(const Server::Impl& impl, const Request& req, Response& res,
                              bool changes);

/// Adds /api/v1/... and /metrics to `impl.http`.
void AddApiRoutes(Server::Impl& impl);

/// What the transport calls for each request (front.cc): the Host and Origin checks, then the
/// route, else a dashboard file; error messages leave out where the server keeps its files.
[[nodiscard]] HttpHooks FrontHooks(Server::Impl& impl);

}  // namespace frugal::server
