#include "frugal/monitor/proc_sampler.h"

#include <gtest/gtest.h>

#include <thread>

#include "frugal/run/child_process.h"

namespace frugal::monitor {
namespace {

TEST(ProcSampler, ParsesStatLinesWithAwkwardCommandNames) {
  const std::string line =
      "4242 (py (worker) x) S 1 4240 4240 0 -1 4194560 1 0 0 0 150 50 0 0 20 0 3 0 100 1000000 "
      "2560 "
      "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 7 0 0";
  auto s = ParseProcStat(line, 4096);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->pid, 4242);
  EXPECT_EQ(s->pgrp, 4240);
  EXPECT_EQ(s->cpu_ticks, 200u);
  EXPECT_EQ(s->rss_bytes, 2560u * 4096u);
  EXPECT_EQ(s->blkio_ticks, 7u);
}

TEST(ProcSampler, MeasuresABusyProcessGroup) {
  auto child =
      run::ChildProcess::Spawn({{"/bin/sh", "-c", "while :; do :; done & while :; do :; done"},
                                {},
                                run::ChildStdout::kInherit});
  ASSERT_TRUE(child.has_value());
  ProcSampler sampler(nullptr);
  sampler.Take((*child)->pid());
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  const Sample s = sampler.Take((*child)->pid());
  EXPECT_EQ(s.processes, 2);
  EXPECT_GT(s.cpu_cores,
            0.05);  // two spinning shells; the shared machine decides how much they get
  EXPECT_GT(s.rss_bytes, 0u);
  EXPECT_FALSE(s.gpu_util_percent.has_value());
}

TEST(NvmlProbe, SaysWhyWhenThereIsNoGpu) {
  NvmlProbe probe;
  if (probe.available()) GTEST_SKIP() << "a GPU is present; the no-GPU path cannot be checked here";
  EXPECT_FALSE(probe.why_unavailable().empty());
  EXPECT_FALSE(probe.Read().has_value());
}

}  // namespace
}  // namespace frugal::monitor
