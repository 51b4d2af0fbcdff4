// Exit cleanup: what must not outlive locksim when a signal ends it, the
// redis-server children and their private temp dirs, and the staging dir of
// a runs directory being written (tools/cli/staged_run_dir.h), kept in a fixed table
// that a signal handler can walk without allocating or locking.
//
// Contract:
//  - This is process-wide state by necessity (a signal handler has no other
//    way in): a fixed table of kExitCleanupSlots slots. ExitCleanupSlot is
//    its RAII handle: RedisServer holds one per server, a staged runs
//    directory one; a full table only means that the signal path leaves that
//    dir to the next sweep (server_dir.h, staged_run_dir.h).
//  - install_exit_cleanup_handlers() is called once by the program (the
//    locksim main), never by the library. On SIGINT, SIGTERM, SIGHUP,
//    SIGQUIT, SIGABRT (abort(), assertions), SIGSEGV, SIGBUS, SIGFPE and
//    SIGILL the handler SIGKILLs and reaps every registered server, removes
//    every registered dir with what it holds, down to three levels of
//    subdirectories, never following a link (only async-signal-safe calls), then puts back the
//    signal's previous disposition and re-raises it, so the process still
//    dies of that signal (exit status and core dumps unchanged; a sanitizer's
//    own handler still reports a fault).
//  - A forked child that has not exec'd yet cleans nothing: the table belongs
//    to the process that installed the handlers.
//  - SIGKILL cannot be handled: PR_SET_PDEATHSIG kills the servers and the
//    next start sweeps the dirs (sweep_stale_server_dirs in server_dir.h).
#pragma once

#include <sys/types.h>

namespace locksim {

inline constexpr int kExitCleanupSlots = 64;

class ExitCleanupSlot {
 public:
  // Registers `dir` (copied; too long a path or a full table registers
  // nothing).
  explicit ExitCleanupSlot(const char* dir);
  ~ExitCleanupSlot();
  ExitCleanupSlot(const ExitCleanupSlot&) = delete;
  ExitCleanupSlot& operator=(const ExitCleanupSlot&) = delete;

  // The server process now running in the dir (-1: none; set it to -1 once
  // the process has been sent SIGKILL, before reaping it).
  void set_pid(pid_t pid);

 private:
  int index_ = -1;
};

void install_exit_cleanup_handlers();

}  // namespace locksim
