// FaultLog: per client, a short record of the faults that hit it recently
// (pauses with their length, clock jumps, partitions, lost or late replies,
// crashes) plus its running pause total and its clock offset (local_ms minus
// true ms, from the latest client event). Checkers use it to blame a fault for
// a violation. Memory: at most kFaultsPerClient entries per client.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/script_call.h"
#include "traces/event.h"
#include "traces/fault_kind.h"

namespace locksim {

struct ClientFault {
  // Client faults: Pause, ClientClockJump, Partition, RequestTimeout (its
  // request answered nothing in time), the lost-message kinds, Crash;
  // server faults: RedisRestart, Failover, ServerClockJump.
  FaultKind kind = FaultKind::Pause;
  uint64_t event_id = 0;
  int64_t true_us = 0;     // when it happened
  int64_t duration_ms = 0; // pause / partition length, clock jump size (signed)
  LostMessage lost;        // lost kinds: what the link dropped
  std::optional<ScriptKind> lost_script;  // lost request or reply: its script, when it is one of ours
  std::string note;        // lost: the event's note (a lost event whose message the reader did not know)
  Persistence persistence = Persistence::None;  // RedisRestart: what the server kept
  int server = -1;         // server faults: the server
  int64_t value = 0;       // failover: scripts not replicated
};

// The fault log's name of a kind, as its sentences say it: "pause",
// "clock_jump", "partition", "lost_reply" (RequestTimeout), "lost" (every
// lost message), "crash", "redis_restart", "failover", "server_clock_jump".
std::string_view fault_log_name(FaultKind kind);

// A fault after which a server's data is not what the history showed before:
// a restart (its data may be lost) or a failover (the replica may lag).
bool resets_server_state(const Event& e);

// "server 2 restarted without persistence at 31.2 s", "server 0 failed over
// to its replica at 12.0 s (replication lag 80 ms, 2 scripts not
// replicated)", "server 1's clock jumped 45 000 ms forward at 20.1 s".
std::string describe_server_fault(const ClientFault& f);
// True seconds with one decimal: "31.2 s".
std::string format_true_s(int64_t true_us);

// "client 2 partitioned for 1 200 ms at event #17", "client 0 lost a message
// (subscribe_ack <channel>) at event #40": one fault of `client`, for causes.
std::string describe_client_fault(int client, const ClientFault& f);

class FaultLog {
 public:
  explicit FaultLog(int64_t clock_epoch_ms = 0) : clock_epoch_ms_(clock_epoch_ms) {}
  static constexpr size_t kFaultsPerClient = 64;

  // Observes every event; records faults and client clock offsets.
  void on_event(const Event& e);

  // Faults of `client` that overlap [from_us, to_us] (a pause or partition
  // overlaps when its interval does), oldest first.
  std::vector<ClientFault> faults_between(int client, int64_t from_us, int64_t to_us) const;
  // Server faults (redis_restart, failover, server clock_jump) in [from_us,
  // to_us]; a restart whose down time overlaps it counts too.
  std::vector<ClientFault> server_faults_between(int64_t from_us, int64_t to_us) const;
  // Total ms this client has been paused so far (pause durations as announced).
  int64_t paused_total_ms(int client) const;
  // Latest known clock offset of `client` (local_ms - true ms); nullopt if unseen.
  std::optional<int64_t> clock_offset_ms(int client) const;
  // The client with the largest |offset|, if any offset is non-zero.
  std::optional<int> most_skewed_client() const;

 private:
  struct PerClient {
    std::vector<ClientFault> recent;
    int64_t paused_total_ms = 0;
    bool has_offset = false;
    int64_t offset_ms = 0;
  };
  void push(PerClient& c, ClientFault f);
  int64_t clock_epoch_ms_ = 0;
  std::map<int, PerClient> clients_;
  std::vector<ClientFault> server_recent_;
};

}  // namespace locksim
