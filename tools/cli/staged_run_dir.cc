#include "tools/cli/staged_run_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <vector>

#include "reports/run_files.h"
#include "reports/run_summary.h"
#include "tools/cli/commands.h"
#include "tools/server/exit_cleanup.h"
#include "traces/output_file.h"

namespace locksim::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kStagingMark = ".locksim-staging-";
constexpr const char* kLockSuffix = ".locksim-lock";

std::string errno_text() { return std::strerror(errno); }

// The names of `fd`'s entries, "." and ".." left out.
std::vector<std::string> entries_of(int dir_fd) {
  std::vector<std::string> names;
  const int fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return names;
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    ::close(fd);
    return names;
  }
  while (const dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
  }
  ::closedir(d);
  return names;
}

// Locks <parent>/<lock_name> (created if need be) without waiting: the
// descriptor, or -1 when another process holds it. Retries when the file it
// locked was unlinked meanwhile (its previous owner finished), so the lock
// held is always the one the name leads to.
int try_lock(int parent_fd, const std::string& lock_name, bool create) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    const int fd = ::openat(parent_fd, lock_name.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0), 0600);
    if (fd < 0) return -2;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      return -1;
    }
    struct stat held {};
    struct stat named {};
    if (::fstat(fd, &held) == 0 && ::fstatat(parent_fd, lock_name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
      return fd;
    }
    ::close(fd);
  }
  return -2;
}

