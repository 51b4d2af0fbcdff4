#include "sim/live_replica.h"

#include <cassert>
#include <chrono>
#include <thread>

namespace locksim {

namespace {

constexpr int64_t kSyncTimeoutMs = 10'000;
// Replication timeouts and pings run on the servers' (virtual, jumping)
// clocks: far beyond any run, so the link never drops by itself.
constexpr const char* kNoTimeoutS = "1000000000";

void config_set(RedisConn& conn, const std::string& name, const std::string& value) {
  const Reply r = conn.command({"CONFIG", "SET", name, value});
  if (r.is_error()) throw RedisError(conn.where() + ": CONFIG SET " + name + " " + value + ": " + r.text);
}

RedisConn connect_to(const ServerControl& server) {
  RedisConnOptions options;
  options.host = server.host();
  options.port = server.port();
  return RedisConn::connect(options);
}

}  // namespace

std::optional<int64_t> info_field(const std::string& info, const std::string& field) {
  const std::string key = field + ":";
  size_t at = 0;
  while ((at = info.find(key, at)) != std::string::npos) {
    if (at == 0 || info[at - 1] == '\n') {
      try {
        return std::stoll(info.substr(at + key.size()));
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
    at += key.size();
  }
  return std::nullopt;
}

LiveReplica::LiveReplica(ServerControl& primary, std::unique_ptr<ServerControl> server, int64_t lag_ms)
    : server_(std::move(server)), lag_us_(lag_ms * 1000) {
  assert(server_ != nullptr && lag_ms >= 0);
  RedisConn to_primary = connect_to(primary);
  config_set(to_primary, "repl-diskless-sync", "no");  // the relay reads a "$<len>" payload
  config_set(to_primary, "repl-timeout", kNoTimeoutS);
  config_set(to_primary, "repl-ping-replica-period", kNoTimeoutS);
  relay_ = std::make_unique<ReplicationRelay>(primary.host(), primary.port());
  conn_.emplace(connect_to(*server_));
  config_set(*conn_, "repl-timeout", kNoTimeoutS);
  const Reply r = conn_->command({"REPLICAOF", "127.0.0.1", std::to_string(relay_->port())});
  if (r.is_error()) throw RedisError(where() + ": REPLICAOF: " + r.text);
  wait_for("the full sync from the primary", [&](const std::string& info) {
    return relay_->sync_offset() >= 0 && info.find("master_link_status:up") != std::string::npos;
  });
}

std::string LiveReplica::where() const { return "replica " + server_->host() + ":" + std::to_string(server_->port()); }

template <typename Ready>
void LiveReplica::wait_for(const std::string& what, Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kSyncTimeoutMs);  // real-time-ok: waits on a live redis replica, an outside process
  while (true) {
    const Reply info = conn_->command({"INFO", "replication"});
    if (info.is_error()) throw RedisError(where() + ": INFO replication: " + info.text);
    if (ready(info.text)) return;
    if (std::chrono::steady_clock::now() > deadline) {  // real-time-ok: replica sync bound
      const std::string relay_error = relay_ ? relay_->error() : "";
      throw RedisError(where() + ": " + what + " did not happen within " + std::to_string(kSyncTimeoutMs) +
                       " ms" + (relay_error.empty() ? "" : " (" + relay_error + ")"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void LiveReplica::record(int64_t server_now_us, int64_t primary_offset) {
  assert(!promoted_);
  assert(pending_.empty() || primary_offset >= pending_.back().offset);
  pending_.push_back(Recorded{server_now_us, primary_offset});
}

void LiveReplica::catch_up(int64_t server_now_us) {
  assert(!promoted_);
  bool moved = false;
  while (!pending_.empty() && pending_.front().server_now_us + lag_us_ <= server_now_us) {
    let_through_ = pending_.front().offset;
    pending_.pop_front();
    moved = true;
  }
  if (moved) relay_->set_limit(let_through_);
}

std::unique_ptr<ServerControl> LiveReplica::release_server() {
  if (!promoted_ && conn_) {
    const Reply r = conn_->command({"REPLICAOF", "NO", "ONE"});
    if (r.is_error()) throw RedisError(where() + ": REPLICAOF NO ONE: " + r.text);
  }
  relay_.reset();
  conn_.reset();
  pending_.clear();
  return std::move(server_);
}

int LiveReplica::promote(int64_t server_now_us) {
  assert(!promoted_);
  catch_up(server_now_us);
  const int64_t target = let_through_ >= 0 ? let_through_ : relay_->sync_offset();
  wait_for("applying the stream up to offset " + std::to_string(target), [&](const std::string& info) {
    const auto applied = info_field(info, "slave_repl_offset");
    return applied && *applied >= target;
  });
  const Reply r = conn_->command({"REPLICAOF", "NO", "ONE"});
  if (r.is_error()) throw RedisError(where() + ": REPLICAOF NO ONE: " + r.text);
  relay_.reset();
  conn_.reset();
  const int lost = static_cast<int>(pending_.size());
  pending_.clear();
  promoted_ = true;
  return lost;
}

}  // namespace locksim
