#include "traces/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace locksim {

namespace {

constexpr size_t kBufferBytes = 64 * 1024;

std::string errno_text() { return std::strerror(errno); }

// An OutputError for the errno `error` the system gave: an OutputSystemError
// unless the path leads nowhere (a missing directory: the name is wrong).
[[noreturn]] void throw_system(const std::string& what, int error) {
  if (error == ENOENT || error == ENOTDIR) throw OutputError(what);
  throw OutputSystemError(what, error);
}

// The directory part of `path` ("." when there is none), and the file name.
void split_path(const std::string& path, std::string* dir, std::string* name) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) {
    *dir = ".";
    *name = path;
  } else {
    *dir = slash == 0 ? "/" : path.substr(0, slash);
    *name = path.substr(slash + 1);
  }
}

// Creates a new hidden file beside `name` in `dir`, exclusively: returns its
// descriptor (or -1 with errno set, when only a link is wanted) and its path.
int create_named_temp(const std::string& dir, const std::string& name, std::string* temp_path) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    *temp_path = dir + "/." + name + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(attempt);
    const int fd = ::open(temp_path->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

// What a path that exists and is not a regular file is, for messages.
std::string kind_of(const struct stat& st) {
  if (S_ISLNK(st.st_mode)) return "a symbolic link";
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  if (S_ISDIR(st.st_mode)) return "a directory";
  return "not a regular file";
}

// Opens a character device or FIFO for writing through. A FIFO is opened
// without blocking (no reader: ENXIO), then switched back to blocking writes.
int open_stream(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fd;
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw OutputError("empty output file name");
  if (path_ == "-") {  // standard output, after what stdio holds for it
    std::fflush(stdout);
    fd_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
    if (fd_ < 0) {
      const int error = errno;
      throw_system("-: cannot write to standard output: " + errno_text(), error);
    }
    stream_ = true;
    return;
  }
  std::string name;
  split_path(path_, &dir_, &name);
  struct stat st {};
  if (name.empty() || (::stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode))) {
    throw OutputError(path_ + ": is a directory (expected a file name)");
  }
  struct stat lst {};
  if (::lstat(path_.c_str(), &lst) == 0 && !S_ISREG(lst.st_mode)) {
    // Never renamed over: written through when it is a stream, else refused.
    const bool target_known = ::stat(path_.c_str(), &st) == 0;
    if (target_known && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
      fd_ = open_stream(path_);
      if (fd_ < 0) {
        const int error = errno;
        throw_system(path_ + ": cannot write through it: " +
                         (error == ENXIO ? std::string("nobody reads the pipe") : errno_text()),
                     error);
      }
      stream_ = true;
      return;
    }
    std::string what = kind_of(lst);
    if (S_ISLNK(lst.st_mode)) {
      what += !target_known ? " that points nowhere" : " to " + (S_ISREG(st.st_mode) ? std::string("a regular file")
                                                                                     : kind_of(st));
    }
    throw OutputError(path_ + ": is " + what +
                      "; locksim never replaces it (give a new file name, or - for standard output)");
  }
  // Unnamed first: nothing to clean up on any exit. Linking it later goes
  // through /proc/self/fd, so /proc must be there too.
  if (::access("/proc/self/fd", X_OK) == 0) {
    fd_ = ::open(dir_.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  } else {
    errno = EOPNOTSUPP;
  }
  if (fd_ < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    fd_ = create_named_temp(dir_, name, &temp_name_);
  }
  if (fd_ < 0) {
    const int error = errno;
    throw_system(path_ + ": cannot create the file: " + errno_text(), error);
  }
}

OutputFile::~OutputFile() {
  if (!committed_) discard();
}

void OutputFile::discard() noexcept {
  if (stream_) {  // what was written through stays; only let go of it
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    return;
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_name_.empty()) ::unlink(temp_name_.c_str());
  temp_name_.clear();
}

void OutputFile::write(std::string_view bytes) {
  assert(!committed_ && fd_ >= 0);
  buffer_.append(bytes);
  if (buffer_.size() >= kBufferBytes) flush();
}

void OutputFile::flush() {
  size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      const std::string why = n < 0 ? errno_text() : "no progress";
      buffer_.clear();
      throw_system(path_ + ": cannot write the file: " + why, error);
    }
    done += static_cast<size_t>(n);
  }
  buffer_.clear();
}

int OutputFile::flushed_fd() {
  assert(!committed_ && fd_ >= 0);
  flush();
  return fd_;
}

void OutputFile::commit() {
  assert(!committed_ && fd_ >= 0);
  try {
    flush();
  } catch (const OutputError&) {
    discard();
    throw;
  }
  if (stream_) {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0 && errno != EINTR) {
      const int error = errno;
      throw_system(path_ + ": cannot write through it: " + errno_text(), error);
    }
    committed_ = true;
    return;
  }
  if (temp_name_.empty()) {
    // Give the unnamed file a (hidden, unique) name, then rename it.
    std::string name;
    split_path(path_, &dir_, &name);
    const std::string self = "/proc/self/fd/" + std::to_string(fd_);
    bool linked = false;
    for (int attempt = 0; attempt < 1000 && !linked; ++attempt) {
      temp_name_ = dir_ + "/." + name + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(attempt);
      if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, temp_name_.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        linked = true;
      } else if (errno != EEXIST) {
        break;
      }
    }
    if (!linked) {
      const int error = errno;
      const std::string why = errno_text();
      temp_name_.clear();
      discard();
      throw_system(path_ + ": cannot create the file: " + why, error);
    }
  }
  if (::close(fd_) != 0) {
    fd_ = -1;
    const int error = errno;
    const std::string why = errno_text();
    discard();
    throw_system(path_ + ": cannot write the file: " + why, error);
  }
  fd_ = -1;
  if (::rename(temp_name_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    const std::string why = errno_text();
    discard();
    throw_system(path_ + ": cannot replace the file: " + why, error);
  }
  temp_name_.clear();
  committed_ = true;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {};
  struct stat sb {};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool is_standard_output(const std::string& path) {
  if (path == "-") return true;
  struct stat out {};
  struct stat st {};
  if (::fstat(STDOUT_FILENO, &out) != 0 || ::stat(path.c_str(), &st) != 0) return false;
  return out.st_dev == st.st_dev && out.st_ino == st.st_ino && out.st_rdev == st.st_rdev;
}

void refuse_output_over_input(const std::string& output, const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs) {
    if (same_file(output, input)) {
      throw OutputError("refusing to write " + output + ": it is an input of this command (" + input + ")");
    }
  }
}

}  // namespace locksim
