#include "frugal/server/server.h"

#include <arpa/inet.h>
#include <sys/stat.h>

#include <algorithm>

#include "frugal/core/atomic_file.h"
#include "frugal/core/paths.h"
#include "frugal/core/text.h"
#include "frugal/server/server_internal.h"

namespace frugal::server {

namespace fs = std::filesystem;

Result<ListenAddress> ParseListen(std::string_view text) {
  const auto bad = [text](std::string_view why) {
    return Fail(ErrorCode::kBadInput,
                "--listen: " + std::string(why) + ", got '" + std::string(text) +
                    "' (expected HOST:PORT, e.g. 127.0.0.1:8787 or [::1]:8787)");
  };
  ListenAddress out;
  std::string_view port;
  if (text.starts_with('[')) {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return bad("an IPv6 address goes in brackets before ':PORT'");
    }
    out.host = std::string(text.substr(1, close - 1));
    port = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return bad("no port");
    out.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
    if (out.host.find(':') != std::string::npos) return bad("put an IPv6 address in brackets");
  }
  if (out.host.empty()) return bad("no host");
  const Result<int64_t> n = ParseInt(port);
  if (!n || *n < 0 || *n > 65535) return bad("the port must be a number from 0 to 65535");
  out.port = static_cast<int>(*n);
  return out;
}

bool IsLoopback(std::string_view host) {
  if (host == "localhost" || host == "::1") return true;
  in_addr v4{};
  const std::string h(host);
  if (::inet_pton(AF_INET, h.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  return false;
}

Result<std::string> ReadToken(const fs::path& path) {
  const std::string where = "--token-file " + path.string();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Fail(ErrorCode::kBadInput, where + ": no such file");
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return Fail(ErrorCode::kBadInput,
                where + ": others can read it; make it private (chmod 600 " + path.string() + ")");
  }
  const std::string text =
      FRUGAL_TRY(ReadFile(path).map_error([&](Error e) { return e.Wrap("--token-file"); }));
  const std::string token(Trim(std::string_view(text).substr(0, text.find('\n'))));
  if (token.size() < 16) {
    return Fail(ErrorCode::kBadInput,
                where + ": the token's first line must hold at least 16 characters");
  }
  return token;
}

fs::path WebDir() {
  if (const char* dir = std::getenv("FRUGAL_WEB_DIR"); dir != nullptr && *dir != '\0') return dir;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "frugal" / "web";
    if (fs::exists(installed / "index.html", ec)) return installed;
  }
  return fs::path(FRUGAL_SOURCE_WEB_DIR);
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() { Stop(); }

Result<std::unique_ptr<Server>> Server::Start(const ServerOptions& options) {
  if (!IsLoopback(options.listen.host) && !options.token) {
    return Fail(ErrorCode::kBadInput,
                "--listen " + options.listen.host +
                    " is not a loopback address: give --token-file so that only holders of the "
                    "token can read or change anything");
  }
  std::vector<fs::path> custom;
  if (!options.catalog.empty()) custom.emplace_back(options.catalog);
  catalog::Catalog catalog = FRUGAL_TRY(catalog::Catalog::LoadDefault(custom));
  audit::Thresholds thresholds = FRUGAL_TRY(audit::ResolveThresholds(options.thresholds));
  catalog::TransferPrices transfer = FRUGAL_TRY(catalog::LoadShippedTransferPrices());
  auto impl = std::make_unique<Impl>(options, std::move(catalog), std::move(thresholds),
                                     std::move(transfer));
  {
    // Fail now, not on the first request, when the ledger cannot be opened.
    auto probe = FRUGAL_TRY(impl->pool.Acquire());
    impl->ledger_where = probe->connection().where();
  }
  std::error_code ec;
  const fs::path web = options.web_dir.empty() ? WebDir() : options.web_dir;
  if (fs::exists(web / "index.html", ec)) impl->web_dir = web;
  AddApiRoutes(*impl);
  HttpLimits limits;
  limits.threads = static_cast<unsigned>(std::clamp(options.threads, 1, 4096));
  // Off loopback, one address may not take every connection.
  limits.connections_per_client = IsLoopback(options.listen.host) ? 0 : 256;
  impl->daemon = FRUGAL_TRY(HttpDaemon::Bind(options.listen, limits, FrontHooks(*impl)));
  impl->port = impl->daemon->port();
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

int Server::port() const { return impl_->port; }

std::string Server::url() const {
  const std::string& host = impl_->options.listen.host;
  const bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(impl_->port);
}

std::string Server::ledger_where() const { return impl_->ledger_where; }

Result<void> Server::Serve() { return impl_->daemon->Serve(); }

void Server::Stop() {
  if (impl_ && impl_->daemon) impl_->daemon->Stop();
}

}  // namespace frugal::server
