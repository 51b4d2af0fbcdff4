#include "impl/watchdog.h"

#include "model/faster_multi_fields.h"

#include <algorithm>
#include <cassert>

namespace locksim {

int64_t Watchdog::period_ms() const {
  const int64_t lease = config_.watchdog_lease_ms;
  assert(lease > 0);
  if (config_.mutant == ClientMutant::WatchdogPeriodLease) return lease;
  return lease / 3 > 0 ? lease / 3 : 1;
}

bool Watchdog::shared_entries() const { return config_.mutant == ClientMutant::WatchdogFirstThreadEntry; }

Watchdog::Key Watchdog::key_of(const std::string& lock, const std::string& owner) const {
  assert(!owner.empty());
  return Key{lock, shared_entries() ? std::string() : owner};
}

const Watchdog::Entry* Watchdog::find(const std::string& lock, const std::string& owner) const {
  auto it = entries_.find(key_of(lock, owner));
  if (it == entries_.end()) return nullptr;
  const auto& holds = it->second.holds;
  const bool has_owner = std::any_of(holds.begin(), holds.end(), [&](const auto& h) { return h.first == owner; });
  return has_owner ? &it->second : nullptr;
}

bool Watchdog::running(const std::string& lock) const {
  auto it = entries_.lower_bound(Key{lock, std::string()});
  return it != entries_.end() && it->first.first == lock;
}

bool Watchdog::running(const std::string& lock, const std::string& owner) const {
  return find(lock, owner) != nullptr;
}

int64_t Watchdog::hold_count(const std::string& lock, const std::string& owner) const {
  const Entry* entry = find(lock, owner);
  if (entry == nullptr) return 0;
  for (const auto& [who, count] : entry->holds) {
    if (who == owner) return count;
  }
  return 0;
}

std::string Watchdog::renewing_owner(const std::string& lock, const std::string& owner) const {
  const Entry* entry = find(lock, owner);
  return entry == nullptr ? std::string() : entry->holds.front().first;
}

void Watchdog::arm(const LockSpec& lock, const std::string& owner, const std::string& token) {
  const Key key = key_of(lock.name, owner);
  auto [it, inserted] = entries_.try_emplace(key);
  Entry& entry = it->second;
  entry.tokens[owner] = token;
  auto h = std::find_if(entry.holds.begin(), entry.holds.end(), [&](const auto& p) { return p.first == owner; });
  if (h == entry.holds.end()) {
    entry.holds.emplace_back(owner, 1);
  } else {
    h->second += 1;
  }
  if (inserted) {
    entry.lock = lock;
    entry.generation = next_generation_++;
    schedule(key, entry);
  }
}

// One hold of `owner` fewer (all of them with `all_holds`); the entry stops
// when nobody is left in it.
void Watchdog::forget(const Key& key, const std::string& owner, bool all_holds) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  auto& holds = it->second.holds;
  auto h = std::find_if(holds.begin(), holds.end(), [&](const auto& p) { return p.first == owner; });
  if (h == holds.end()) return;
  assert(h->second > 0);
  if (all_holds || --h->second == 0) {
    it->second.tokens.erase(owner);
    holds.erase(h);
  }
  if (holds.empty()) stop(key);
}

void Watchdog::release_one(const std::string& lock, const std::string& owner) {
  forget(key_of(lock, owner), owner, /*all_holds=*/false);
}

void Watchdog::drop_owner(const std::string& lock, const std::string& owner) {
  forget(key_of(lock, owner), owner, /*all_holds=*/true);
}

void Watchdog::cancel(const std::string& lock) {
  std::vector<Key> keys;
  for (auto it = entries_.lower_bound(Key{lock, std::string()}); it != entries_.end() && it->first.first == lock;
       ++it) {
    keys.push_back(it->first);
  }
  for (const Key& key : keys) stop(key);
}

void Watchdog::stop(const Key& key) {
  auto it = entries_.find(key);
  assert(it != entries_.end());
  env_.cancel_timer(it->second.timer);
  entries_.erase(it);
}

void Watchdog::schedule(const Key& key, Entry& entry) {
  const uint64_t generation = entry.generation;
  entry.timer = env_.start_timer(period_ms(), [this, key, generation] {
    renew(key, generation, env_.new_op_id(), 0);
  });
}

void Watchdog::emit_notice(const Entry& entry, Op op, const std::string& owner,
                           const std::string& detail) {
  Event e;
  e.kind = EventKind::Info;
  e.op = op;
  e.owner.assign(owner);
  e.lock.assign(entry.lock.name);
  e.detail = detail;
  if (entry.lock.kind != LockKind::FasterMulti) {
    env_.emit(std::move(e));
    return;
  }
  for (int v : entry.lock.values) {  // a faster multi-lock's notice, once per value
    Event per_value = e;
    per_value.lock = LockRef::member_of(entry.lock.name, v);
    env_.emit(std::move(per_value));
  }
}

