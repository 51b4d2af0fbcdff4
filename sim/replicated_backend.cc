#include "sim/replicated_backend.h"

#include <cassert>

namespace locksim {

ReplicatedBackend::ReplicatedBackend(Backend& primaries, std::unique_ptr<Backend> replicas,
                                     std::vector<int64_t> lag_ms)
    : primaries_(primaries), replicas_(std::move(replicas)) {
  assert(replicas_ && replicas_->server_count() == primaries_.server_count());
  assert(static_cast<int>(lag_ms.size()) == primaries_.server_count());
  for (int64_t lag : lag_ms) {
    assert(lag >= 0);
    State s;
    s.lag_us = lag * 1000;
    state_.push_back(std::move(s));
  }
}

Backend& ReplicatedBackend::current(int server) {
  return state_.at(static_cast<size_t>(server)).promoted ? *replicas_ : primaries_;
}

void ReplicatedBackend::catch_up(int server, int64_t server_now_us) {
  State& st = state_.at(static_cast<size_t>(server));
  while (!st.pending.empty() && st.pending.front().server_now_us + st.lag_us <= server_now_us) {
    replicas_->execute(server, st.pending.front().call, st.pending.front().server_now_us);
    st.pending.pop_front();
  }
}

ExecResult ReplicatedBackend::execute(int server, const ScriptCall& call, int64_t server_now_us) {
  State& st = state_.at(static_cast<size_t>(server));
  if (st.replica_live) catch_up(server, server_now_us);
  ExecResult result = current(server).execute(server, call, server_now_us);
  if (st.replica_live) st.pending.push_back(Pending{call, server_now_us});
  return result;
}

std::vector<KeyState> ReplicatedBackend::snapshot(int server, int64_t server_now_us) {
  return current(server).snapshot(server, server_now_us);
}

void ReplicatedBackend::restart(int server) {
  State& st = state_.at(static_cast<size_t>(server));
  current(server).restart(server);
  if (st.replica_live) {
    replicas_->restart(server);
    st.pending.clear();
  }
}

ReplicatedBackend::Failover ReplicatedBackend::failover(int server, int64_t server_now_us) {
  State& st = state_.at(static_cast<size_t>(server));
  Failover f;
  if (!st.replica_live) return f;
  catch_up(server, server_now_us);
  f.promoted = true;
  f.lag_ms = st.lag_us / 1000;
  f.lost_writes = static_cast<int>(st.pending.size());
  st.pending.clear();
  st.promoted = true;
  st.replica_live = false;
  return f;
}

}  // namespace locksim
