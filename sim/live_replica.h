// LiveReplica: a real redis-server following a live primary as its one
// asynchronous replica (REPLICAOF through a ReplicationRelay), trailing it by
// a replication lag in server time exactly as sim/replicated_backend.h's
// replica does on the model, and promoted by REPLICAOF NO ONE.
//
// Contract:
//  - The constructor sets the primary up for it (repl-diskless-sync no, no
//    replication timeouts: the servers' clocks are virtual and jump), points
//    the replica at the relay, and returns once the full sync is done: the
//    replica then holds the primary's data as it is (call it before the
//    primary takes writes the lag should hold back).
//  - record(t, offset): a script ran on the primary at server time t and
//    left its replication offset at `offset`. catch_up(now) lets through, in
//    order, every recorded script with t + lag <= now; nothing else ever
//    reaches the replica. (The model's replica runs the same scripts at the
//    same server times; Redis sends their effects, expiries as absolute
//    PEXPIREAT, and replicas never expire keys themselves, so the two hold
//    the same data.)
//  - promote(now): catch_up(now), waits (on a condition, bounded) until the
//    replica has applied everything let through, REPLICAOF NO ONE, and
//    returns how many recorded scripts never reached it. The relay goes;
//    server() is a primary from then on.
//  - A server can serve one LiveReplica after another (release_server()):
//    the next one's full sync replaces whatever it held.
//  - Failures (a server that does not answer, a sync that does not finish
//    within 10 s) throw RedisError naming the replica.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "impl/redis_conn.h"
#include "impl/server_control.h"
#include "sim/replication_relay.h"

namespace locksim {

class LiveReplica {
 public:
  LiveReplica(ServerControl& primary, std::unique_ptr<ServerControl> server, int64_t lag_ms);

  void record(int64_t server_now_us, int64_t primary_offset);
  void catch_up(int64_t server_now_us);
  int promote(int64_t server_now_us);

  // Stops following (REPLICAOF NO ONE unless promoted) and hands the server
  // back, data and all, for another LiveReplica (whose full sync replaces
  // the data). The LiveReplica is empty afterwards.
  std::unique_ptr<ServerControl> release_server();

  bool promoted() const { return promoted_; }
  int64_t lag_ms() const { return lag_us_ / 1000; }
  ServerControl& server() { return *server_; }

 private:
  // Waits until the replica's INFO replication satisfies `ready`.
  template <typename Ready>
  void wait_for(const std::string& what, Ready ready);
  std::string where() const;

  struct Recorded {
    int64_t server_now_us = 0;
    int64_t offset = 0;  // the primary's replication offset after the script
  };
  std::unique_ptr<ServerControl> server_;
  std::unique_ptr<ReplicationRelay> relay_;
  std::optional<RedisConn> conn_;  // to the replica
  int64_t lag_us_ = 0;
  int64_t let_through_ = -1;       // offset the relay may pass up to
  std::deque<Recorded> pending_;   // recorded, not let through yet
  bool promoted_ = false;
};

// The integer after "<field>:" in an INFO reply, or nullopt.
std::optional<int64_t> info_field(const std::string& info, const std::string& field);

}  // namespace locksim