void Watchdog::renew(const Key& key, uint64_t generation, uint64_t op_id, int attempt) {
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.generation != generation) return;
  Entry& entry = it->second;
  assert(!entry.holds.empty());
  assert(shared_entries() || (entry.holds.size() == 1 && entry.holds.front().first == key.second));
  if (entry.renew_op_id != op_id) {  // a new renewal (a retry keeps its op ids)
    entry.renew_value_op_ids.clear();
    if (entry.lock.kind == LockKind::FasterMulti) {
      entry.renew_value_op_ids.push_back(op_id);
      for (size_t i = 1; i < entry.lock.values.size(); ++i) entry.renew_value_op_ids.push_back(env_.new_op_id());
    }
  }
  entry.renew_op_id = op_id;
  entry.renew_attempt = attempt;
  ScriptCall call;
  call.kind = ScriptKind::RlockRenew;
  call.params.lock = entry.lock.name;
  call.params.owner = entry.holds.front().first;  // the owner; the mutant: its first thread
  call.params.token = entry.tokens.at(call.params.owner);
  call.params.lease_ms = config_.watchdog_lease_ms;
  ScriptTag tag{Op::Renew, op_id, ""};
  if (entry.lock.kind == LockKind::FasterMulti) {  // every value of the hold, deadlines in this client's clock
    call.kind = ScriptKind::FasterMultiRenew;
    call.params.now_ms = env_.now_ms();
    call.params.values = values_text(entry.lock.values);
    tag.value_op_ids = entry.renew_value_op_ids;
  }
  env_.send_script(entry.lock.server, call, tag, config_.request_timeout_ms,
                   [this, key, generation, op_id, attempt, renewed_for = call.params.owner](
                       const ScriptOutcome& out) {
    auto it = entries_.find(key);
    if (it == entries_.end() || it->second.generation != generation) return;  // cancelled
    Entry& entry = it->second;
    if (out.timed_out && attempt < config_.retry_attempts) {
      renew(key, generation, op_id, attempt + 1);
      return;
    }
    entry.renew_op_id = 0;
    entry.renew_attempt = 0;
    entry.renew_value_op_ids.clear();
    if (!out.timed_out && out.reply.is_int() && out.reply.integer == 1) {
      schedule(key, entry);
      return;
    }
    std::vector<std::string> owners;
    for (const auto& [owner, count] : entry.holds) owners.push_back(owner);
    if (!out.timed_out && out.reply.is_int() && out.reply.integer == 0) {
      // The renewing owner's hold is gone; anyone else sharing the entry (the
      // first-thread mutant) is only no longer renewed.
      for (const auto& owner : owners) {
        if (owner == renewed_for) {
          emit_notice(entry, Op::HoldLost, owner, "renew answered 0");
        } else {
          emit_notice(entry, Op::WatchdogStop, owner,
                      "renewal by " + renewed_for + " answered 0; " + entry.lock.name + " no longer renewed");
        }
      }
    } else {
      const std::string why = out.timed_out ? "renew timeout" : "renew error: " + out.reply.to_string();
      for (const auto& owner : owners) emit_notice(entry, Op::WatchdogStop, owner, why);
    }
    stop(key);
  });
}

void Watchdog::digest(const DigestNames& names, StateDigest* out) const {
  out->add(static_cast<uint64_t>(entries_.size()));
  for (const auto& [key, entry] : entries_) {
    out->add(std::string_view(key.first));
    out->add(std::string_view(key.second));
    out->add(entry.lock.server);
    out->add(static_cast<int>(entry.lock.kind));
    for (int v : entry.lock.values) out->add(v);
    out->add(static_cast<uint64_t>(entry.holds.size()));
    for (const auto& [owner, count] : entry.holds) {
      out->add(std::string_view(owner));
      out->add(count);
      out->add(std::string_view(entry.tokens.at(owner)));
    }
    out->add(names.timer(entry.timer));
    out->add(entry.renew_op_id != 0);
    if (entry.renew_op_id != 0) {
      out->add(names.op(entry.renew_op_id));
      out->add(entry.renew_attempt);
    }
  }
}

void Watchdog::renewals_in_flight(std::vector<uint64_t>* out) const {
  for (const auto& [key, entry] : entries_) {
    if (entry.renew_op_id != 0) out->push_back(entry.renew_op_id);
  }
}

}  // namespace locksim
