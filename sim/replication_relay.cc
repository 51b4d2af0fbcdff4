#include "sim/replication_relay.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>

#include "impl/redis_conn.h"

namespace locksim {

namespace {

// Writes all of `data`; false when the peer is gone.
bool send_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

int connect_loopback(const std::string& host, int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) return -1;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

ReplicationRelay::ReplicationRelay(std::string primary_host, int primary_port)
    : primary_host_(std::move(primary_host)), primary_port_(primary_port) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw RedisError(std::string("replication relay: socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 4) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
      ::pipe2(wake_pipe_, O_CLOEXEC) != 0) {
    const std::string why = std::strerror(errno);
    ::close(listen_fd_);
    throw RedisError("replication relay: listen on a loopback port: " + why);
  }
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { run(); });
}

ReplicationRelay::~ReplicationRelay() {
  stop_.store(true);
  wake();
  thread_.join();
  ::close(listen_fd_);
  ::close(wake_pipe_[0]);
  ::close(wake_pipe_[1]);
}

void ReplicationRelay::wake() {
  const char byte = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_pipe_[1], &byte, 1);
}

void ReplicationRelay::set_limit(int64_t offset) {
  int64_t now = limit_.load();
  while (offset > now && !limit_.compare_exchange_weak(now, offset)) {
  }
  wake();
}

std::string ReplicationRelay::error() const {
  std::lock_guard<std::mutex> lock(error_mutex_);
  return error_;
}

void ReplicationRelay::fail(const std::string& what) {
  std::lock_guard<std::mutex> lock(error_mutex_);
  if (error_.empty()) error_ = "replication relay on port " + std::to_string(port_) + ": " + what;
}

void ReplicationRelay::run() {
  while (!stop_.load()) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0 && errno != EINTR) {
      fail(std::string("poll: ") + std::strerror(errno));
      return;
    }
    if (fds[1].revents & POLLIN) {
      char drain[64];
      [[maybe_unused]] const ssize_t n = ::read(wake_pipe_[0], drain, sizeof drain);
    }
    if (fds[0].revents & POLLIN) {
      const int replica_fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (replica_fd >= 0) serve(replica_fd);
    }
  }
}

void ReplicationRelay::serve(int replica_fd) {
  const int primary_fd = connect_loopback(primary_host_, primary_port_);
  if (primary_fd < 0) {
    ::close(replica_fd);  // the replica retries by itself
    return;
  }
  enum class Phase { Handshake, PayloadHeader, Payload, Stream, Stopped };
  Phase phase = Phase::Handshake;
  std::string held;  // from the primary, not yet passed on
  int64_t payload_left = 0;
  int64_t stream_offset = -1;  // offset of the last stream byte passed
  bool open = true;
  const auto pass = [&](size_t n) {
    assert(n <= held.size());
    if (!send_all(replica_fd, held.data(), n)) open = false;
    held.erase(0, n);
  };
  // Passes on what may pass now; false when nothing more can move.
  const auto pump_once = [&]() -> bool {
    switch (phase) {
      case Phase::Handshake: {
        const size_t nl = held.find('\n');
        if (nl == std::string::npos) return false;
        const std::string line = held.substr(0, nl + 1);
        pass(nl + 1);
        if (starts_with(line, "+FULLRESYNC")) {
          const size_t space = line.find_last_of(' ');
          stream_offset = std::stoll(line.substr(space + 1));
          phase = Phase::PayloadHeader;
        } else if (starts_with(line, "+CONTINUE")) {
          fail("the replica asked for a partial resync (+CONTINUE), which the relay cannot hold back");
          phase = Phase::Stopped;
        }
        return true;
      }
      case Phase::PayloadHeader: {
        if (held.empty()) return false;
        if (held[0] == '\n') {  // the primary's keep-alive while it saves the RDB
          pass(1);
          return true;
        }
        const size_t nl = held.find('\n');
        if (nl == std::string::npos) return false;
        const std::string line = held.substr(0, nl + 1);
        pass(nl + 1);
        if (!starts_with(line, "$") || starts_with(line, "$EOF:")) {
          fail("expected a disk-based RDB payload ($<len>), got '" + line.substr(0, 60) +
               "' (the primary needs repl-diskless-sync no)");
          phase = Phase::Stopped;
          return true;
        }
        payload_left = std::stoll(line.substr(1));
        phase = Phase::Payload;
        return true;
      }
      case Phase::Payload: {
        const size_t n = static_cast<size_t>(std::min<int64_t>(payload_left, static_cast<int64_t>(held.size())));
        pass(n);
        payload_left -= static_cast<int64_t>(n);
        if (payload_left > 0) return false;
        phase = Phase::Stream;
        passed_offset_.store(stream_offset);
        sync_offset_.store(stream_offset);
        return true;
      }
      case Phase::Stream: {
        const int64_t allowed = limit_.load() - stream_offset;
        if (allowed <= 0 || held.empty()) return false;
        const size_t n = static_cast<size_t>(std::min<int64_t>(allowed, static_cast<int64_t>(held.size())));
        pass(n);
        stream_offset += static_cast<int64_t>(n);
        passed_offset_.store(stream_offset);
        return true;
      }
      case Phase::Stopped:
        held.clear();
        return false;
    }
    return false;
  };
  char buf[65536];
  while (open && !stop_.load()) {
    while (open && pump_once()) {
    }
    if (!open) break;
    pollfd fds[3] = {{replica_fd, POLLIN, 0}, {primary_fd, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
    if (::poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      fail(std::string("poll: ") + std::strerror(errno));
      break;
    }
    if (fds[2].revents & POLLIN) {
      char drain[64];
      [[maybe_unused]] const ssize_t n = ::read(wake_pipe_[0], drain, sizeof drain);
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = ::read(replica_fd, buf, sizeof buf);
      if (n <= 0 || !send_all(primary_fd, buf, static_cast<size_t>(n))) break;
    }
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = ::read(primary_fd, buf, sizeof buf);
      if (n <= 0) break;
      held.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(primary_fd);
  ::close(replica_fd);
  sync_offset_.store(-1);
  passed_offset_.store(-1);
}

}  // namespace locksim
