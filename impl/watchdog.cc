#include "impl/watchdog.h"

#include <cassert>
#include <vector>

namespace locksim {

int64_t Watchdog::period_ms() const {
  const int64_t lease = config_.watchdog_lease_ms;
  assert(lease > 0);
  if (config_.mutant == ClientMutant::WatchdogPeriodLease) return lease;
  return lease / 3 > 0 ? lease / 3 : 1;
}

int64_t Watchdog::hold_count(const std::string& lock, const std::string& owner) const {
  auto it = entries_.find(lock);
  if (it == entries_.end()) return 0;
  auto h = it->second.holds.find(owner);
  return h == it->second.holds.end() ? 0 : h->second;
}

void Watchdog::arm(const LockRef& lock, const std::string& owner) {
  auto [it, inserted] = entries_.try_emplace(lock.name);
  Entry& entry = it->second;
  entry.holds[owner] += 1;
  if (inserted) {
    entry.lock = lock;
    entry.generation = next_generation_++;
    schedule(entry);
  }
}

void Watchdog::release_one(const std::string& lock, const std::string& owner) {
  auto it = entries_.find(lock);
  if (it == entries_.end()) return;
  auto h = it->second.holds.find(owner);
  if (h == it->second.holds.end()) return;
  assert(h->second > 0);
  if (--h->second == 0) it->second.holds.erase(h);
  if (it->second.holds.empty()) stop(lock);
}

void Watchdog::drop_owner(const std::string& lock, const std::string& owner) {
  auto it = entries_.find(lock);
  if (it == entries_.end()) return;
  it->second.holds.erase(owner);
  if (it->second.holds.empty()) stop(lock);
}

void Watchdog::stop(const std::string& lock) {
  auto it = entries_.find(lock);
  assert(it != entries_.end());
  env_.cancel_timer(it->second.timer);
  entries_.erase(it);
}

void Watchdog::schedule(Entry& entry) {
  const std::string lock = entry.lock.name;
  const uint64_t generation = entry.generation;
  entry.timer = env_.start_timer(period_ms(), [this, lock, generation] {
    renew(lock, generation, env_.new_op_id(), 0);
  });
}

void Watchdog::emit_notice(const Entry& entry, const std::string& op, const std::string& owner,
                           const std::string& detail) {
  Event e;
  e.kind = EventKind::Info;
  e.op = op;
  e.owner = owner;
  e.lock = entry.lock.name;
  e.detail = detail;
  env_.emit(std::move(e));
}

void Watchdog::renew(const std::string& lock, uint64_t generation, uint64_t op_id, int attempt) {
  auto it = entries_.find(lock);
  if (it == entries_.end() || it->second.generation != generation) return;
  Entry& entry = it->second;
  assert(!entry.holds.empty());
  ScriptCall call;
  call.kind = ScriptKind::RlockRenew;
  call.params.lock = entry.lock.name;
  call.params.owner = entry.holds.begin()->first;
  call.params.lease_ms = config_.watchdog_lease_ms;
  ScriptTag tag{"renew", op_id, ""};
  env_.send_script(entry.lock.server, call, tag, config_.request_timeout_ms,
                   [this, lock, generation, op_id, attempt](const ScriptOutcome& out) {
    auto it = entries_.find(lock);
    if (it == entries_.end() || it->second.generation != generation) return;  // cancelled
    Entry& entry = it->second;
    if (out.timed_out) {
      if (attempt < config_.retry_attempts) {
        renew(lock, generation, op_id, attempt + 1);
        return;
      }
      emit_notice(entry, "watchdog_stop", entry.holds.begin()->first, "renew timeout");
      stop(lock);
      return;
    }
    if (out.reply.is_int() && out.reply.integer == 1) {
      schedule(entry);
      return;
    }
    if (out.reply.is_int() && out.reply.integer == 0) {
      std::vector<std::string> owners;
      for (const auto& [owner, count] : entry.holds) owners.push_back(owner);
      for (const auto& owner : owners) emit_notice(entry, "hold_lost", owner, "renew answered 0");
      stop(lock);
      return;
    }
    emit_notice(entry, "watchdog_stop", entry.holds.begin()->first,
                "renew error: " + out.reply.to_string());
    stop(lock);
  });
}

}  // namespace locksim
