// LiveBackend: the Backend of sim/backend.h over real redis-servers driven in
// virtual time (impl/server_control.h), running the Lua scripts of a
// ScriptPack (impl/script_pack.h).
//
// execute() sets the server clock (a shared memory word) and sends one
// pipeline per script. The expiry sweep runs first only when the server time
// goes back (sweep_before_going_back). The server's own active expiry is off
// (DEBUG SET-ACTIVE-EXPIRE 0): keys expire at the server times the simulator
// chooses, so a server clock moved back or forward (set_clock_us) acts on
// live exactly as on the model. Two pipelines, chosen at connect():
//  - Every script Lua or absent (the usual case) and Redis >= 6: one RESP3
//    connection per server, PSUBSCRIBEd to * and still running commands.
//    Per script PING, EVALSHA, the holder read (HKEYS lock; GET lock or
//    EVALSHA_RO of the pack's read script, as its design says; LRANGE line, ZRANGE deadlines
//    WITHSCORES for fair calls), all at the same frozen clock: one write and
//    one read. Redis runs a client's pipelined commands in order and puts a
//    message into each subscriber's output when it is published, so the
//    push messages before PONG were published earlier by someone else (e.g.
//    another backend on the same server) and are dropped, and those between
//    PONG and the last reply are exactly the script's, in order. The
//    connection is in Redis's pubsub client class: connect() lifts that
//    class's output limit, which a large snapshot reply could exceed.
//  - A pack with a plain command (whose RESP3 reply could differ in shape
//    from RESP2's), or a server without HELLO 3: a RESP2 command connection
//    and a subscriber connection (PSUBSCRIBE *). Per script PUBLISH
//    begin-marker, the command, HKEYS (LRANGE, ZRANGE), PUBLISH end-marker
//    on a marker channel private to this connection; the messages the
//    subscriber reads between the two markers are the script's.
// Either way the replies are those of RESP2 (impl/redis_conn.h). Scripts are
// loaded with SCRIPT LOAD at start, after restart, and on NOSCRIPT (then the
// pipeline runs once more); a script Redis rejects throws ScriptPackError
// naming the .lua file. A pack script that is one plain command is sent as
// that command; an absent one sends nothing and answers
// ScriptPack::absent_reply. The reply goes through the script's reply
// adapters and every published message through
// ScriptPack::canonical_published (manifest conventions). connect() also
// turns off jemalloc's background thread, which spins on a server whose
// wall clock is virtual.
//
// snapshot() runs one read-only Lua script listing every key whose name
// contains `key_prefix` (empty: all keys) with its type, value and PTTL, and
// renders the values exactly like redis/store.h (zset scores through
// format_score). It never touches a server it was not given; wipe() flushes
// whole servers and is only for servers the caller started itself.
// Transport failures throw RedisError; a pack that hands back more than
// sim/script_output_bound.h allows (per execution, per run since wipe())
// throws ScriptOutputTooLarge, a RedisError.
#pragma once

#include <array>
#include <limits>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "impl/redis_conn.h"
#include "impl/script_pack.h"
#include "impl/server_control.h"
#include "sim/backend.h"
#include "sim/live_replica.h"
#include "sim/script_output_bound.h"

namespace locksim {

class LiveBackend final : public Backend {
 public:
  LiveBackend(std::vector<ServerControl*> servers, ScriptPack pack, std::string key_prefix);

  std::string name() const override { return "live"; }
  int server_count() const override { return static_cast<int>(servers_.size()); }
  ExecResult execute(int server, const ScriptCall& call, int64_t server_now_us) override;
  std::vector<KeyState> snapshot(int server, int64_t server_now_us) override;
  void restart(int server) override;
  // Persistence::Always switches every server to append-only persistence
  // (appendfsync always) so restart_keeping_data() restarts the real
  // redis-server with its data; None switches it off. Replica lags give
  // every server a real replica (sim/live_replica.h; needs
  // set_replica_factory(); not with persistence always: std::invalid_argument).
  // Called again, it first drops the replicas of the previous run and points
  // every index at the caller's server again.
  void configure_server_faults(const ServerFaultConfig& faults) override;
  void restart_keeping_data(int server) override;
  // Promotes server `server`'s replica once it has every write the lag let
  // through by `server_now_us` (exactly what sim/replicated_backend.h's
  // replica holds then); from then on the index means the promoted replica.
  FailoverResult failover(int server, int64_t server_now_us) override;
  // Starts the redis-servers replicas run on (owned by this backend).
  using ServerFactory = std::function<std::unique_ptr<ServerControl>()>;
  void set_replica_factory(ServerFactory factory) { replica_factory_ = std::move(factory); }

