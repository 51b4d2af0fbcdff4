#include "tools/cli/spooled_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "tools/cli/commands.h"

namespace locksim::cli {

namespace {

std::string temp_root() {
  const char* env = std::getenv("TMPDIR");
  return env != nullptr && env[0] == '/' ? env : "/tmp";
}

}  // namespace

SpooledInput::SpooledInput(std::string path) : path_(std::move(path)) {
  const bool standard_input = path_ == "-";
  struct stat st {};
  if (standard_input ? ::fstat(STDIN_FILENO, &st) != 0 : ::stat(path_.c_str(), &st) != 0) {
    throw UsageError(path_ + ": cannot read: " + std::strerror(errno));
  }
  if (S_ISREG(st.st_mode) && !standard_input) return;
  if (S_ISDIR(st.st_mode)) throw UsageError(path_ + ": is a directory (expected a trace file)");
  const int in = standard_input ? ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0) : ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) throw UsageError(path_ + ": cannot read: " + std::strerror(errno));
  spool_fd_ = ::open(temp_root().c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (spool_fd_ < 0) {
    const std::string why = std::strerror(errno);
    ::close(in);
    throw UsageError(path_ + ": cannot keep a copy of this stream to read it twice (" + temp_root() + ": " + why + ")");
  }
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(in, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = std::strerror(errno);
      ::close(in);
      throw UsageError(path_ + ": read error: " + why);
    }
    if (n == 0) break;
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = ::write(spool_fd_, buffer + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        const std::string why = w < 0 ? std::strerror(errno) : "no progress";
        ::close(in);
        throw UsageError(path_ + ": cannot keep a copy of this stream to read it twice: " + why);
      }
      done += w;
    }
  }
  ::close(in);
}

SpooledInput::~SpooledInput() {
  if (spool_fd_ >= 0) ::close(spool_fd_);
}

std::unique_ptr<std::istream> SpooledInput::open() const {
  const std::string file = spool_fd_ >= 0 ? "/proc/self/fd/" + std::to_string(spool_fd_) : path_;
  auto in = std::make_unique<std::ifstream>(file, std::ios::binary);
  if (!*in) throw UsageError(path_ + ": cannot read");
  return in;
}

}  // namespace locksim::cli
