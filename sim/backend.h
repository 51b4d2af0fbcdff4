// Backend: where lock scripts execute. One interface, three implementations:
// ModelBackend (model/, embedded, default), LuaBackend (a script pack's own
// Lua in process, sim/lua_backend.h) and LiveBackend (script pack on a live
// redis-server whose clock we set before every command). The simulator
// and `locksim diff` drive both the same way: one script at a time, in
// virtual-time order, each at an explicit server time.
//
// Contract:
//  - execute() runs one script atomically at server time `server_now_us`
//    (Redis sees now_ms = server_now_us / 1000) and returns the reply, the
//    messages published by that script in order, and the owner fields of the
//    lock hash right after it (server truth for the exclusive-ownership check).
//  - execute_into() is execute() into a caller-owned result whose buffers a
//    backend may reuse (the simulator's hot path); the result is the same,
//    except that line_after is meaningful only when line_known is true.
//  - snapshot() lists every key under the backend's key prefix, sorted by name.
//  - Several servers: `server` is an index in [0, server_count()).
//  - restart() models a server restart without persistence: all data lost.
//  - Server faults beyond that (sim/server_faults.h) are optional:
//    configure_server_faults() is called once, before any script, with the
//    run's settings, and throws std::invalid_argument for what the backend
//    cannot do; restart_keeping_data() is a restart with persistence always
//    (the model keeps its store as it is: nothing to do); failover()
//    promotes server `server`'s replica when the backend runs replicas itself
//    (the model's replicas are sim/replicated_backend.h, around the backend).
//  - new_replicas(): an in-process backend (model, lua) returns a new, empty
//    one running the same scripts, which sim/replicated_backend.h keeps as
//    the replicas; null (the default): the backend runs replicas itself
//    (configure_server_faults) or refuses them.
//  - digest() adds the fingerprint of server `server`'s data to *out, every
//    time relative to `server_now_us` (redis/store.h's Store::digest), and
//    returns true; false (the default) when the backend cannot (live): the
//    explorer (search/explore.h) needs it, nothing else does.
//  - script_coverage() tells what the scripts themselves exercised since
//    the backend was made or wiped (its run): the model's branches
//    (model/script_branches.h, "rlock_acquire:free"), the lua backend's
//    lines of the pack's Lua ("rlock_acquire.lua:7"), limited to the
//    scripts `kinds` (the purge's branches go with any fair script). It
//    adds the names exercised to *covered and every name that could be to
//    *universe, each sorted. Live (the default) adds nothing: its scripts
//    run out of sight (what their replies reveal is read from the history).
//    Executions on a promoted replica (failover) are not counted.
//  - Deterministic: same calls, same results, byte for byte.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "redis/exec_result.h"  // Published, ExecResult, KeyState
#include "redis/reply.h"
#include "model/script_call.h"
#include "redis/state_digest.h"
#include "sim/server_faults.h"

namespace locksim {

// Server time in µs -> Redis ms (floor division, also for negative times).
inline int64_t server_ms_of_us(int64_t server_now_us) {
  int64_t q = server_now_us / 1000;
  if (server_now_us % 1000 < 0) --q;
  return q;
}

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;  // "model", "lua" or "live"
  virtual int server_count() const = 0;
  virtual ExecResult execute(int server, const ScriptCall& call, int64_t server_now_us) = 0;
  virtual void execute_into(int server, const ScriptCall& call, int64_t server_now_us, ExecResult* out) {
    *out = execute(server, call, server_now_us);
  }
  virtual std::vector<KeyState> snapshot(int server, int64_t server_now_us) = 0;
  virtual void restart(int server) = 0;

  virtual void configure_server_faults(const ServerFaultConfig& faults) { (void)faults; }
  virtual void restart_keeping_data(int server) { (void)server; }
  virtual FailoverResult failover(int server, int64_t server_now_us) {
    (void)server;
    (void)server_now_us;
    return FailoverResult{};
  }
  virtual std::unique_ptr<Backend> new_replicas() const { return nullptr; }
  virtual bool digest(int server, int64_t server_now_us, StateDigest* out) {
    (void)server;
    (void)server_now_us;
    (void)out;
    return false;
  }
  virtual void script_coverage(const std::vector<ScriptKind>& kinds, std::vector<std::string>* covered,
                               std::vector<std::string>* universe) const {
    (void)kinds;
    (void)covered;
    (void)universe;
  }
};

}  // namespace locksim
