#include "frugal/server/server.h"

#include <arpa/inet.h>
#include <sys/stat.h>

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

namespace {

void AddStaticRoutes(Server::Impl& impl) {
  const fs::path dir = impl.options.web_dir.empty() ? WebDir() : impl.options.web_dir;
  std::error_code ec;
  if (fs::exists(dir / "index.html", ec) && impl.http.set_mount_point("/", dir.string())) {
    // The built files name their content hash; index.html does not and is never cached.
    impl.http.set_file_request_handler([](const httplib::Request& req, httplib::Response& res) {
      if (req.path.starts_with("/assets/")) {
        res.set_header("Cache-Control", "public, max-age=31536000, immutable");
      } else {
        res.set_header("Cache-Control", "no-cache");
      }
    });
    return;
  }
  const std::string missing = dir.string();
  impl.http.Get("/", [missing](const httplib::Request&, httplib::Response& res) {
    res.status = 503;
    res.set_content("The dashboard is not built (no index.html in " + missing +
                        "): run scripts/setup.sh, or set FRUGAL_WEB_DIR. The API is at /api/v1 "
                        "and the metrics at /metrics.\n",
                    "text/plain; charset=utf-8");
  });
}

}  // namespace

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
  const int threads = std::max(1, options.threads);
  impl->http.new_task_queue = [threads] {
    return new httplib::ThreadPool(static_cast<size_t>(threads));
  };
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, which would let a second server
  // share a taken port instead of refusing it.
  impl->http.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  impl->http.set_keep_alive_max_count(1000);
  impl->http.set_keep_alive_timeout(5);
  impl->http.set_payload_max_length(1 << 20);
  AddApiRoutes(*impl);
  AddStaticRoutes(*impl);
  const std::string& host = options.listen.host;
  if (options.listen.port == 0) {
    impl->port = impl->http.bind_to_any_port(host);
    if (impl->port < 0) impl->port = 0;
  } else if (impl->http.bind_to_port(host, options.listen.port)) {
    impl->port = options.listen.port;
  }
  if (impl->port == 0) {
    return Fail(ErrorCode::kUnavailable,
                "cannot listen on " + host + ":" + std::to_string(options.listen.port) +
                    ": the address is taken or not this machine's (choose another with --listen)");
  }
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

int Server::port() const { return impl_->port; }

std::string Server::url() const {
  const std::string& host = impl_->options.listen.host;
  const bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(impl_->port);
}

std::string Server::ledger_where() const { return impl_->ledger_where; }

Result<void> Server::Serve() {
  if (!impl_->http.listen_after_bind()) {
    return Fail(ErrorCode::kFailed, "the listener on " + url() + " stopped with an error");
  }
  return {};
}

void Server::Stop() {
  if (impl_) impl_->http.stop();
}

}  // namespace frugal::server
