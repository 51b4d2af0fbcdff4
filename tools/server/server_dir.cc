#include "tools/server/server_dir.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "impl/redis_conn.h"

namespace locksim {

namespace {

constexpr const char* kPrefix = "locksim-redis-";
constexpr const char* kLockName = "owner.lock";
constexpr int64_t kUnlockedGraceS = 60;

// The pid in "locksim-redis-<pid>-XXXXXX", or -1.
pid_t pid_in_name(const std::string& name) {
  const std::string rest = name.substr(std::strlen(kPrefix));
  const size_t dash = rest.find('-');
  if (dash == std::string::npos || dash == 0 || dash > 9) return -1;
  pid_t pid = 0;
  for (size_t i = 0; i < dash; ++i) {
    if (rest[i] < '0' || rest[i] > '9') return -1;
    pid = pid * 10 + (rest[i] - '0');
  }
  return pid > 0 ? pid : -1;
}

bool owner_gone(const std::string& dir, const struct stat& st) {
  const std::string lock_path = dir + "/" + kLockName;
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (fd >= 0) {
    const bool unlocked = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    ::close(fd);
    return unlocked;
  }
  if (errno != ENOENT) return false;
  const pid_t pid = pid_in_name(std::filesystem::path(dir).filename().string());
  if (pid <= 0 || !(::kill(pid, 0) != 0 && errno == ESRCH)) return false;
  const auto age_s = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch()).count() - st.st_mtime;
  return age_s > kUnlockedGraceS;
}

}  // namespace

std::string server_dir_root() {
  const char* env = std::getenv("TMPDIR");
  if (env != nullptr && env[0] == '/') return env;
  return "/tmp";
}

ServerDir ServerDir::create() {
  const std::string root = server_dir_root();
  std::string tmpl = root + "/" + kPrefix + std::to_string(::getpid()) + "-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) {
    throw RedisError("redis-server: cannot create a temp dir under " + root + ": " + std::strerror(errno));
  }
  ServerDir dir;
  dir.path_ = tmpl;
  // Locked under another name first: a sweeper never finds owner.lock
  // unlocked while its owner lives.
  const std::string lock_path = dir.path_ + "/" + kLockName;
  const std::string new_path = lock_path + ".new";
  dir.lock_fd_ = ::open(new_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (dir.lock_fd_ < 0 || ::flock(dir.lock_fd_, LOCK_EX | LOCK_NB) != 0 ||
      ::rename(new_path.c_str(), lock_path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    dir.remove();
    throw RedisError("redis-server: cannot lock " + lock_path + ": " + why);
  }
  return dir;
}

ServerDir::~ServerDir() { remove(); }

ServerDir::ServerDir(ServerDir&& other) noexcept : path_(std::move(other.path_)), lock_fd_(other.lock_fd_) {
  other.path_.clear();
  other.lock_fd_ = -1;
}

ServerDir& ServerDir::operator=(ServerDir&& other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::move(other.path_);
    lock_fd_ = other.lock_fd_;
    other.path_.clear();
    other.lock_fd_ = -1;
  }
  return *this;
}

void ServerDir::remove() {
  if (!path_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    path_.clear();
  }
  if (lock_fd_ >= 0) {
    ::close(lock_fd_);  // after the removal: a sweeper never sees it unlocked while it exists
    lock_fd_ = -1;
  }
}

int sweep_stale_server_dirs() {
  namespace fs = std::filesystem;
  int removed = 0;
  std::error_code ec;
  fs::directory_iterator it(server_dir_root(), ec);
  if (ec) return 0;
  int examined = 0;
  for (const fs::directory_entry& entry : it) {
    if (++examined > 100'000) break;
    const std::string name = entry.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    struct stat st {};
    if (::lstat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) continue;
    if (!owner_gone(entry.path().string(), st)) continue;
    fs::remove_all(entry.path(), ec);
    if (!ec) ++removed;
  }
  return removed;
}

}  // namespace locksim
