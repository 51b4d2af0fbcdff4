// Issue 13, item 3: every live server start probes the virtual clock. A
// server whose vclock shim is not loaded (not an ELF file) or loaded but not
// answering the time calls (an unrelated library) is refused with
// ClockProbeFailure; `run --backend live` and `diff` exit 2 with a clear
// message and write nothing; `doctor` reports the clock FAILED (exit 1). A
// working probe leaves no key behind and the clock where it was.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "impl/redis_conn.h"
#include "tests/cli_runner.h"
#include "tools/server/clock_probe.h"
#include "tools/server/redis_server.h"

namespace locksim {
namespace {

using testing::CliRun;
using testing::run_locksim;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Shims that do not drive redis-server's clock: a file ld.so cannot preload,
// and a real library that answers no time call.
const char* const kDeadShims[] = {"/etc/passwd", "/lib/x86_64-linux-gnu/libm.so.6"};

TEST(ClockProbe, WorkingServerPassesAndIsLeftAsFound) {
  RedisServer server;
  server.set_clock_us(1'234'567'000);
  EXPECT_EQ(probe_virtual_clock(server), "");
  EXPECT_EQ(server.clock_us(), 1'234'567'000);
  RedisConnOptions opts;
  opts.port = server.port();
  auto conn = RedisConn::connect(opts);
  EXPECT_EQ(conn.command({"DBSIZE"}), Reply::of_int(0));
}

TEST(ClockProbe, ServerWithoutTheShimIsRefused) {
  for (const char* shim : kDeadShims) {
    if (!std::filesystem::exists(shim)) continue;
    RedisServerOptions opts;
    opts.shim_path = shim;
    try {
      RedisServer server(opts);
      ADD_FAILURE() << shim << ": expected ClockProbeFailure";
    } catch (const ClockProbeFailure& e) {
      EXPECT_TRUE(contains(e.what(), "does not run on the virtual clock")) << e.what();
      EXPECT_TRUE(contains(e.what(), shim)) << e.what();
    }
  }
}

// A server off the virtual clock is the environment, not the input: exit 3.
TEST(ClockProbe, LiveRunWithoutTheShimExits3AndWritesNoTrace) {
  const auto dir = std::filesystem::path(LOCKSIM_BINARY_DIR) / "clock_probe_run";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const char* shim : kDeadShims) {
    if (!std::filesystem::exists(shim)) continue;
    const auto trace = dir / "t.jsonl";
    const CliRun r = run_locksim("run --seed 1 --backend live --duration-s 5 --trace " + trace.string(),
                                 testing::Stderr::Merge, std::string("LOCKSIM_VCLOCK_SHIM=") + shim);
    EXPECT_EQ(r.exit_code, 3) << shim << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "does not run on the virtual clock")) << r.out;
    EXPECT_EQ(testing::line_count(r.out), 1) << r.out;
    EXPECT_FALSE(std::filesystem::exists(trace)) << shim;
  }
  std::filesystem::remove_all(dir);
}

TEST(ClockProbe, DiffWithoutTheShimExits3) {
  for (const char* shim : kDeadShims) {
    if (!std::filesystem::exists(shim)) continue;
    const CliRun r = run_locksim("diff --sequences 3", testing::Stderr::Merge,
                                 std::string("LOCKSIM_VCLOCK_SHIM=") + shim);
    EXPECT_EQ(r.exit_code, 3) << shim << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "does not run on the virtual clock")) << r.out;
    EXPECT_FALSE(contains(r.out, "all agree")) << r.out;
  }
}

TEST(ClockProbe, DoctorReportsTheDeadClock) {
  const CliRun r = run_locksim("doctor", testing::Stderr::Merge, "LOCKSIM_VCLOCK_SHIM=/etc/passwd");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "virtual clock: FAILED")) << r.out;
  EXPECT_TRUE(contains(r.out, "cannot be preloaded")) << r.out;
}

}  // namespace
}  // namespace locksim
