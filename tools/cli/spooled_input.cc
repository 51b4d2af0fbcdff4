#include "tools/cli/spooled_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
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

void write_all(int fd, const char* data, size_t size, const std::string& name) {
  for (size_t done = 0; done < size;) {
    const ssize_t w = ::write(fd, data + done, size - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      throw UsageError(name + ": cannot keep a copy of this stream to read it again: " +
                       (w < 0 ? std::strerror(errno) : "no progress"));
    }
    done += static_cast<size_t>(w);
  }
}

// One read of up to `size` bytes; 0 at the end. Throws UsageError.
size_t read_some(int fd, char* data, size_t size, const std::string& name) {
  for (;;) {
    const ssize_t n = ::read(fd, data, size);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno != EINTR) throw UsageError(name + ": read error: " + std::strerror(errno));
  }
}

}  // namespace

// The first pass: what it reads from the stream also goes to the copy.
class SpooledInput::TeeBuf final : public std::streambuf {
 public:
  explicit TeeBuf(SpooledInput* owner) : owner_(owner) {}

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (owner_->in_fd_ < 0) return traits_type::eof();
    const size_t n = read_some(owner_->in_fd_, buffer_.data(), buffer_.size(), owner_->path_);
    if (n == 0) {
      ::close(owner_->in_fd_);
      owner_->in_fd_ = -1;
      return traits_type::eof();
    }
    write_all(owner_->spool_fd_, buffer_.data(), n, owner_->path_);
    setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  SpooledInput* owner_;
  std::array<char, 1 << 16> buffer_{};
};

namespace {

// An istream that owns its streambuf.
class OwningStream final : public std::istream {
 public:
  explicit OwningStream(std::unique_ptr<std::streambuf> buf) : std::istream(buf.get()), buf_(std::move(buf)) {}

 private:
  std::unique_ptr<std::streambuf> buf_;
};

}  // namespace

SpooledInput::SpooledInput(std::string path) : path_(std::move(path)) {
  const bool standard_input = path_ == "-";
  struct stat st {};
  if (standard_input ? ::fstat(STDIN_FILENO, &st) != 0 : ::stat(path_.c_str(), &st) != 0) {
    throw UsageError(path_ + ": cannot read: " + std::strerror(errno));
  }
  if (S_ISREG(st.st_mode) && !standard_input) return;
  if (S_ISDIR(st.st_mode)) throw UsageError(path_ + ": is a directory (expected a trace file)");
  in_fd_ = standard_input ? ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0) : ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (in_fd_ < 0) throw UsageError(path_ + ": cannot read: " + std::strerror(errno));
  spool_fd_ = ::open(temp_root().c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (spool_fd_ < 0) {
    const std::string why = std::strerror(errno);
    ::close(in_fd_);
    in_fd_ = -1;
    throw UsageError(path_ + ": cannot keep a copy of this stream to read it again (" + temp_root() + ": " + why + ")");
  }
}

SpooledInput::~SpooledInput() {
  if (in_fd_ >= 0) ::close(in_fd_);
  if (spool_fd_ >= 0) ::close(spool_fd_);
}

void SpooledInput::drain() {
  std::array<char, 1 << 16> buffer{};
  while (in_fd_ >= 0) {
    const size_t n = read_some(in_fd_, buffer.data(), buffer.size(), path_);
    if (n == 0) {
      ::close(in_fd_);
      in_fd_ = -1;
    } else {
      write_all(spool_fd_, buffer.data(), n, path_);
    }
  }
}

std::unique_ptr<std::istream> SpooledInput::open() {
  if (spool_fd_ < 0) {
    auto in = std::make_unique<std::ifstream>(path_, std::ios::binary);
    if (!*in) throw UsageError(path_ + ": cannot read");
    return in;
  }
  if (first_pass_) {
    first_pass_ = false;
    return std::make_unique<OwningStream>(std::make_unique<TeeBuf>(this));
  }
  drain();
  auto in = std::make_unique<std::ifstream>("/proc/self/fd/" + std::to_string(spool_fd_), std::ios::binary);
  if (!*in) throw UsageError(path_ + ": cannot read its copy");
  return in;
}

}  // namespace locksim::cli
