#include "frugal/run/signal_watcher.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>

#include "frugal/core/error.h"

namespace frugal::run {
namespace {

std::atomic<int> g_preemption_signal{0};
std::atomic<bool> g_interrupt{false};
int g_wake_pipe[2] = {-1, -1};
bool g_installed = false;

constexpr int kSignals[] = {SIGTERM, SIGUSR1, SIGINT, SIGHUP, SIGCHLD};
struct sigaction g_previous[sizeof kSignals / sizeof kSignals[0]];

extern "C" void OnSignal(int signal) {
  const int saved_errno = errno;
  if (signal == SIGTERM || signal == SIGUSR1) g_preemption_signal.store(signal);
  if (signal == SIGINT || signal == SIGHUP) g_interrupt.store(true);
  const char byte = 1;
  ssize_t ignored = ::write(g_wake_pipe[1], &byte, 1);
  (void)ignored;
  errno = saved_errno;
}

}  // namespace

SignalWatcher::SignalWatcher() {
  FRUGAL_CHECK(!g_installed);
  g_installed = true;
  FRUGAL_CHECK(::pipe2(g_wake_pipe, O_CLOEXEC | O_NONBLOCK) == 0);
  g_preemption_signal.store(0);
  g_interrupt.store(false);
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
    ::sigaction(kSignals[i], &action, &g_previous[i]);
  }
  // A checkpoint write hitting a file-size limit must fail with EFBIG, not kill us.
  ::signal(SIGXFSZ, SIG_IGN);
  ::signal(SIGPIPE, SIG_IGN);
}

SignalWatcher::~SignalWatcher() {
  for (size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
    ::sigaction(kSignals[i], &g_previous[i], nullptr);
  }
  ::close(g_wake_pipe[0]);
  ::close(g_wake_pipe[1]);
  g_wake_pipe[0] = g_wake_pipe[1] = -1;
  g_installed = false;
}

void SignalWatcher::WaitFor(std::chrono::milliseconds timeout) const {
  pollfd fd{g_wake_pipe[0], POLLIN, 0};
  const int ms = static_cast<int>(std::max<int64_t>(0, timeout.count()));
  if (::poll(&fd, 1, ms) > 0) {
    char buffer[64];
    while (::read(g_wake_pipe[0], buffer, sizeof buffer) > 0) {
    }
  }
}

int SignalWatcher::TakePreemptionSignal() { return g_preemption_signal.exchange(0); }
bool SignalWatcher::TakeInterrupt() { return g_interrupt.exchange(false); }

}  // namespace frugal::run