  // Drops the replicas, then FLUSHALL on every server the caller gave. Only
  // for servers the caller started.
  void wipe();
  const ScriptPack& pack() const { return pack_; }

 private:
  struct Server {
    ServerControl* control = nullptr;  // the caller's server, or its promoted replica
    ServerControl* given = nullptr;    // the caller's server
    std::optional<RedisConn> cmd;
    std::optional<RedisConn> sub;  // only with marker pipelines
    bool one_connection = false;   // RESP3 pipeline on cmd (else markers, sub)
    std::array<std::string, kScriptKindCount> sha;
    std::string snapshot_sha;
    std::string holder_sha;  // the design's holder read script, if any
    std::string marker_channel;  // "__locksim_live_marker__:<subscriber CLIENT ID>"
    uint64_t marker_seq = 0;
    // The latest server time a script ran at (sweep_before_going_back).
    int64_t high_water_us = std::numeric_limits<int64_t>::min();
  };
  Server& at(int server);
  std::string key_pattern() const;  // KEYS/SCAN pattern of key_prefix_
  // Before a script at a server time earlier than the high-water mark: one
  // SCAN pass at the mark deletes every key expired by then, as the model's
  // sweep before each script did; the mark then starts again at the new time.
  // Otherwise raises the mark.
  void sweep_before_going_back(Server& s, int64_t server_now_us);
  void connect(Server& s);
  void load_scripts(Server& s);
  std::vector<Published> drain_published(Server& s, const std::string& begin, const std::string& end);
  // One attempt of the script's pipeline (see the top of this file), argv
  // being its own command (empty: absent). False (only when may_retry): the
  // server answered NOSCRIPT; load the scripts and run it again.
  // holder_read: the command that reads the holders (HKEYS, GET or the
  // design's read script, EVALSHA_RO).
  bool run_one_connection(Server& s, const ScriptCall& call, std::span<const std::string_view> argv,
                          std::span<const std::string_view> holder_read, bool fair, bool may_retry, ExecResult* out);
  bool run_with_markers(Server& s, const ScriptCall& call, std::span<const std::string_view> argv,
                        std::span<const std::string_view> holder_read, bool fair, bool may_retry, ExecResult* out);
  // The script or the holder read script answered NOSCRIPT.
  bool lost_any_script(const ScriptCall& call, std::span<const std::string_view> argv, const Reply& holders,
                       const ExecResult& out) const;
  // Throws RedisError naming the key when the holder read failed
  // (ScriptPack::read_holders): never read as "no holders".
  void finish(const std::string& where, const ScriptCall& call, const Reply& holders, const Reply* line,
              const Reply* scores, ExecResult* out) const;

  void drop_replicas();
  void retire_replica(int server);  // its server to the spares
  void start_replica(int server);  // a new replica following server `server` now
  LiveReplica* following(int server);  // the replica following `server`, if any
  // The primary's replication offset after the last command.
  int64_t primary_offset(Server& s);

  std::vector<Server> servers_;
  ServerFactory replica_factory_;
  std::vector<std::unique_ptr<LiveReplica>> replicas_;  // per server; null: none (any more)
  std::vector<int64_t> replica_lag_ms_;                 // per server, of this run
  // Replica servers of earlier runs, kept for the next (a server start per
  // replica per run would dominate a live campaign's shrinking).
  std::vector<std::unique_ptr<ServerControl>> spare_replica_servers_;
  ScriptPack pack_;
  std::string key_prefix_;
  // Every script Lua or absent: one RESP3 connection per server (where the
  // server speaks RESP3); a plain command in the pack: the RESP2 command and
  // subscriber connections.
  bool one_connection_ = true;
  // What the pack's scripts handed back in this run (since wipe()).
  ScriptOutputBudget output_budget_;
};

}  // namespace locksim
