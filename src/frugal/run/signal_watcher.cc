#include "frugal/run/signal_watcher.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <mutex>

#include "frugal/core/error.h"

namespace frugal::run {
namespace {

constexpr int kMaxWatchers = 64;
constexpr int kSignals[] = {SIGTERM, SIGUSR1, SIGINT, SIGHUP, SIGCHLD};
constexpr size_t kSignalCount = sizeof kSignals / sizeof kSignals[0];

// What the handler touches: lock-free atomics only. A slot's pipe is made the first time a
// watcher takes the slot and never closed, so the handler can never write to a reused fd.
struct Slot {
  std::atomic<int> write_fd{-1};
  std::atomic<bool> in_use{false};
  int read_fd = -1;
};
Slot g_slots[kMaxWatchers];
std::atomic<uint64_t> g_preemptions{0};
std::atomic<int> g_preemption_signal{0};
std::atomic<uint64_t> g_interrupts{0};

// Installing and removing handlers, and taking slots: under g_mutex, never in the handler.
std::mutex g_mutex;
int g_watchers = 0;
struct sigaction g_previous[kSignalCount];

extern "C" void OnSignal(int signal) {
  const int saved_errno = errno;
  if (signal == SIGTERM || signal == SIGUSR1) {
    g_preemption_signal.store(signal);
    g_preemptions.fetch_add(1);
  }
  if (signal == SIGINT || signal == SIGHUP) g_interrupts.fetch_add(1);
  const char byte = 1;
  for (Slot& slot : g_slots) {
    const int fd = slot.write_fd.load();
    if (fd >= 0 && slot.in_use.load()) {
      ssize_t ignored = ::write(fd, &byte, 1);
      (void)ignored;
    }
  }
  errno = saved_errno;
}

void Drain(int fd) {
  char buffer[64];
  while (::read(fd, buffer, sizeof buffer) > 0) {
  }
}

}  // namespace

SignalWatcher::SignalWatcher() {
  std::lock_guard lock(g_mutex);
  slot_ = -1;
  for (int i = 0; i < kMaxWatchers && slot_ < 0; ++i) {
    if (!g_slots[i].in_use.load()) slot_ = i;
  }
  FRUGAL_CHECK(slot_ >= 0);
  Slot& slot = g_slots[slot_];
  if (slot.read_fd < 0) {
    int fds[2];
    FRUGAL_CHECK(::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0);
    slot.read_fd = fds[0];
    slot.write_fd.store(fds[1]);
  }
  Drain(slot.read_fd);  // bytes for an earlier owner of the slot
  seen_preemptions_ = g_preemptions.load();
  seen_interrupts_ = g_interrupts.load();
  slot.in_use.store(true);
  if (g_watchers++ > 0) return;
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (size_t i = 0; i < kSignalCount; ++i) ::sigaction(kSignals[i], &action, &g_previous[i]);
  // A checkpoint write hitting a file-size limit must fail with EFBIG, not kill us.
  ::signal(SIGXFSZ, SIG_IGN);
  ::signal(SIGPIPE, SIG_IGN);
}

SignalWatcher::~SignalWatcher() {
  std::lock_guard lock(g_mutex);
  g_slots[slot_].in_use.store(false);
  if (--g_watchers > 0) return;
  for (size_t i = 0; i < kSignalCount; ++i) ::sigaction(kSignals[i], &g_previous[i], nullptr);
}

void SignalWatcher::WaitFor(std::chrono::milliseconds timeout) const {
  const int fd = g_slots[slot_].read_fd;
  pollfd p{fd, POLLIN, 0};
  const int ms = static_cast<int>(std::max<int64_t>(0, timeout.count()));
  if (::poll(&p, 1, ms) > 0) Drain(fd);
}

int SignalWatcher::TakePreemptionSignal() {
  const uint64_t now = g_preemptions.load();
  if (now == seen_preemptions_) return 0;
  seen_preemptions_ = now;
  return g_preemption_signal.load();
}

bool SignalWatcher::TakeInterrupt() {
  const uint64_t now = g_interrupts.load();
  if (now == seen_interrupts_) return false;
  seen_interrupts_ = now;
  return true;
}

}  // namespace frugal::run
