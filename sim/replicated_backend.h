// ReplicatedBackend: every server of a primary Backend gets one asynchronous
// replica (a server of a second Backend with the same index), as a Redis
// primary with one replica. Replication is by script re-execution: each
// script that runs on the primary runs again on the replica, at the same
// server time, once the primary's clock has passed its execution time plus
// the server's replication lag (scripts are deterministic, so the replica
// reaches the primary's state, lag behind). failover() promotes the replica:
// it applies what has arrived by then, drops the rest (writes lost), and
// from then on the server index means the promoted replica, with no replica
// of its own. A restart without persistence of a primary that has a replica
// empties both (the replica resyncs from the empty primary).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sim/backend.h"

namespace locksim {

class ReplicatedBackend final : public Backend {
 public:
  // replicas->server_count() == primaries.server_count() == lag_ms.size().
  ReplicatedBackend(Backend& primaries, std::unique_ptr<Backend> replicas, std::vector<int64_t> lag_ms);

  std::string name() const override { return primaries_.name(); }
  int server_count() const override { return primaries_.server_count(); }
  ExecResult execute(int server, const ScriptCall& call, int64_t server_now_us) override;
  std::vector<KeyState> snapshot(int server, int64_t server_now_us) override;
  void restart(int server) override;

  using Failover = FailoverResult;
  Failover failover(int server, int64_t server_now_us) override;
  bool has_replica(int server) const { return state_.at(static_cast<size_t>(server)).replica_live; }

 private:
  struct Pending {
    ScriptCall call;
    int64_t server_now_us = 0;
  };
  struct State {
    bool promoted = false;      // the replica is the primary now
    bool replica_live = true;   // a replica follows this server
    int64_t lag_us = 0;
    std::deque<Pending> pending;  // executed on the primary, not yet on the replica
  };
  Backend& current(int server);
  // Applies every pending script due by server_now_us to the replica.
  void catch_up(int server, int64_t server_now_us);

  Backend& primaries_;
  std::unique_ptr<Backend> replicas_;
  std::vector<State> state_;
};

}  // namespace locksim
