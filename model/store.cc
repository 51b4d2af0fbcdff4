#include "model/store.h"

#include <algorithm>
#include <cassert>
#include <charconv>

#include "model/score_format.h"

namespace locksim {

namespace {

const char* const kWrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";

const char* type_name(Store::Type t) {
  switch (t) {
    case Store::Type::String: return "string";
    case Store::Type::Hash: return "hash";
    case Store::Type::List: return "list";
    case Store::Type::ZSet: return "zset";
  }
  return "?";
}

bool parse_int64(const std::string& s, int64_t* out) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size() && !s.empty();
}

}  // namespace

// ---------------------------------------------------------------- internals

Store::Value* Store::lookup(const std::string& key, int64_t now_ms) {
  auto it = keys_.find(key);
  if (it == keys_.end()) return nullptr;
  if (expired(it->second, now_ms)) {
    erase(key);
    return nullptr;
  }
  return &it->second;
}

Store::Value* Store::lookup_typed(const std::string& key, Type type, int64_t now_ms) {
  Value* v = lookup(key, now_ms);
  if (v != nullptr && v->type != type) throw StoreError(kWrongType);
  return v;
}

Store::Value& Store::lookup_or_create(const std::string& key, Type type, int64_t now_ms) {
  if (Value* v = lookup_typed(key, type, now_ms)) return *v;
  Value& v = keys_[key];
  v.type = type;
  return v;
}

void Store::erase(const std::string& key) {
  auto it = keys_.find(key);
  if (it == keys_.end()) return;
  if (it->second.expire_at_ms) expiry_index_.erase({*it->second.expire_at_ms, key});
  keys_.erase(it);
}

void Store::set_expiry(const std::string& key, Value& v, std::optional<int64_t> expire_at_ms) {
  if (v.expire_at_ms) expiry_index_.erase({*v.expire_at_ms, key});
  v.expire_at_ms = expire_at_ms;
  if (v.expire_at_ms) expiry_index_.insert({*v.expire_at_ms, key});
}

void Store::erase_if_empty(const std::string& key, const Value& v) {
  const bool empty = (v.type == Type::Hash && v.hash.empty()) ||
                     (v.type == Type::List && v.list.empty()) ||
                     (v.type == Type::ZSet && v.zset.score_of.empty());
  if (empty) erase(key);
}

// ---------------------------------------------------------------- keyspace

bool Store::exists(const std::string& key, int64_t now_ms) { return lookup(key, now_ms) != nullptr; }

std::optional<Store::Type> Store::type(const std::string& key, int64_t now_ms) {
  const Value* v = lookup(key, now_ms);
  if (v == nullptr) return std::nullopt;
  return v->type;
}

int64_t Store::del(const std::string& key, int64_t now_ms) {
  if (lookup(key, now_ms) == nullptr) return 0;
  erase(key);
  return 1;
}

int64_t Store::pttl(const std::string& key, int64_t now_ms) {
  const Value* v = lookup(key, now_ms);
  if (v == nullptr) return -2;
  if (!v->expire_at_ms) return -1;
  assert(*v->expire_at_ms >= now_ms);
  return *v->expire_at_ms - now_ms;
}

int64_t Store::pexpire(const std::string& key, int64_t ms, int64_t now_ms) {
  Value* v = lookup(key, now_ms);
  if (v == nullptr) return 0;
  if (ms <= 0) {
    erase(key);
    return 1;
  }
  set_expiry(key, *v, now_ms + ms);
  return 1;
}

std::optional<int64_t> Store::expire_at_ms(const std::string& key, int64_t now_ms) {
  const Value* v = lookup(key, now_ms);
  if (v == nullptr) return std::nullopt;
  return v->expire_at_ms;
}

// ---------------------------------------------------------------- strings

std::optional<std::string> Store::get(const std::string& key, int64_t now_ms) {
  const Value* v = lookup_typed(key, Type::String, now_ms);
  if (v == nullptr) return std::nullopt;
  return v->str;
}

void Store::set(const std::string& key, const std::string& value, std::optional<int64_t> px_ms,
                int64_t now_ms) {
  if (px_ms && *px_ms <= 0) throw StoreError("ERR invalid expire time in 'set' command");
  lookup(key, now_ms);  // drop an expired value first
  erase(key);           // SET replaces any type and any expiry
  Value& v = keys_[key];
  v.type = Type::String;
  v.str = value;
  if (px_ms) set_expiry(key, v, now_ms + *px_ms);
}

