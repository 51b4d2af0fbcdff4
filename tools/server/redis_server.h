// RedisServer: a redis-server child process on a free loopback port, with
// persistence off unless set_append_only(true) (AOF in its private dir,
// appendfsync always; restart() deletes the AOF, restart_keeping_data()
// loads it), running under the vclock shim so that its clock is
// whatever set_clock_us() last stored (frozen between calls), and with its
// own active expiry off (DEBUG SET-ACTIVE-EXPIRE 0): keys expire only when
// something looks at them, at a time the caller set. The process is
// stopped on every exit path: destructor, exception unwinding, a signal when
// the program installed exit_cleanup.h's handlers, and the parent dying
// (PR_SET_PDEATHSIG=SIGKILL in the child). Its private temp dir
// (server_dir.h) goes on the same paths, or at the next start's sweep. Several servers may run at
// once, each with its own clock. Start-up failures throw RedisError with the
// server's own log tail.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "impl/redis_conn.h"
#include "impl/server_control.h"
#include "tools/server/exit_cleanup.h"
#include "tools/server/server_dir.h"

namespace locksim {

// The server started but does not run on the virtual clock (an environment
// problem: the vclock shim is missing, not preloadable, or broken).
struct ClockProbeFailure : RedisError {
  using RedisError::RedisError;
};

struct RedisServerOptions {
  std::string redis_server_path = "redis-server";  // looked up in PATH
  std::string shim_path;          // empty: LOCKSIM_VCLOCK_SHIM env, else the built one
  int64_t initial_clock_us = 1'000'000'000'000'000;  // ~2001-09-09 in µs
  int64_t startup_timeout_ms = 5000;
  // false: a plain redis-server on the wall clock (no shim, no clock probe;
  // set_clock_us() then has no effect on it). For real-time runs.
  bool virtual_clock = true;
};

class RedisServer final : public ServerControl {
 public:
  explicit RedisServer(RedisServerOptions options = {});
  ~RedisServer() override;
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  std::string host() const override { return "127.0.0.1"; }
  int port() const override { return port_; }
  void set_clock_us(int64_t now_us) override;
  int64_t clock_us() const override;
  void restart() override;
  void set_append_only(bool on) override;
  bool append_only() const override { return append_only_; }
  void restart_keeping_data() override;

  pid_t pid() const { return pid_; }
  // "7.0.15" as reported by INFO server.
  std::string version();
  // Stops the server now (idempotent).
  void stop();

 private:
  void start();
  void check_clock(const std::string& log_path);
  RedisServerOptions options_;
  int port_ = 0;
  pid_t pid_ = -1;
  ServerDir dir_;         // private temp dir: clock file, log
  std::optional<ExitCleanupSlot> cleanup_;  // the signal path's record of pid_ and dir_
  int clock_fd_ = -1;
  bool append_only_ = false;  // started with appendonly yes, appendfsync always
  volatile int64_t* clock_word_ = nullptr;  // shared with the shim (mmap)
};

// Path of the vclock shim that RedisServer preloads by default, the first of:
// $LOCKSIM_VCLOCK_SHIM if set and non-empty; the shim installed beside the
// running program (<dir of the program>/LOCKSIM_VCLOCK_SHIM_RELPATH, where
// `cmake --install` puts it: <prefix>/bin/locksim and
// <prefix>/<libdir>/locksim/liblocksim_vclock.so) if it exists; the build
// tree's shim (LOCKSIM_VCLOCK_SHIM_PATH, for the programs of a build tree).
// When none exists, the installed location it looked at, for messages.
std::string default_vclock_shim_path();

}  // namespace locksim