// Unlinks the lock file we hold (still the one its name leads to).
void unlink_held_lock(int parent_fd, const std::string& lock_name, int fd) {
  struct stat held {};
  struct stat named {};
  if (::fstat(fd, &held) == 0 && ::fstatat(parent_fd, lock_name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
      held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
    ::unlinkat(parent_fd, lock_name.c_str(), 0);
  }
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The pid in a staging dir's name (.<name>.locksim-staging-<pid>-<n>), or 0.
pid_t staging_pid(const std::string& entry, size_t mark) {
  const size_t from = mark + std::strlen(kStagingMark);
  const size_t dash = entry.find('-', from);
  if (dash == std::string::npos || dash == from) return 0;
  pid_t pid = 0;
  for (size_t i = from; i < dash; ++i) {
    if (entry[i] < '0' || entry[i] > '9' || pid > 10'000'000) return 0;
    pid = pid * 10 + (entry[i] - '0');
  }
  return pid;
}

// Whether process `pid` is gone (no such process; one we may not signal is alive).
bool process_gone(pid_t pid) { return pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH; }

// Staging dirs and lock files in `parent` whose owner is gone (only names
// of our own making: .<name>.locksim-staging-<pid>-<n>, .<name>.locksim-lock).
// A staging dir's owner holds its lock for as long as the dir lives, so one
// of `held_lock` (the lock this process holds) is another's, left behind
// (SIGKILL); so is one whose pid names no process, or whose lock is free.
void sweep_stale(int parent_fd, const std::string& parent, const std::string& held_lock) {
  const std::vector<std::string> entries = entries_of(parent_fd);
  // Staging dirs first: their lock file tells whether the owner is alive.
  for (const std::string& entry : entries) {
    const size_t mark = entry.find(kStagingMark);
    if (entry.size() < 2 || entry[0] != '.' || mark == std::string::npos || mark < 2) continue;
    const std::string lock_name = entry.substr(0, mark) + kLockSuffix;
    const pid_t pid = staging_pid(entry, mark);
    if (pid == ::getpid()) continue;  // ours (another StagedRunDir of this process)
    std::error_code ec;
    if (lock_name == held_lock || process_gone(pid)) {
      fs::remove_all(fs::path(parent) / entry, ec);
      continue;
    }
    const int fd = try_lock(parent_fd, lock_name, false);
    if (fd == -1) continue;  // its owner is alive
    if (fd == -2) {          // no lock file: only an old dir is left over
      struct stat st {};
      if (::fstatat(parent_fd, entry.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_mtime > std::time(nullptr) - 60) {
        continue;
      }
    }
    fs::remove_all(fs::path(parent) / entry, ec);
    if (fd >= 0) {
      unlink_held_lock(parent_fd, lock_name, fd);
      ::close(fd);
    }
  }
  // Then lock files whose owner died before it made its staging dir, or
  // after it removed it (a signal).
  for (const std::string& entry : entries) {
    if (entry.size() < 2 || entry[0] != '.' || !ends_with(entry, kLockSuffix)) continue;
    const int fd = try_lock(parent_fd, entry, false);
    if (fd >= 0) {
      unlink_held_lock(parent_fd, entry, fd);
      ::close(fd);
    }
  }
}

bool is_run_entry(const std::string& name) {
  return name == kSummaryFileName || name == kReportFileName || name == "failures" || name == "timelines";
}

}  // namespace

StagedRunDir::StagedRunDir(const std::string& out, SameRun same_run) : out_(out) {
  while (out_.size() > 1 && out_.back() == '/') out_.pop_back();
  const size_t slash = out_.rfind('/');
  parent_ = slash == std::string::npos ? "." : (slash == 0 ? "/" : out_.substr(0, slash));
  name_ = slash == std::string::npos ? out_ : out_.substr(slash + 1);
  if (name_.empty() || name_ == "." || name_ == ".." || out_.find('\0') != std::string::npos) {
    throw UsageError("--out '" + out + "': name a directory (e.g. --out runs/mine), not '" + name_ + "'");
  }
  std::error_code ec;
  fs::create_directories(parent_, ec);
  parent_fd_ = ::open(parent_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (parent_fd_ < 0) {
    throw EnvironmentError("cannot create output directory '" + out_ + "': " + parent_ + ": " +
                           (ec ? ec.message() : errno_text()));
  }
  lock_name_ = "." + name_ + kLockSuffix;
  lock_fd_ = try_lock(parent_fd_, lock_name_, true);
  if (lock_fd_ == -1) {
    throw EnvironmentError("another locksim is writing '" + out_ + "' (it holds " + parent_ + "/" + lock_name_ +
                           "): wait for it to finish, or give another --out");
  }
  if (lock_fd_ < 0) {
    const std::string why = errno_text();
    ::close(parent_fd_);
    throw EnvironmentError("cannot create output directory '" + out_ + "': cannot lock " + parent_ + "/" + lock_name_ +
                           ": " + why);
  }
  try {
    sweep_stale(parent_fd_, parent_, lock_name_);
    // What is at `out` now.
    struct stat st {};
    if (::fstatat(parent_fd_, name_.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISLNK(st.st_mode)) {
        throw UsageError("--out '" + out_ + "' is a symbolic link: give the directory's own path, or a new one");
      }
      if (!S_ISDIR(st.st_mode)) throw UsageError("--out '" + out_ + "' exists and is not a directory");
      const int out_fd = ::openat(parent_fd_, name_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      const std::vector<std::string> there = out_fd >= 0 ? entries_of(out_fd) : std::vector<std::string>{};
      if (out_fd >= 0) ::close(out_fd);
      if (!there.empty()) {
        bool only_run_files = true;
        bool has_run = false;
        std::string other;
        for (const std::string& e : there) {
          only_run_files = only_run_files && is_run_entry(e);
          has_run = has_run || e == kSummaryFileName || e == "failures" || e == "timelines";
          if (!is_run_entry(e) && other.empty()) other = e;
        }
        bool same = false;
        std::string run_file;
        for (const char* name : {kSummaryFileName, "failures", "timelines"}) {
          for (const std::string& e : there)
            if (e == name && run_file.empty()) run_file = name;
        }
        if (has_run && only_run_files) {
          try {
            same = same_run(read_run_summary(out_));
          } catch (const RunFileError&) {
            same = false;  // no readable summary: a partial run, or another one
          }
        }
        if (same) {
          replace_ = true;
        } else if (has_run) {
          throw UsageError("'" + out_ + "' already holds a run (" + run_file +
                           "): give --out a new or empty directory, or remove the old run");
        } else {
          throw UsageError("'" + out_ + "' is not empty (it holds " + other +
                           "): give --out a new or empty directory");
        }
      }
    } else if (errno != ENOENT) {
      throw EnvironmentError("cannot use output directory '" + out_ + "': " + errno_text());
    }
    // The private staging dir beside it.
    for (int n = 0; n < 1000 && staging_.empty(); ++n) {
      const std::string name = "." + name_ + kStagingMark + std::to_string(::getpid()) + "-" + std::to_string(n);
      if (::mkdirat(parent_fd_, name.c_str(), 0755) == 0) {
        staging_ = (parent_ == "/" ? "" : parent_) + "/" + name;
      } else if (errno != EEXIST) {
        throw EnvironmentError("cannot create output directory '" + out_ + "': " + parent_ + ": " + errno_text());
      }
    }
    if (staging_.empty()) {
      throw EnvironmentError("cannot create output directory '" + out_ + "': too many staging dirs");
    }
    if (parent_ == ".") staging_ = staging_.substr(2);  // "./.x" -> ".x"
    cleanup_ = std::make_unique<ExitCleanupSlot>(staging_.c_str());
  } catch (...) {
    release_lock();
    ::close(parent_fd_);
    parent_fd_ = -1;
    throw;
  }
}

StagedRunDir::~StagedRunDir() {
  if (!published_ && !staging_.empty()) {
    std::error_code ec;
    fs::remove_all(staging_, ec);
  }
  cleanup_.reset();
  release_lock();
  if (parent_fd_ >= 0) ::close(parent_fd_);
}

void StagedRunDir::release_lock() noexcept {
  if (lock_fd_ < 0) return;
  unlink_held_lock(parent_fd_, lock_name_, lock_fd_);
  ::close(lock_fd_);
  lock_fd_ = -1;
}

void StagedRunDir::publish() {
  const std::string staged = staging_.substr(staging_.rfind('/') == std::string::npos ? 0 : staging_.rfind('/') + 1);
  if (replace_) {
    // Swap the new run in and the old one out in one step, then remove it.
    if (::syscall(SYS_renameat2, parent_fd_, staged.c_str(), parent_fd_, name_.c_str(), RENAME_EXCHANGE) == 0) {
      published_ = true;
      std::error_code ec;
      fs::remove_all(staging_, ec);  // the old run, now under the staging name
      return;
    }
    if (errno != EINVAL && errno != ENOSYS) throw OutputError(out_ + ": cannot replace the old run: " + errno_text());
    // No exchange on this file system: the old run aside first.
    const std::string aside = staged + "-old";
    if (::renameat(parent_fd_, name_.c_str(), parent_fd_, aside.c_str()) != 0) {
      throw OutputError(out_ + ": cannot move the old run aside: " + errno_text());
    }
    if (::renameat(parent_fd_, staged.c_str(), parent_fd_, name_.c_str()) != 0) {
      const std::string why = errno_text();
      ::renameat(parent_fd_, aside.c_str(), parent_fd_, name_.c_str());
      throw OutputError(out_ + ": cannot put the run in place: " + why);
    }
    published_ = true;
    std::error_code ec;
    fs::remove_all(fs::path(parent_) / aside, ec);
    return;
  }
  if (::renameat(parent_fd_, staged.c_str(), parent_fd_, name_.c_str()) != 0) {
    throw OutputError(out_ + ": cannot put the run in place: " + errno_text());
  }
  published_ = true;
}

}  // namespace locksim::cli
