// ReplicationRelay: a TCP relay on a loopback port between a real Redis
// replica (REPLICAOF 127.0.0.1 <port()>) and its primary, which holds the
// replication stream back so the replica trails the primary by exactly the
// writes the harness lets through.
//
// Contract:
//  - One background thread. It accepts the replica's connection (again after
//    it drops), connects to the primary for it, and passes everything the
//    replica sends (handshake, REPLCONF ACK) straight on.
//  - From the primary it passes the handshake replies and the whole full
//    sync (+FULLRESYNC <id> <offset>, then the RDB payload "$<len>\r\n<len
//    bytes>", disk-based; the primary must have repl-diskless-sync no) at
//    once. sync_offset() is then <offset>: the replica holds exactly the
//    primary's data at that replication offset.
//  - The replication stream after the payload is passed only up to
//    set_limit()'s offset (in the primary's master_repl_offset terms: the
//    stream byte after offset o has offset o + 1); the rest waits in the
//    relay. The harness only ever sets limits that are offsets the primary
//    reported between two commands, so the replica applies whole commands.
//  - A partial resync (+CONTINUE) or a diskless payload ($EOF:) is not
//    supported: error() names it and the relay passes nothing more.
//  - The destructor stops the thread and closes every socket; the replica
//    then sees its link drop.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace locksim {

class ReplicationRelay {
 public:
  // Listens on 127.0.0.1 at a free port; throws RedisError when it cannot.
  ReplicationRelay(std::string primary_host, int primary_port);
  ~ReplicationRelay();
  ReplicationRelay(const ReplicationRelay&) = delete;
  ReplicationRelay& operator=(const ReplicationRelay&) = delete;

  int port() const { return port_; }
  // Lets the stream through up to `offset` (never lowered).
  void set_limit(int64_t offset);
  int64_t limit() const { return limit_.load(); }
  // The offset of the last full sync the replica received, or -1 before one.
  int64_t sync_offset() const { return sync_offset_.load(); }
  // The offset of the last stream byte passed to the replica (-1 before a sync).
  int64_t passed_offset() const { return passed_offset_.load(); }
  std::string error() const;

 private:
  void run();
  // Serves one replica connection until either side closes or stop.
  void serve(int replica_fd);
  void fail(const std::string& what);
  void wake();

  std::string primary_host_;
  int primary_port_ = 0;
  int listen_fd_ = -1;
  int port_ = 0;
  int wake_pipe_[2] = {-1, -1};  // set_limit() and the destructor wake the thread
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> limit_{-1};
  std::atomic<int64_t> sync_offset_{-1};
  std::atomic<int64_t> passed_offset_{-1};
  mutable std::mutex error_mutex_;
  std::string error_;
  std::thread thread_;
};

}  // namespace locksim
