#include "properties/group_hash_expiry.h"

#include <algorithm>

namespace locksim {

GroupHashExpiry::Group& GroupHashExpiry::group_of(const Event& e) {
  Group& g = groups_[{e.server, std::string(e.lock.group())}];
  if (g.expire_at_ms != INT64_MAX && e.server_ms > g.expire_at_ms) g.reset();  // the hash expired meanwhile
  return g;
}

int64_t GroupHashExpiry::before(const Event& e) {
  Group& g = group_of(e);
  const auto seen = g.seen.find(e.lock.name());
  if (seen != g.seen.end() && seen->second != g.generation) return INT64_MIN;
  return g.expire_at_ms;
}

int64_t GroupHashExpiry::after(const Event& e, bool refreshed, bool renewal) {
  Group& g = group_of(e);
  if (refreshed && e.lease_ms >= 0) {
    const int64_t until_ms = e.server_ms + e.lease_ms;
    g.expire_at_ms = renewal || g.expire_at_ms == INT64_MAX ? until_ms : std::max(g.expire_at_ms, until_ms);
  }
  g.held[e.lock.name()] = !e.holders_after.empty();
  const bool any_held = std::any_of(g.held.begin(), g.held.end(), [](const auto& kv) { return kv.second; });
  if (!any_held) g.reset();  // every value free: the hash is gone
  g.seen[e.lock.name()] = g.generation;
  return g.expire_at_ms;
}

void GroupHashExpiry::forget_server(int server) {
  std::erase_if(groups_, [server](const auto& kv) { return kv.first.first == server; });
}

}  // namespace locksim
