#include "tools/server/exit_cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <iterator>

namespace locksim {

namespace {

constexpr size_t kDirChars = 512;

enum SlotState : int { kFree = 0, kClaimed = 1, kReady = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  std::atomic<pid_t> pid{-1};
  char dir[kDirChars] = {};
};

Slot g_slots[kExitCleanupSlots];
std::atomic<pid_t> g_installer_pid{0};

constexpr int kHandledSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
constexpr int kSignalCount = static_cast<int>(std::size(kHandledSignals));
struct sigaction g_previous[kSignalCount];

static_assert(std::atomic<int>::is_always_lock_free && std::atomic<pid_t>::is_always_lock_free,
              "the signal handler needs lock-free atomics");

// Removes `name` under the open directory `parent_fd` with everything in
// it, down to `depth` levels of subdirectories (a server dir is flat; a
// staged runs directory holds failures/ and timelines/), with raw system
// calls only. Links are removed, never followed. Each round rereads the
// directory from its start (removing entries while reading may skip some)
// until a round removes nothing.
void remove_tree_signal_safe(int parent_fd, const char* name, int depth) {
  const int fd = ::openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd >= 0) {
    alignas(8) char buf[4096];
    for (int rounds = 0; rounds < 64; ++rounds) {
      bool removed = false;
      ::lseek(fd, 0, SEEK_SET);
      for (int reads = 0; reads < 4096; ++reads) {
        const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (n <= 0) break;
        for (long off = 0; off < n;) {
          // struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, name.
          unsigned short reclen = 0;
          std::memcpy(&reclen, buf + off + 16, sizeof reclen);
          const unsigned char type = static_cast<unsigned char>(buf[off + 18]);
          const char* entry = buf + off + 19;
          if (std::strcmp(entry, ".") != 0 && std::strcmp(entry, "..") != 0) {
            if (type == DT_DIR && depth > 0) {
              remove_tree_signal_safe(fd, entry, depth - 1);
              removed = true;
            } else if (::unlinkat(fd, entry, 0) == 0) {
              removed = true;
            }
          }
          if (reclen == 0) break;
          off += reclen;
        }
      }
      if (!removed) break;
    }
    ::close(fd);
  }
  ::unlinkat(parent_fd, name, AT_REMOVEDIR);
}

void remove_dir_signal_safe(const char* dir) { remove_tree_signal_safe(AT_FDCWD, dir, 3); }

void clean_up_everything() {
  for (Slot& slot : g_slots) {
    if (slot.state.load(std::memory_order_acquire) != kReady) continue;
    const pid_t pid = slot.pid.load(std::memory_order_acquire);
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    remove_dir_signal_safe(slot.dir);
  }
}

bool is_fault(int sig) { return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL; }

void on_signal(int sig, siginfo_t* info, void*) {
  const int saved_errno = errno;
  if (::getpid() == g_installer_pid.load(std::memory_order_acquire)) clean_up_everything();
  for (int i = 0; i < kSignalCount; ++i) {
    if (kHandledSignals[i] == sig) ::sigaction(sig, &g_previous[i], nullptr);
  }
  errno = saved_errno;
  // A fault raised by the CPU happens again when the handler returns, now
  // under the previous disposition (which keeps the faulting address).
  if (is_fault(sig) && info != nullptr && info->si_code > 0) return;
  ::raise(sig);  // pending until the handler returns (sig is blocked here)
}

}  // namespace

ExitCleanupSlot::ExitCleanupSlot(const char* dir) {
  if (dir == nullptr || std::strlen(dir) >= kDirChars) return;
  for (int i = 0; i < kExitCleanupSlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kClaimed, std::memory_order_acq_rel)) continue;
    g_slots[i].pid.store(-1, std::memory_order_release);
    std::memcpy(g_slots[i].dir, dir, std::strlen(dir) + 1);
    g_slots[i].state.store(kReady, std::memory_order_release);
    index_ = i;
    return;
  }
}

ExitCleanupSlot::~ExitCleanupSlot() {
  if (index_ < 0) return;
  g_slots[index_].state.store(kFree, std::memory_order_release);
}

void ExitCleanupSlot::set_pid(pid_t pid) {
  if (index_ < 0) return;
  g_slots[index_].pid.store(pid, std::memory_order_release);
}

void install_exit_cleanup_handlers() {
  g_installer_pid.store(::getpid(), std::memory_order_release);
  struct sigaction action {};
  action.sa_sigaction = on_signal;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  for (int sig : kHandledSignals) sigaddset(&action.sa_mask, sig);  // one cleanup at a time
  for (int i = 0; i < kSignalCount; ++i) {
    struct sigaction previous {};
    if (::sigaction(kHandledSignals[i], nullptr, &previous) != 0) continue;
    // A signal the caller chose to ignore (nohup, a job started with
    // SIGINT ignored) stays ignored.
    if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler == SIG_IGN) continue;
    g_previous[i] = previous;
    ::sigaction(kHandledSignals[i], &action, nullptr);
  }
}

}  // namespace locksim
