#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <thread>

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

// Issue 12: the deadline held only while the child kept its pipes open; one that closed them and
// slept made waitpid block with no limit.
TEST(Subprocess, DeadlineHoldsForAChildThatClosesItsPipesAndSleeps) {
  ProcessOptions o;
  o.timeout = std::chrono::milliseconds(500);
  o.result_fd = 3;
  auto r = run_process({"/bin/sh", "-c", "exec 0<&- 1>&- 2>&- 3>&-; sleep 10"}, o);
  EXPECT_TRUE(r.timed_out) << r.describe();
  EXPECT_LT(r.seconds, 3) << r.describe();
}

TEST(Subprocess, ExactEnvironmentAndLimitsApplyInTheChild) {
  ProcessOptions o;
  o.environment = std::vector<std::string>{"ONLY=this", "PATH=/usr/bin:/bin"};
  o.rlimits = {{RLIMIT_FSIZE, 4096}};
  o.no_new_privs = true;
  auto r = run_process({"/bin/sh", "-c", "env | sort; ulimit -f; grep NoNewPrivs /proc/self/status"}, o);
  EXPECT_NE(r.out.find("ONLY=this"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("HOME="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n8\n"), std::string::npos) << r.out;  // 4096 bytes = 8 blocks of 512
  EXPECT_NE(r.out.find("NoNewPrivs:\t1"), std::string::npos) << r.out;
}

// A passed descriptor arrives under the number asked for, whatever number it has here (also
// the result channel's own number: every source is moved out of the way first).
TEST(Subprocess, PassedDescriptorsArriveUnderTheirChildNumbers) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ProcessOptions o;
  o.result_fd = 3;
  o.pass_fds = {{fds[1], 4}};
  auto r = run_process({"/bin/sh", "-c", "echo through-four >&4; echo result >&3"}, o);
  close(fds[1]);
  char buf[64] = {0};
  const ssize_t n = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  EXPECT_TRUE(r.ok()) << r.describe() << " " << r.err;
  EXPECT_EQ(std::string(buf, n > 0 ? n : 0), "through-four\n");
  EXPECT_EQ(r.result, "result\n");
}

// Time the child spends waiting on its parent is not its time: a 600 ms pause lets a child that
// runs 900 ms finish under a 700 ms limit; without the pause the same child times out.
TEST(Subprocess, ThePausedTimeIsOutsideTheDeadline) {
  DeadlinePause pause;
  ProcessOptions o;
  o.timeout = std::chrono::milliseconds(700);
  o.pause = &pause;
  pause.begin();
  std::thread resume([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    pause.end();
  });
  auto r = run_process({"/bin/sh", "-c", "sleep 0.9"}, o);
  resume.join();
  EXPECT_TRUE(r.ok()) << r.describe();
  ProcessOptions plain;
  plain.timeout = std::chrono::milliseconds(700);
  EXPECT_TRUE(run_process({"/bin/sh", "-c", "sleep 0.9"}, plain).timed_out);
}