// ---------------------------------------------------------------- hashes

int64_t Store::hincrby(const std::string& key, const std::string& field, int64_t delta,
                       int64_t now_ms) {
  Value& v = lookup_or_create(key, Type::Hash, now_ms);
  int64_t current = 0;
  auto it = v.hash.find(field);
  if (it != v.hash.end() && !parse_int64(it->second, &current)) {
    throw StoreError("ERR hash value is not an integer");
  }
  const int64_t next = current + delta;  // lock hold counts stay tiny
  v.hash[field] = std::to_string(next);
  return next;
}

int64_t Store::hset(const std::string& key, const std::string& field, const std::string& value,
                    int64_t now_ms) {
  Value& v = lookup_or_create(key, Type::Hash, now_ms);
  const bool added = v.hash.find(field) == v.hash.end();
  v.hash[field] = value;
  return added ? 1 : 0;
}

bool Store::hexists(const std::string& key, const std::string& field, int64_t now_ms) {
  const Value* v = lookup_typed(key, Type::Hash, now_ms);
  return v != nullptr && v->hash.count(field) > 0;
}

std::optional<std::string> Store::hget(const std::string& key, const std::string& field,
                                       int64_t now_ms) {
  const Value* v = lookup_typed(key, Type::Hash, now_ms);
  if (v == nullptr) return std::nullopt;
  auto it = v->hash.find(field);
  if (it == v->hash.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> Store::hkeys(const std::string& key, int64_t now_ms) {
  std::vector<std::string> out;
  if (const Value* v = lookup_typed(key, Type::Hash, now_ms)) {
    for (const auto& [field, value] : v->hash) out.push_back(field);
  }
  return out;
}

// ---------------------------------------------------------------- lists

std::optional<std::string> Store::lindex(const std::string& key, int64_t index, int64_t now_ms) {
  const Value* v = lookup_typed(key, Type::List, now_ms);
  if (v == nullptr) return std::nullopt;
  const auto size = static_cast<int64_t>(v->list.size());
  if (index < 0) index += size;
  if (index < 0 || index >= size) return std::nullopt;
  return v->list[static_cast<size_t>(index)];
}

std::optional<std::string> Store::lpop(const std::string& key, int64_t now_ms) {
  Value* v = lookup_typed(key, Type::List, now_ms);
  if (v == nullptr) return std::nullopt;
  assert(!v->list.empty());  // empty lists are deleted
  std::string head = std::move(v->list.front());
  v->list.erase(v->list.begin());
  erase_if_empty(key, *v);
  return head;
}

int64_t Store::rpush(const std::string& key, const std::string& value, int64_t now_ms) {
  Value& v = lookup_or_create(key, Type::List, now_ms);
  v.list.push_back(value);
  return static_cast<int64_t>(v.list.size());
}

int64_t Store::lrem(const std::string& key, int64_t count, const std::string& value,
                    int64_t now_ms) {
  Value* v = lookup_typed(key, Type::List, now_ms);
  if (v == nullptr) return 0;
  auto& list = v->list;
  const int64_t limit = count == 0 ? static_cast<int64_t>(list.size()) : (count > 0 ? count : -count);
  int64_t removed = 0;
  if (count >= 0) {
    for (auto it = list.begin(); it != list.end() && removed < limit;) {
      if (*it == value) {
        it = list.erase(it);
        ++removed;
      } else {
        ++it;
      }
    }
  } else {
    for (size_t i = list.size(); i > 0 && removed < limit; --i) {
      if (list[i - 1] == value) {
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(i - 1));
        ++removed;
      }
    }
  }
  erase_if_empty(key, *v);
  return removed;
}

std::vector<std::string> Store::lrange_all(const std::string& key, int64_t now_ms) {
  const Value* v = lookup_typed(key, Type::List, now_ms);
  if (v == nullptr) return {};
  return v->list;
}

int64_t Store::llen(const std::string& key, int64_t now_ms) {
  const Value* v = lookup_typed(key, Type::List, now_ms);
  return v == nullptr ? 0 : static_cast<int64_t>(v->list.size());
}

// ---------------------------------------------------------------- sorted sets

std::optional<double> Store::zscore(const std::string& key, const std::string& member,
                                    int64_t now_ms) {
  const Value* v = lookup_typed(key, Type::ZSet, now_ms);
  if (v == nullptr) return std::nullopt;
  auto it = v->zset.score_of.find(member);
  if (it == v->zset.score_of.end()) return std::nullopt;
  return it->second;
}

int64_t Store::zadd(const std::string& key, double score, const std::string& member,
                    int64_t now_ms) {
  assert(score == score);  // no NaN
  Value& v = lookup_or_create(key, Type::ZSet, now_ms);
  auto it = v.zset.score_of.find(member);
  if (it != v.zset.score_of.end()) {
    v.zset.ordered.erase({it->second, member});
    it->second = score;
    v.zset.ordered.insert({score, member});
    return 0;
  }
  v.zset.score_of.emplace(member, score);
  v.zset.ordered.insert({score, member});
  return 1;
}

double Store::zincrby(const std::string& key, double delta, const std::string& member,
                      int64_t now_ms) {
  const double next = zscore(key, member, now_ms).value_or(0.0) + delta;
  if (next != next) throw StoreError("ERR resulting score is not a number (NaN)");
  zadd(key, next, member, now_ms);
  return next;
}

int64_t Store::zrem(const std::string& key, const std::string& member, int64_t now_ms) {
  Value* v = lookup_typed(key, Type::ZSet, now_ms);
  if (v == nullptr) return 0;
  auto it = v->zset.score_of.find(member);
  if (it == v->zset.score_of.end()) return 0;
  v->zset.ordered.erase({it->second, member});
  v->zset.score_of.erase(it);
  erase_if_empty(key, *v);
  return 1;
}

std::vector<std::string> Store::zrange_all(const std::string& key, int64_t now_ms) {
  std::vector<std::string> out;
  if (const Value* v = lookup_typed(key, Type::ZSet, now_ms)) {
    for (const auto& [score, member] : v->zset.ordered) out.push_back(member);
  }
  return out;
}

// ---------------------------------------------------------------- pub/sub

void Store::publish(const std::string& channel, const std::string& payload) {
  published_.push_back(Published{channel, payload});
}

std::vector<Published> Store::take_published() {
  std::vector<Published> out;
  out.swap(published_);
  return out;
}

// ---------------------------------------------------------------- whole store

std::vector<std::string> Store::holders(const std::string& lock, int64_t now_ms) const {
  std::vector<std::string> out;
  auto it = keys_.find(lock);
  if (it == keys_.end() || expired(it->second, now_ms) || it->second.type != Type::Hash) return out;
  for (const auto& [field, value] : it->second.hash) out.push_back(field);
  return out;
}

std::string Store::render(const Value& v) {
  std::string out;
  auto sep = [&out] {
    if (!out.empty()) out += ',';
  };
  switch (v.type) {
    case Type::String: return v.str;
    case Type::Hash:
      for (const auto& [field, value] : v.hash) {
        sep();
        out += field + "=" + value;
      }
      return out;
    case Type::List:
      for (size_t i = 0; i < v.list.size(); ++i) {
        if (i) out += ',';
        out += v.list[i];
      }
      return out;
    case Type::ZSet:
      for (const auto& [score, member] : v.zset.ordered) {
        sep();
        out += member + ":" + format_score(score);
      }
      return out;
  }
  return out;
}

std::vector<KeyState> Store::snapshot(int64_t now_ms) const {
  std::vector<const std::pair<const std::string, Value>*> live;
  live.reserve(keys_.size());
  for (const auto& entry : keys_) {
    if (!expired(entry.second, now_ms)) live.push_back(&entry);
  }
  std::sort(live.begin(), live.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  std::vector<KeyState> out;
  out.reserve(live.size());
  for (const auto* entry : live) {
    const std::string& key = entry->first;
    const Value& v = entry->second;
    KeyState ks;
    ks.key = key;
    ks.type = type_name(v.type);
    ks.value = render(v);
    ks.pttl_ms = v.expire_at_ms ? *v.expire_at_ms - now_ms : -1;
    out.push_back(std::move(ks));
  }
  return out;
}

void Store::sweep_expired(int64_t now_ms) {
  while (!expiry_index_.empty() && expiry_index_.begin()->first < now_ms) {
    const std::string key = expiry_index_.begin()->second;
    erase(key);
  }
}

void Store::clear() {
  keys_.clear();
  expiry_index_.clear();
  published_.clear();
}

}  // namespace locksim
