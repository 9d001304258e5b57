// frugal serve: the JSON API, /metrics and the dashboard over the ledger, until SIGTERM.

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "commands.h"
#include "frugal/server/server.h"

namespace frugal::cli {
namespace {

struct ServeCommandOptions {
  std::string listen = "127.0.0.1:8787";
  std::string token_file;
  std::string thresholds;
  int threads = 64;
};

/// Blocks SIGTERM, SIGINT and SIGHUP in this thread (and the server's threads, which inherit
/// the mask) so that one thread can wait for them; restores the mask when destroyed.
class BlockedStopSignals {
 public:
  BlockedStopSignals() {
    sigemptyset(&set_);
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR2}) sigaddset(&set_, sig);
    pthread_sigmask(SIG_BLOCK, &set_, &previous_);
  }
  ~BlockedStopSignals() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  BlockedStopSignals(const BlockedStopSignals&) = delete;
  BlockedStopSignals& operator=(const BlockedStopSignals&) = delete;
  const sigset_t& set() const { return set_; }

 private:
  sigset_t set_{};
  sigset_t previous_{};
};

Result<void> RunServe(const ServeCommandOptions& o, const GlobalOptions& global, Streams& s) {
  server::ServerOptions options;
  options.listen = FRUGAL_TRY(server::ParseListen(o.listen));
  if (!o.token_file.empty()) options.token = FRUGAL_TRY(server::ReadToken(o.token_file));
  options.db = global.db;
  options.catalog = global.catalog;
  options.policy = global.policy;
  options.thresholds = o.thresholds;
  options.threads = o.threads;
  // Each connection is a descriptor: allow as many as the hard limit does (the server caps
  // its connections below what is left).
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < 65536 &&
      files.rlim_cur < files.rlim_max) {
    files.rlim_cur = std::min<rlim_t>(files.rlim_max, 65536);
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  const BlockedStopSignals blocked;
  std::unique_ptr<server::Server> srv = FRUGAL_TRY(server::Server::Start(options));
  s.err << fmt::format("frugal serve: {} (ledger {}); token {}; stop with Ctrl-C or SIGTERM\n",
                       srv->url(), srv->ledger_where(),
                       options.token ? "required for changes" : "not set: read-only");
  s.err.flush();
  // SIGUSR2 only wakes the waiter when the server stopped by itself.
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&blocked.set(), &sig);
    if (sig != SIGUSR2) s.err << fmt::format("frugal serve: {}, stopping\n", strsignal(sig));
    srv->Stop();
  });
  const Result<void> served = srv->Serve();
  pthread_kill(waiter.native_handle(), SIGUSR2);
  waiter.join();
  return served;
}

}  // namespace

void RegisterServe(CLI::App& app, GlobalOptions& global, Action& action) {
  auto o = std::make_shared<ServeCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "Serve the JSON API, Prometheus /metrics and the dashboard over the ledger");
  cmd->add_option("--listen", o->listen, "HOST:PORT to listen on (loopback unless a token is set)")
      ->capture_default_str();
  cmd->add_option("--token-file", o->token_file,
                  "File whose first line is the token state-changing requests need (chmod 600)");
  cmd->add_option("--thresholds", o->thresholds,
                  "Audit settings (thresholds, budgets); default: audit.yaml in the config dir");
  cmd->add_option("--threads", o->threads, "Event-loop threads serving the connections")
      ->check(WholeNumber(1, 4096))
      ->capture_default_str();
  cmd->callback([&, o] { action = [&global, o](Streams& s) { return RunServe(*o, global, s); }; });
}

}  // namespace frugal::cli
