#include "slurm_cluster.h"

#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <random>
#include <thread>

namespace frugal::testing {
namespace {

constexpr const char* kSbin = "/usr/sbin";
constexpr const char* kBin = "/usr/bin";

std::string& Why() {
  static std::string why;
  return why;
}

bool& Unavailable() {
  static bool unavailable = false;
  return unavailable;
}

/// The pid a daemon wrote to its pid file, or 0.
pid_t PidIn(const std::filesystem::path& file) {
  try {
    return static_cast<pid_t>(std::stol(ReadTestFile(file)));
  } catch (const std::exception&) {
    return 0;
  }
}

/// Sends each SIGTERM at once, then SIGKILL to any still there after a few seconds. slurmctld
/// and munged each take about 2 s to exit: one after the other, stopping a cluster took 5 s.
void Stop(const std::vector<pid_t>& pids) {
  std::vector<pid_t> signalled;
  for (pid_t pid : pids) {
    if (pid > 0 && ::kill(pid, SIGTERM) == 0) signalled.push_back(pid);
  }
  const auto alive = [&] {
    for (pid_t pid : signalled) {
      if (::kill(pid, 0) == 0) return true;
    }
    return false;
  };
  for (int i = 0; i < 100 && alive(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (pid_t pid : signalled) ::kill(pid, SIGKILL);
}

std::string ShortHostName() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::string name(host);
  return name.substr(0, name.find('.'));
}

// The controller must be named as this host; both daemons talk over loopback.
std::string Config(const std::filesystem::path& dir, int controller_port, int node_port) {
  const std::string d = dir.string();
  return fmt::format(
      "ClusterName=frugaltest\n"
      "SlurmctldHost={3}(127.0.0.1)\n"
      "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket={0}/munge.socket\n"
      "SlurmUser=root\nSlurmdUser=root\n"
      "StateSaveLocation={0}/state\nSlurmdSpoolDir={0}/spool\n"
      "SlurmctldPidFile={0}/slurmctld.pid\nSlurmdPidFile={0}/slurmd.pid\n"
      "SlurmctldLogFile={0}/slurmctld.log\nSlurmdLogFile={0}/slurmd.log\n"
      "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
      "SchedulerType=sched/backfill\nSelectType=select/cons_tres\n"
      "ReturnToService=2\nMpiDefault=none\n"
      // A stopped job's processes get 10 s between SIGTERM and SIGKILL (Slurm's default is 30).
      "KillWait=10\n"
      "SlurmctldPort={1}\nSlurmdPort={2}\n"
      "NodeName=frugaltest NodeHostname={3} NodeAddr=127.0.0.1 CPUs={4} RealMemory=1000 "
      "State=UNKNOWN\n"
      "PartitionName=debug Nodes=frugaltest Default=YES MaxTime=INFINITE State=UP\n"
      // The queue's tests: a partition of spot capacity (its jobs are preempted by the test,
      // with `scontrol requeue`) and one of on-demand capacity.
      "PartitionName=spot Nodes=frugaltest MaxTime=INFINITE State=UP\n"
      "PartitionName=ondemand Nodes=frugaltest MaxTime=INFINITE State=UP\n",
      d, controller_port, node_port, ShortHostName(),
      std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
}

}  // namespace

const std::string& SlurmCluster::why() { return Why(); }
bool SlurmCluster::unavailable() { return Unavailable(); }

std::unique_ptr<SlurmCluster> SlurmCluster::Start() {
  std::unique_ptr<SlurmCluster> cluster(new SlurmCluster());
  if (!cluster->Launch(Why())) return nullptr;
  return cluster;
}

bool SlurmCluster::Launch(std::string& why) {
  for (const std::string tool : {"/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged",
                                 "/usr/bin/sbatch", "/usr/bin/scontrol"}) {
    if (!std::filesystem::exists(tool)) {
      why = tool + " is missing (Debian packages slurm-wlm and munge)";
      Unavailable() = true;
      return false;
    }
  }
  if (::geteuid() != 0) {
    why = "a test Slurm cluster runs its daemons as root";
    Unavailable() = true;
    return false;
  }
  std::string pattern = (std::filesystem::temp_directory_path() / "frugal-slurm-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    why = "cannot make a temporary directory";
    return false;
  }
  dir_ = pattern;
  std::filesystem::create_directories(dir_ / "state");
  std::filesystem::create_directories(dir_ / "spool");
  // munged wants a key only its user can read, and lets everyone reach its socket.
  std::filesystem::permissions(dir_, std::filesystem::perms::owner_all |
                                         std::filesystem::perms::group_exec |
                                         std::filesystem::perms::others_exec);
  {
    std::random_device rd;
    std::string key(1024, '\0');
    for (char& c : key) c = static_cast<char>(rd());
    WriteTestFile(dir_ / "munge.key", key);
    std::filesystem::permissions(dir_ / "munge.key", std::filesystem::perms::owner_read);
  }
  const std::string d = dir_.string();
  const CommandResult munge =
      RunProgram({fmt::format("{}/munged", kSbin), "--force", "--socket=" + d + "/munge.socket",
                  "--key-file=" + d + "/munge.key", "--log-file=" + d + "/munged.log",
                  "--pid-file=" + d + "/munged.pid", "--seed-file=" + d + "/munged.seed"});
  if (munge.exit_code != 0) {
    why = "munged did not start: " + munge.err;
    return false;
  }
  const int controller_port = FreeLoopbackPort();
  int node_port = FreeLoopbackPort();
  for (int i = 0; i < 20 && node_port == controller_port; ++i) node_port = FreeLoopbackPort();
  WriteTestFile(dir_ / "slurm.conf", Config(dir_, controller_port, node_port));
  conf_env_ = "SLURM_CONF=" + d + "/slurm.conf";
  for (const char* daemon : {"slurmctld", "slurmd"}) {
    const CommandResult started =
        RunProgram({fmt::format("{}/{}", kSbin, daemon), "-f", d + "/slurm.conf"}, {conf_env_});
    if (started.exit_code != 0) {
      why = fmt::format("{} did not start: {}{}", daemon, started.out, started.err);
      return false;
    }
  }
  // The node registers with the controller within seconds.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < give_up) {
    const CommandResult state = Client("sinfo", {"-h", "-o", "%T"});
    if (state.exit_code == 0 && state.out.find("idle") != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  why = "the node never became idle; slurmctld.log:\n" + ReadTestFile(dir_ / "slurmctld.log") +
        "\nslurmd.log:\n" + ReadTestFile(dir_ / "slurmd.log");
  return false;
}

SlurmCluster::~SlurmCluster() {
  if (dir_.empty()) return;
  // Jobs first (their processes belong to slurmd and end within KillWait), then the daemons
  // and munge together.
  Client("scancel", {"--full", "--user=root"});
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (std::chrono::steady_clock::now() < give_up) {
    const CommandResult queued = Client("squeue", {"-h"});
    if (queued.exit_code != 0 || queued.out.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  Stop({PidIn(dir_ / "slurmd.pid"), PidIn(dir_ / "slurmctld.pid"), PidIn(dir_ / "munged.pid")});
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

CommandResult SlurmCluster::Client(const std::string& command, const std::vector<std::string>& args,
                                   const std::vector<std::string>& env) const {
  // A client retries an unreachable controller for minutes; a test should fail instead.
  std::vector<std::string> argv{"/usr/bin/timeout", "30", fmt::format("{}/{}", kBin, command)};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> full_env = env;
  full_env.push_back(conf_env_);
  return RunProgram(argv, full_env);
}

std::string SlurmCluster::JobState(const std::string& job) const {
  const CommandResult shown = Client("scontrol", {"show", "job", job});
  const size_t at = shown.out.find("JobState=");
  if (shown.exit_code != 0 || at == std::string::npos) return "";
  const size_t begin = at + 9;
  return shown.out.substr(begin, shown.out.find_first_of(" \n", begin) - begin);
}

bool SlurmCluster::WaitForJob(const std::string& job, const std::vector<std::string>& states,
                              std::chrono::seconds limit) const {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < give_up) {
    const std::string state = JobState(job);
    for (const std::string& s : states) {
      if (state == s) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return false;
}

std::string SlurmCluster::StartRequeuedJobNow(const std::string& job,
                                              std::chrono::seconds limit) const {
  if (!WaitForJob(job, {"PENDING"}, limit)) {
    return fmt::format("job {} never came back PENDING (state {})", job, JobState(job));
  }
  // The revocation carries the time of the requeue, which is before now; a credential from
  // the next whole second on is newer than it.
  const auto seen = std::chrono::system_clock::now();
  const auto next_second =
      std::chrono::floor<std::chrono::seconds>(seen) + std::chrono::milliseconds(1050);
  std::this_thread::sleep_until(next_second);
  const CommandResult now = Client("scontrol", {"update", "jobid=" + job, "StartTime=now"});
  if (now.exit_code != 0) return "scontrol update StartTime=now: " + now.err;
  return "";
}

}  // namespace frugal::testing
