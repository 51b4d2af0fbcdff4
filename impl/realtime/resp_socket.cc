#include "impl/realtime/resp_socket.h"

#include <hiredis/hiredis.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>
#include <fcntl.h>

namespace locksim {

namespace {

// Connects with a timeout (non-blocking connect + poll), then makes the
// socket blocking again. Returns the fd or throws RedisError.
int connect_socket(const RedisConnOptions& options, const std::string& where) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(options.port);
  if (int rc = ::getaddrinfo(options.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    throw RedisError(where + ": connect: " + ::gai_strerror(rc));
  }
  std::string last = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last = std::strerror(errno);
      continue;
    }
    const int flags = ::fcntl(fd, F_GETFL, 0);
    ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      rc = ::poll(&p, 1, static_cast<int>(options.connect_timeout_ms));
      if (rc == 0) {
        last = "timed out after " + std::to_string(options.connect_timeout_ms) + " ms";
        ::close(fd);
        continue;
      }
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      rc = err == 0 ? 0 : -1;
      errno = err;
    }
    if (rc != 0) {
      last = std::strerror(errno);
      ::close(fd);
      continue;
    }
    ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::freeaddrinfo(found);
    return fd;
  }
  ::freeaddrinfo(found);
  throw RedisError(where + ": connect: " + last);
}

}  // namespace

RespSocket::RespSocket(const RedisConnOptions& options, OnReply on_reply, OnClosed on_closed)
    : where_("redis " + options.host + ":" + std::to_string(options.port)),
      on_reply_(std::move(on_reply)),
      on_closed_(std::move(on_closed)) {
  if (options.port < 1 || options.port > 65535) throw RedisError(where_ + ": invalid port (expected 1-65535)");
  fd_ = connect_socket(options, where_);
  reader_ = std::thread([this] { read_loop(); });
}

RespSocket::~RespSocket() { close(); }

bool RespSocket::send(const std::vector<std::vector<std::string>>& commands, std::string* error) {
  std::string wire;
  for (const auto& argv : commands) {
    std::vector<const char*> ptrs;
    std::vector<size_t> lens;
    for (const auto& a : argv) {
      ptrs.push_back(a.data());
      lens.push_back(a.size());
    }
    char* cmd = nullptr;
    const long long n = redisFormatCommandArgv(&cmd, static_cast<int>(argv.size()), ptrs.data(), lens.data());
    if (n < 0 || cmd == nullptr) {
      *error = where_ + ": cannot format " + (argv.empty() ? std::string("(empty)") : argv[0]);
      return false;
    }
    wire.append(cmd, static_cast<size_t>(n));
    redisFreeCommand(cmd);
  }
  std::lock_guard<std::mutex> lock(write_mutex_);
  if (!open_.load()) {
    *error = where_ + ": connection lost";
    return false;
  }
  size_t sent = 0;
  while (sent < wire.size()) {
    const ssize_t n = ::send(fd_, wire.data() + sent, wire.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = where_ + ": write: " + std::strerror(errno);
      ::shutdown(fd_, SHUT_RDWR);  // the reader reports the loss
      return false;
    }
    sent += static_cast<size_t>(n);
  }
  return true;
}

void RespSocket::read_loop() {
  redisReader* reader = redisReaderCreate();
  std::string why;
  char buf[16384];
  while (why.empty()) {
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) {
      why = "connection closed by the server";
      break;
    }
    if (n < 0) {
      why = std::string("read: ") + std::strerror(errno);
      break;
    }
    if (redisReaderFeed(reader, buf, static_cast<size_t>(n)) != REDIS_OK) {
      why = std::string("protocol error: ") + reader->errstr;
      break;
    }
    for (;;) {
      void* raw = nullptr;
      if (redisReaderGetReply(reader, &raw) != REDIS_OK) {
        why = std::string("protocol error: ") + reader->errstr;
        break;
      }
      if (raw == nullptr) break;
      Reply r = reply_from_hiredis(static_cast<redisReply*>(raw));
      freeReplyObject(raw);
      if (closing_.load()) break;
      on_reply_(std::move(r));
    }
  }
  redisReaderFree(reader);
  {
    std::lock_guard<std::mutex> lock(write_mutex_);
    open_.store(false);
  }
  if (!closing_.load()) on_closed_(where_ + ": " + why);
}

void RespSocket::close() {
  closing_.store(true);
  {
    std::lock_guard<std::mutex> lock(write_mutex_);
    if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
  }
  if (reader_.joinable()) reader_.join();
  std::lock_guard<std::mutex> lock(write_mutex_);
  open_.store(false);
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

}  // namespace locksim
