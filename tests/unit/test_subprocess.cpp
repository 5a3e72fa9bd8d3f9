#include <gtest/gtest.h>

#include "core/subprocess.h"

using namespace ptxbench;

TEST(Subprocess, CapturesOutputExitCodeAndResultChannel) {
  ProcessOptions o;
  o.result_fd = 3;
  auto r = run_process({"/bin/sh", "-c", "echo out; echo err >&2; echo '{\"type\":\"done\"}' >&3; exit 7"}, o);
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.result, "{\"type\":\"done\"}\n");
  EXPECT_EQ(r.describe(), "exit 7");
}

TEST(Subprocess, TimeoutKillsTheWholeProcessGroup) {
  ProcessOptions o;
  o.timeout = std::chrono::milliseconds(300);
  auto r = run_process({"/bin/sh", "-c", "sleep 30 & sleep 30"}, o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(r.seconds, 5);
  EXPECT_NE(r.describe().find("timed out"), std::string::npos);
}

TEST(Subprocess, SignalIsReported) {
  auto r = run_process({"/bin/sh", "-c", "kill -SEGV $$"});
  EXPECT_EQ(r.term_signal, SIGSEGV);
  EXPECT_NE(r.describe().find("signal"), std::string::npos);
}

TEST(Subprocess, OutputBeyondTheLimitIsCountedNotKept) {
  ProcessOptions o;
  o.max_output_bytes = 10;
  auto r = run_process({"/bin/sh", "-c", "printf '0123456789abcdef'"}, o);
  EXPECT_EQ(r.out, "0123456789");
  EXPECT_EQ(r.dropped_bytes, 6u);
}

TEST(Subprocess, MissingProgramExits127) {
  auto r = run_process({"/no/such/program"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("cannot execute"), std::string::npos);
}
