// LiveBackend: the Backend of sim/backend.h over real redis-servers driven in
// virtual time (impl/server_control.h), running the Lua scripts of a
// ScriptPack (impl/script_pack.h).
//
// Per server it keeps a command connection and a subscriber connection
// (PSUBSCRIBE *). execute() sets the server clock and sends one pipeline:
// PUBLISH begin-marker, EVALSHA, HKEYS lock (same frozen clock), PUBLISH
// end-marker, on a marker channel private to this connection. The messages
// the subscriber reads between the two markers are exactly the messages the
// script published, in order; anything published before by other clients
// (e.g. another backend on the same server) is discarded. Scripts are
// loaded with SCRIPT LOAD at start, after restart, and on NOSCRIPT; a script
// Redis rejects throws ScriptPackError naming the .lua file. A pack script
// that is one plain command is sent as that command (same pipeline); an
// absent one sends nothing and answers ScriptPack::absent_reply. The reply
// goes through the script's reply adapters and every published message
// through ScriptPack::canonical_published (manifest conventions).
//
// snapshot() runs one read-only Lua script listing every key whose name
// contains `key_prefix` (empty: all keys) with its type, value and PTTL, and
// renders the values exactly like model/store.h (zset scores through
// format_score). It never touches a server it was not given; wipe() flushes
// whole servers and is only for servers the caller started itself.
// Transport failures throw RedisError.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "impl/redis_conn.h"
#include "impl/script_pack.h"
#include "impl/server_control.h"
#include "sim/backend.h"

namespace locksim {

class LiveBackend final : public Backend {
 public:
  LiveBackend(std::vector<ServerControl*> servers, ScriptPack pack, std::string key_prefix);

  std::string name() const override { return "live"; }
  int server_count() const override { return static_cast<int>(servers_.size()); }
  ExecResult execute(int server, const ScriptCall& call, int64_t server_now_us) override;
  std::vector<KeyState> snapshot(int server, int64_t server_now_us) override;
  void restart(int server) override;

  // FLUSHALL on every server. Only for servers the caller started.
  void wipe();
  const ScriptPack& pack() const { return pack_; }

 private:
  struct Server {
    ServerControl* control = nullptr;
    std::optional<RedisConn> cmd;
    std::optional<RedisConn> sub;
    std::array<std::string, kScriptKindCount> sha;
    std::string snapshot_sha;
    std::string marker_channel;  // "__locksim_live_marker__:<subscriber CLIENT ID>"
    uint64_t marker_seq = 0;
  };
  Server& at(int server);
  void connect(Server& s);
  void load_scripts(Server& s);
  std::vector<Published> drain_published(Server& s, const std::string& begin, const std::string& end);

  std::vector<Server> servers_;
  ScriptPack pack_;
  std::string key_prefix_;
};

}  // namespace locksim
