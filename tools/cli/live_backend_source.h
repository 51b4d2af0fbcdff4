// LiveBackendSource: the BackendSource (sim/backend_source.h) of one live
// campaign worker: redis-servers it starts itself (tools/server/
// redis_server.h, virtual clock) running one script pack's Lua.
//
// Contract:
//  - The pack is loaded by the caller; start() starts scenario.servers
//    servers and loads the pack's scripts into them (ScriptPackError naming
//    the .lua file Redis rejects; RedisError when a server will not start).
//  - Servers are reused across runs: fresh() FLUSHALLs them (the script
//    cache stays) instead of starting new ones, so a campaign pays one server
//    start per worker, not per seed. A server that does not take the flush
//    (it died, or is still busy in a script that never returned) is
//    restarted, and the scripts loaded again; restarts() counts them.
//  - Only the servers this source started are ever flushed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "impl/script_pack.h"
#include "sim/backend_source.h"
#include "sim/live_backend.h"
#include "tools/server/redis_server.h"

namespace locksim::cli {

class LiveBackendSource final : public BackendSource {
 public:
  explicit LiveBackendSource(ScriptPack pack) : pack_(std::move(pack)) {}
  std::string kind() const override { return "live"; }
  Backend& fresh(const Scenario& scenario) override;

  // Starts `servers` servers (stopping any others) and loads the scripts.
  void start(int servers);
  int restarts() const { return restarts_; }
  // The servers it started (for tests: where to reach them behind its back).
  int server_count() const { return static_cast<int>(servers_.size()); }
  ServerControl& server(int i) { return *servers_.at(static_cast<size_t>(i)); }

 private:
  void connect();
  ScriptPack pack_;
  std::vector<std::unique_ptr<RedisServer>> servers_;
  std::unique_ptr<LiveBackend> backend_;
  int restarts_ = 0;
};

}  // namespace locksim::cli
