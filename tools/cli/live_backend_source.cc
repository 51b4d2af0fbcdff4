#include "tools/cli/live_backend_source.h"

#include "impl/redis_conn.h"

namespace locksim::cli {

void LiveBackendSource::connect() {
  std::vector<ServerControl*> controls;
  for (const auto& server : servers_) controls.push_back(server.get());
  backend_ = std::make_unique<LiveBackend>(std::move(controls), pack_, kKeyPrefix);
  backend_->set_replica_factory([] { return std::make_unique<RedisServer>(); });  // --profile failover
}

void LiveBackendSource::start(int servers) {
  backend_.reset();
  servers_.clear();
  for (int i = 0; i < servers; ++i) servers_.push_back(std::make_unique<RedisServer>());
  connect();
}

Backend& LiveBackendSource::fresh(const Scenario& scenario) {
  if (backend_ == nullptr || static_cast<int>(servers_.size()) != scenario.servers) {
    start(scenario.servers);
    return *backend_;
  }
  try {
    backend_->wipe();
  } catch (const RedisError&) {
    // Unhealthy (dead, or busy in a script that never returned): start
    // every server again, empty, and reload the scripts.
    backend_.reset();
    for (auto& server : servers_) server->restart();
    ++restarts_;
    connect();
  }
  return *backend_;
}

}  // namespace locksim::cli
