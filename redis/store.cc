#include "redis/store.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cstring>

#include "redis/redis_number.h"
#include "redis/score_format.h"

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

// What the store charges (redis/memory_account.h): bounds from above what
// each piece takes from the heap. A string's text is exact (its capacity,
// which the store keeps equal to its length, or the growth APPEND
// reserved); the rest is per piece: a key's node, bucket and expiry entry;
// a field's entry, index slot and spare vector capacity; an element's
// place in the deque; a member's two nodes.
constexpr size_t kSsoBytes = 15;  // libstdc++: shorter strings live inside the object
size_t text_bytes(size_t length) { return length > kSsoBytes ? length + 1 : 0; }
size_t heap_bytes(const std::string& s) { return s.capacity() > kSsoBytes ? s.capacity() + 1 : 0; }
constexpr size_t kFieldBytes = 2 * sizeof(HashFields::Entry) + 16;
constexpr size_t kElementBytes = sizeof(std::string) + 16;
constexpr size_t kMemberBytes = 192;
constexpr size_t kPublishedBytes = sizeof(Published) * 2;
size_t field_bytes(std::string_view field, std::string_view value) {
  return kFieldBytes + text_bytes(field.size()) + text_bytes(value.size());
}
size_t key_bytes(std::string_view key) { return 512 + text_bytes(key.size()); }

// A string of exactly `text`'s length (assignment may keep a larger buffer).
std::string exact_string(std::string_view text) { return std::string(text); }

}  // namespace

void Store::charge(size_t bytes) {
  if (account_ != nullptr && !account_->try_charge(bytes)) {
    throw StoreMemoryError("the key store needs more than the " + std::to_string(account_->limit_bytes() >> 20) +
                           " MiB memory limit allows");
  }
  charged_bytes_ += bytes;
}

void Store::release(size_t bytes) {
  assert(bytes <= charged_bytes_);
  charged_bytes_ -= bytes;
  if (account_ != nullptr) account_->release(bytes);
}

void Store::set_memory_account(MemoryAccount* account) {
  if (account_ != nullptr) account_->release(charged_bytes_);
  account_ = account;
  if (account_ != nullptr && !account_->try_charge(charged_bytes_)) {
    account_ = nullptr;
    throw StoreMemoryError("the key store already holds more than the memory limit allows");
  }
}

// Small containers keep their buffers (a lock's hash comes and goes with
// every lock and unlock); large ones give them back, so that nothing the
// account no longer counts stays allocated.
void Store::drop_content(Value& v) {
  if (v.str.capacity() > kSsoBytes) {
    std::string().swap(v.str);  // a kept buffer would be held uncharged
  } else {
    v.str.clear();
  }
  v.hash.clear();
  if (v.list.size() > 64) {
    List().swap(v.list);
  } else {
    v.list.clear();
  }
  if (v.zset.score_of.bucket_count() > 64) {
    ZSet().score_of.swap(v.zset.score_of);
  } else {
    v.zset.score_of.clear();
  }
  v.zset.ordered.clear();
  release_value(v, v.bytes);
}

// ---------------------------------------------------------------- internals


Store::Keys::iterator Store::find_key(std::string_view key) {
  for (const RecentKey& r : recent_keys_.entries) {
    if (r.name != nullptr && *r.name == key) return r.it;
  }
  auto it = keys_.find(key);
  if (it != keys_.end()) {
    recent_keys_.entries[recent_keys_.next] = RecentKey{&it->first, it};
    recent_keys_.next = (recent_keys_.next + 1) % RecentKeys::kSize;
  }
  return it;
}

Store::Keys::iterator Store::lookup(std::string_view key, int64_t now_ms) {
  auto it = find_key(key);
  if (it == keys_.end()) return it;
  if (expired(it->second, now_ms)) {
    erase(it);
    return keys_.end();
  }
  return it;
}

Store::Keys::iterator Store::lookup_typed(std::string_view key, Type type, int64_t now_ms) {
  auto it = lookup(key, now_ms);
  if (it != keys_.end() && it->second.type != type) throw StoreError(kWrongType);
  return it;
}

Store::Keys::iterator Store::lookup_or_create(std::string_view key, Type type, int64_t now_ms) {
  auto it = lookup_typed(key, type, now_ms);
  if (it != keys_.end()) return it;
  charge(key_bytes(key));
  it = create(key);
  it->second.type = type;
  touch(it->second);
  return it;
}

void Store::erase(Keys::iterator it) {
  assert(it != keys_.end());
  forget_recent_keys();
  if (it->second.expire_at_ms) expiry_index_.erase(it->second.expiry_entry);
  release(key_bytes(it->first));
  note_work(it->second.hash.size() + it->second.list.size() + it->second.zset.ordered.size());
  drop_content(it->second);
  if (spare_nodes_.size() >= kSpareNodes) {
    keys_.erase(it);
    return;
  }
  Keys::node_type node = keys_.extract(it);
  Value& v = node.mapped();
  v.version = 0;
  v.type = Type::String;
  v.expire_at_ms.reset();
  spare_nodes_.push_back(std::move(node));
}

Store::Keys::iterator Store::create(std::string_view key) {
  const size_t buckets = keys_.bucket_count();
  Keys::iterator it;
  if (spare_nodes_.empty()) {
    const auto [created, added] = keys_.try_emplace(std::string(key));
    assert(added);
    (void)added;
    it = created;
  } else {
    Keys::node_type node = std::move(spare_nodes_.back());
    spare_nodes_.pop_back();
    node.key() = key;
    auto result = keys_.insert(std::move(node));
    assert(result.inserted);
    it = result.position;
  }
  if (keys_.bucket_count() != buckets) forget_recent_keys();  // a rehash invalidates iterators
  return it;
}

// Moves the key's index entry instead of replacing it, so renewing a lease
// allocates nothing.
void Store::set_expiry(Keys::iterator it, std::optional<int64_t> expire_at_ms) {
  Value& v = it->second;
  if (v.expire_at_ms && expire_at_ms) {
    if (*v.expire_at_ms != *expire_at_ms) {
      auto node = expiry_index_.extract(v.expiry_entry);
      node.key() = *expire_at_ms;
      // Hint end(): a new deadline is usually the latest (O(1) there); a
      // multimap puts an equal key after its equals, with or without hint.
      v.expiry_entry = expiry_index_.insert(expiry_index_.end(), std::move(node));
    }
  } else if (v.expire_at_ms) {
    expiry_index_.erase(v.expiry_entry);
  } else if (expire_at_ms) {
    v.expiry_entry = expiry_index_.emplace_hint(expiry_index_.end(), *expire_at_ms, &it->first);
  }
  v.expire_at_ms = expire_at_ms;
}

void Store::erase_if_empty(Keys::iterator it) {
  const Value& v = it->second;
  assert(v.type != Type::String);
  const bool empty = (v.type == Type::Hash && v.hash.empty()) ||
                     (v.type == Type::List && v.list.empty()) ||
                     (v.type == Type::ZSet && v.zset.score_of.empty());
  if (empty) erase(it);
}

// ---------------------------------------------------------------- keyspace

bool Store::exists(std::string_view key, int64_t now_ms) { return lookup(key, now_ms) != keys_.end(); }

std::optional<Store::Type> Store::type(std::string_view key, int64_t now_ms) {
  const Value* v = find_value(key, now_ms);
  if (v == nullptr) return std::nullopt;
  return v->type;
}

int64_t Store::del(std::string_view key, int64_t now_ms) {
  auto it = lookup(key, now_ms);
  if (it == keys_.end()) return 0;
  erase(it);
  return 1;
}

int64_t Store::pttl(std::string_view key, int64_t now_ms) {
  const Value* v = find_value(key, now_ms);
  if (v == nullptr) return -2;
  if (!v->expire_at_ms) return -1;
  assert(*v->expire_at_ms >= now_ms);
  return *v->expire_at_ms - now_ms;
}

int64_t Store::pexpire(std::string_view key, int64_t ms, int64_t now_ms) {
  auto it = lookup(key, now_ms);
  if (it == keys_.end()) return 0;
  if (ms <= 0) {
    erase(it);
    return 1;
  }
  set_expiry(it, now_ms + ms);
  return 1;
}

std::optional<int64_t> Store::expire_at_ms(std::string_view key, int64_t now_ms) {
  const Value* v = find_value(key, now_ms);
  if (v == nullptr) return std::nullopt;
  return v->expire_at_ms;
}

bool Store::set_expire_at(std::string_view key, std::optional<int64_t> expire_at_ms, int64_t now_ms) {
  auto it = lookup(key, now_ms);
  if (it == keys_.end()) return false;
  set_expiry(it, expire_at_ms);
  return true;
}

// ---------------------------------------------------------------- strings

std::optional<std::string> Store::get(std::string_view key, int64_t now_ms) {
  const Value* v = find_typed(key, Type::String, now_ms);
  if (v == nullptr) return std::nullopt;
  return v->str;
}

const std::string* Store::get_ref(std::string_view key, int64_t now_ms) {
  const Value* v = find_typed(key, Type::String, now_ms);
  return v == nullptr ? nullptr : &v->str;
}

void Store::set(std::string_view key, std::string_view value, std::optional<int64_t> px_ms,
                int64_t now_ms) {
  if (px_ms && *px_ms <= 0) throw StoreError("ERR invalid expire time in 'set' command");
  set_at(key, value, px_ms ? std::optional<int64_t>(now_ms + *px_ms) : std::nullopt, false, now_ms);
}

void Store::set_at(std::string_view key, std::string_view value, std::optional<int64_t> expire_at_ms,
                   bool keep_ttl, int64_t now_ms) {
  // SET replaces any type and any expiry: an existing entry is reset in place.
  auto it = lookup(key, now_ms);  // drops an expired value first
  const size_t text = text_bytes(value.size());
  std::string fresh;
  if (it == keys_.end()) {
    charge(key_bytes(key) + text);
    fresh = exact_string(value);
    it = create(key);
  } else {
    charge(text);  // the new text while the old one is still held
    fresh = exact_string(value);
    if (!keep_ttl) set_expiry(it, std::nullopt);
    drop_content(it->second);
  }
  Value& v = it->second;
  v.type = Type::String;
  v.str = std::move(fresh);
  v.bytes = text;
  assert(heap_bytes(v.str) == text);
  touch(v);
  if (!keep_ttl && expire_at_ms) set_expiry(it, *expire_at_ms);
}

int64_t Store::append(std::string_view key, std::string_view suffix, int64_t now_ms) {
  auto it = lookup_typed(key, Type::String, now_ms);
  if (it == keys_.end()) {
    set_at(key, suffix, std::nullopt, false, now_ms);
    return static_cast<int64_t>(suffix.size());
  }
  Value& v = it->second;
  const size_t length = v.str.size();
  if (suffix.size() > kMaxStringBytes - std::min(length, kMaxStringBytes)) {
    throw StoreError("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
  }
  const size_t need = length + suffix.size();
  if (need > v.str.capacity()) {
    // Grows by half again (amortised constant per byte), never past the
    // longest string Redis allows; the new buffer is charged while the old
    // one is still held (both exist during the copy).
    size_t capacity = std::max(need, v.str.capacity() + v.str.capacity() / 2);
    capacity = std::max(std::min(capacity, kMaxStringBytes), std::max<size_t>(need, 2 * kSsoBytes));
    charge_value(v, text_bytes(capacity));
    std::string grown;
    grown.reserve(capacity);
    grown.append(v.str).append(suffix);
    const size_t old_heap = heap_bytes(v.str);
    v.str.swap(grown);
    release_value(v, old_heap);
    assert(heap_bytes(v.str) == text_bytes(capacity));
  } else {
    v.str.append(suffix);
  }
  touch(v);
  return static_cast<int64_t>(v.str.size());
}

// ---------------------------------------------------------------- hashes

int64_t Store::hincrby(std::string_view key, std::string_view field, int64_t delta,
                       int64_t now_ms) {
  Keys::iterator entry = lookup_typed(key, Type::Hash, now_ms);
  HashFields::Entry* e = entry == keys_.end() ? nullptr : entry->second.hash.find(field);
  int64_t current = 0;
  if (e != nullptr && !redis_string_to_int64(e->value, &current)) throw StoreError("ERR hash value is not an integer");
  int64_t next = 0;
  if (__builtin_add_overflow(current, delta, &next)) throw StoreError("ERR increment or decrement would overflow");
  std::string text = std::to_string(next);
  if (e != nullptr) {
    Value& v = entry->second;
    charge_value(v, heap_bytes(text));
    release_value(v, heap_bytes(e->value));
    e->value = std::move(text);
    touch(v);
    return next;
  }
  const size_t bytes = field_bytes(field, text);
  charge(bytes);  // before the key is made
  try {
    entry = lookup_or_create(key, Type::Hash, now_ms);
  } catch (...) {
    release(bytes);
    throw;
  }
  Value& v = entry->second;
  v.bytes += bytes;
  v.hash.add(field).value = std::move(text);
  touch(v);
  return next;
}

int64_t Store::hset(std::string_view key, std::string_view field, std::string_view value,
                    int64_t now_ms) {
  Keys::iterator entry = lookup_typed(key, Type::Hash, now_ms);
  if (entry != keys_.end()) {
    Value& v = entry->second;
    if (HashFields::Entry* e = v.hash.find(field)) {
      charge_value(v, text_bytes(value.size()));
      std::string fresh = exact_string(value);
      release_value(v, heap_bytes(e->value));
      e->value = std::move(fresh);
      touch(v);
      return 0;
    }
  }
  const size_t bytes = field_bytes(field, value);
  charge(bytes);
  try {
    if (entry == keys_.end()) entry = lookup_or_create(key, Type::Hash, now_ms);
  } catch (...) {
    release(bytes);
    throw;
  }
  Value& v = entry->second;
  v.bytes += bytes;
  HashFields::Entry& e = v.hash.add(field);
  e.value = exact_string(value);
  touch(v);
  return 1;
}

bool Store::hexists(std::string_view key, std::string_view field, int64_t now_ms) {
  Value* v = find_typed(key, Type::Hash, now_ms);
  return v != nullptr && v->hash.find(field) != nullptr;
}

std::optional<std::string> Store::hget(std::string_view key, std::string_view field,
                                       int64_t now_ms) {
  Value* v = find_typed(key, Type::Hash, now_ms);
  if (v == nullptr) return std::nullopt;
  const HashFields::Entry* e = v->hash.find(field);
  if (e == nullptr) return std::nullopt;
  return e->value;
}

std::vector<std::string> Store::hkeys(std::string_view key, int64_t now_ms) {
  std::vector<std::string> out;
  if (const Value* v = find_typed(key, Type::Hash, now_ms)) {
    for (const HashFields::Entry& e : v->hash) out.push_back(e.field);
  }
  return out;
}

int64_t Store::hdel(std::string_view key, std::string_view field, int64_t now_ms) {
  auto entry = lookup_typed(key, Type::Hash, now_ms);
  if (entry == keys_.end()) return 0;
  Value& v = entry->second;
  const HashFields::Entry* e = v.hash.find(field);
  if (e == nullptr) return 0;
  const size_t bytes = kFieldBytes + heap_bytes(e->field) + heap_bytes(e->value);
  v.hash.erase(field);
  release_value(v, bytes);
  touch(v);
  erase_if_empty(entry);
  return 1;
}

const Store::HashFields* Store::hash_ref(std::string_view key, int64_t now_ms) {
  const Value* v = find_typed(key, Type::Hash, now_ms);
  return v == nullptr ? nullptr : &v->hash;
}

// ---------------------------------------------------------------- lists

std::optional<std::string> Store::lindex(std::string_view key, int64_t index, int64_t now_ms) {
  const std::string* element = lindex_ref(key, index, now_ms);
  if (element == nullptr) return std::nullopt;
  return *element;
}

const std::string* Store::lindex_ref(std::string_view key, int64_t index, int64_t now_ms) {
  const Value* v = find_typed(key, Type::List, now_ms);
  if (v == nullptr) return nullptr;
  const auto size = static_cast<int64_t>(v->list.size());
  if (index < 0) index += size;
  if (index < 0 || index >= size) return nullptr;
  return &v->list[static_cast<size_t>(index)];
}

const Store::List* Store::list_ref(std::string_view key, int64_t now_ms) {
  const Value* v = find_typed(key, Type::List, now_ms);
  return v == nullptr ? nullptr : &v->list;
}

std::optional<std::string> Store::lpop(std::string_view key, int64_t now_ms) {
  auto it = lookup_typed(key, Type::List, now_ms);
  if (it == keys_.end()) return std::nullopt;
  auto& list = it->second.list;
  assert(!list.empty());  // empty lists are deleted
  std::string head = std::move(list.front());
  list.pop_front();
  release_value(it->second, kElementBytes + heap_bytes(head));
  touch(it->second);
  erase_if_empty(it);
  return head;
}

Store::Value& Store::charged_container(std::string_view key, Type type, size_t bytes, int64_t now_ms) {
  charge(bytes);
  Keys::iterator it;
  try {
    it = lookup_or_create(key, type, now_ms);
  } catch (...) {
    release(bytes);
    throw;
  }
  it->second.bytes += bytes;
  return it->second;
}

int64_t Store::rpush(std::string_view key, std::string_view value, int64_t now_ms) {
  Value& v = charged_container(key, Type::List, kElementBytes + text_bytes(value.size()), now_ms);
  v.list.push_back(exact_string(value));
  touch(v);
  return static_cast<int64_t>(v.list.size());
}

int64_t Store::lpush(std::string_view key, std::string_view value, int64_t now_ms) {
  Value& v = charged_container(key, Type::List, kElementBytes + text_bytes(value.size()), now_ms);
  v.list.push_front(exact_string(value));
  touch(v);
  return static_cast<int64_t>(v.list.size());
}

std::optional<std::string> Store::rpop(std::string_view key, int64_t now_ms) {
  auto it = lookup_typed(key, Type::List, now_ms);
  if (it == keys_.end()) return std::nullopt;
  auto& list = it->second.list;
  assert(!list.empty());  // empty lists are deleted
  std::string tail = std::move(list.back());
  list.pop_back();
  release_value(it->second, kElementBytes + heap_bytes(tail));
  touch(it->second);
  erase_if_empty(it);
  return tail;
}

bool Store::lset(std::string_view key, int64_t index, std::string_view value, int64_t now_ms) {
  Value* v = find_typed(key, Type::List, now_ms);
  assert(v != nullptr);
  const auto size = static_cast<int64_t>(v->list.size());
  if (index < 0) index += size;
  if (index < 0 || index >= size) return false;
  std::string& element = v->list[static_cast<size_t>(index)];
  charge_value(*v, text_bytes(value.size()));
  std::string fresh = exact_string(value);
  release_value(*v, heap_bytes(element));
  element = std::move(fresh);
  touch(*v);
  return true;
}

void Store::ltrim(std::string_view key, int64_t start, int64_t stop, int64_t now_ms) {
  auto entry = lookup_typed(key, Type::List, now_ms);
  if (entry == keys_.end()) return;
  auto& list = entry->second.list;
  const auto size = static_cast<int64_t>(list.size());
  if (start < 0) start += size;
  if (stop < 0) stop += size;
  if (start < 0) start = 0;
  auto release_range = [&](List::iterator from, List::iterator to) {
    size_t bytes = 0;
    note_work(static_cast<uint64_t>(to - from));
    for (auto it = from; it != to; ++it) bytes += kElementBytes + heap_bytes(*it);
    release_value(entry->second, bytes);
  };
  if (start > stop || start >= size) {
    release_range(list.begin(), list.end());
    list.clear();
  } else {
    if (stop >= size) stop = size - 1;
    release_range(list.begin() + stop + 1, list.end());
    list.erase(list.begin() + stop + 1, list.end());
    release_range(list.begin(), list.begin() + start);
    list.erase(list.begin(), list.begin() + start);
  }
  touch(entry->second);
  erase_if_empty(entry);
}

int64_t Store::lrem(std::string_view key, int64_t count, std::string_view value,
                    int64_t now_ms) {
  auto entry = lookup_typed(key, Type::List, now_ms);
  if (entry == keys_.end()) return 0;
  auto& list = entry->second.list;
  const int64_t limit = count == 0 ? static_cast<int64_t>(list.size())
                      : (count > 0 ? count : (count == INT64_MIN ? INT64_MAX : -count));
  // One pass that keeps the survivors in order (linear, as Redis's).
  note_work(list.size());
  int64_t removed = 0;
  std::vector<bool> drop(list.size(), false);
  if (count >= 0) {
    for (size_t i = 0; i < list.size() && removed < limit; ++i) {
      if (list[i] == value) {
        drop[i] = true;
        ++removed;
      }
    }
  } else {
    for (size_t i = list.size(); i > 0 && removed < limit; --i) {
      if (list[i - 1] == value) {
        drop[i - 1] = true;
        ++removed;
      }
    }
  }
  if (removed > 0) {
    size_t out = 0, bytes = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      if (drop[i]) {
        bytes += kElementBytes + heap_bytes(list[i]);
        continue;
      }
      if (out != i) list[out] = std::move(list[i]);
      ++out;
    }
    list.resize(out);
    release_value(entry->second, bytes);
  }
  touch(entry->second);
  erase_if_empty(entry);
  return removed;
}

std::vector<std::string> Store::lrange_all(std::string_view key, int64_t now_ms) {
  const Value* v = find_typed(key, Type::List, now_ms);
  if (v == nullptr) return {};
  return std::vector<std::string>(v->list.begin(), v->list.end());
}

bool Store::line_with_scores(std::string_view line, std::string_view deadlines, int64_t now_ms,
                             std::vector<LineWaiter>* out) {
  assert(out != nullptr);
  const Value* list = nullptr;
  const Value* zset = nullptr;
  try {
    list = find_typed(line, Type::List, now_ms);
    // ZSCORE looks the sorted set up only when there is a member to score.
    if (list != nullptr && !list->list.empty()) zset = find_typed(deadlines, Type::ZSet, now_ms);
  } catch (const StoreError&) {
    out->clear();
    return false;
  }
  if (list == nullptr) {
    out->clear();
    return true;
  }
  out->resize(list->list.size());
  for (size_t i = 0; i < list->list.size(); ++i) {
    LineWaiter& w = (*out)[i];
    w.owner = list->list[i];
    w.deadline_ms.reset();
    if (zset != nullptr) {
      auto it = zset->zset.score_of.find(w.owner);
      if (it != zset->zset.score_of.end()) w.deadline_ms = it->second;
    }
  }
  return true;
}

bool Store::line_version(std::string_view line, std::string_view deadlines, int64_t now_ms,
                         LineVersion* out) {
  assert(out != nullptr);
  *out = LineVersion{};
  try {
    const Value* list = find_typed(line, Type::List, now_ms);
    if (list == nullptr || list->list.empty()) return true;
    out->line_version = list->version;
    const Value* zset = find_typed(deadlines, Type::ZSet, now_ms);
    if (zset != nullptr) out->deadlines_version = zset->version;
  } catch (const StoreError&) {
    *out = LineVersion{};
    return false;
  }
  assert(out->line_version != 0);
  return true;
}

int64_t Store::llen(std::string_view key, int64_t now_ms) {
  const Value* v = find_typed(key, Type::List, now_ms);
  return v == nullptr ? 0 : static_cast<int64_t>(v->list.size());
}

// ---------------------------------------------------------------- sorted sets

std::optional<double> Store::zscore(std::string_view key, std::string_view member,
                                    int64_t now_ms) {
  const Value* v = find_typed(key, Type::ZSet, now_ms);
  if (v == nullptr) return std::nullopt;
  auto it = v->zset.score_of.find(member);
  if (it == v->zset.score_of.end()) return std::nullopt;
  return it->second;
}

int64_t Store::zadd(std::string_view key, double score, std::string_view member,
                    int64_t now_ms) {
  assert(score == score);  // no NaN
  // A small sorted set (a listpack in Redis) keeps -0 as the integer 0.
  if (score == 0) score = 0.0;
  Value* existing = find_typed(key, Type::ZSet, now_ms);
  const bool known = existing != nullptr && existing->zset.score_of.count(member) != 0;
  const size_t bytes = kMemberBytes + 2 * text_bytes(member.size());
  Value& v = known ? *existing : charged_container(key, Type::ZSet, bytes, now_ms);
  auto it = v.zset.score_of.find(member);
  if (it != v.zset.score_of.end()) {
    std::pair<double, std::string> entry{it->second, std::string(member)};
    const bool erased = v.zset.ordered.erase(entry);
    assert(erased);
    (void)erased;
    entry.first = score;
    v.zset.ordered.insert(std::move(entry));
    it->second = score;
    touch(v);
    return 0;
  }
  v.zset.score_of.emplace(member, score);
  v.zset.ordered.insert(std::pair<double, std::string>{score, std::string(member)});
  touch(v);
  return 1;
}

double Store::zincrby(std::string_view key, double delta, std::string_view member,
                      int64_t now_ms) {
  const double next = zscore(key, member, now_ms).value_or(0.0) + delta;
  if (next != next) throw StoreError("ERR resulting score is not a number (NaN)");
  zadd(key, next, member, now_ms);
  return next;
}

int64_t Store::zrem(std::string_view key, std::string_view member, int64_t now_ms) {
  auto entry = lookup_typed(key, Type::ZSet, now_ms);
  if (entry == keys_.end()) return 0;
  ZSet& zset = entry->second.zset;
  auto it = zset.score_of.find(member);
  if (it == zset.score_of.end()) return 0;
  zset.ordered.erase(std::pair<double, std::string>{it->second, std::string(member)});
  zset.score_of.erase(it);
  release_value(entry->second, kMemberBytes + 2 * text_bytes(member.size()));
  touch(entry->second);
  erase_if_empty(entry);
  return 1;
}

std::vector<std::string> Store::zrange_all(std::string_view key, int64_t now_ms) {
  std::vector<std::string> out;
  if (const Value* v = find_typed(key, Type::ZSet, now_ms)) {
    for (const auto& [score, member] : v->zset.ordered) out.push_back(member);
  }
  return out;
}

const Store::ZSetOrder* Store::zset_ref(std::string_view key, int64_t now_ms) {
  const Value* v = find_typed(key, Type::ZSet, now_ms);
  return v == nullptr ? nullptr : &v->zset.ordered;
}

// ---------------------------------------------------------------- pub/sub

void Store::publish(std::string_view channel, std::string_view payload) {
  const size_t bytes = kPublishedBytes + text_bytes(channel.size()) + text_bytes(payload.size());
  charge(bytes);
  published_bytes_ += bytes;
  published_.push_back(Published{std::string(channel), std::string(payload)});
}

std::vector<Published> Store::take_published() {
  std::vector<Published> out;
  out.swap(published_);
  release(published_bytes_);
  published_bytes_ = 0;
  return out;
}

void Store::take_published_into(std::vector<Published>* out) {
  assert(out != nullptr);
  out->swap(published_);
  published_.clear();
  release(published_bytes_);
  published_bytes_ = 0;
}

// ---------------------------------------------------------------- whole store

std::vector<std::string> Store::holders(std::string_view lock, int64_t now_ms) const {
  std::vector<std::string> out;
  holders_into(lock, now_ms, &out);
  return out;
}

void Store::holders_into(std::string_view lock, int64_t now_ms, std::vector<std::string>* out) const {
  assert(out != nullptr);
  auto it = keys_.find(lock);
  if (it == keys_.end() || expired(it->second, now_ms) || it->second.type != Type::Hash) {
    out->clear();
    return;
  }
  const auto& hash = it->second.hash;
  out->resize(hash.size());
  size_t i = 0;
  for (const HashFields::Entry& e : hash) (*out)[i++] = e.field;
  std::sort(out->begin(), out->end());
}

std::string Store::render(const Value& v) {
  std::string out;
  auto sep = [&out] {
    if (!out.empty()) out += ',';
  };
  switch (v.type) {
    case Type::String: return v.str;
    case Type::Hash: {
      std::vector<const HashFields::Entry*> sorted;
      sorted.reserve(v.hash.size());
      for (const HashFields::Entry& e : v.hash) sorted.push_back(&e);
      std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->field < b->field; });
      for (const auto* e : sorted) {
        sep();
        out += e->field + "=" + e->value;
      }
      return out;
    }
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
    std::string_view key = entry->first;
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

void Store::digest(int64_t now_ms, StateDigest* out) const {
  const double now = static_cast<double>(now_ms);
  uint64_t live = 0;
  for (const auto& [key, v] : keys_) {
    if (expired(v, now_ms)) continue;
    ++live;
    StateDigest item;
    item.add(std::string_view(key));
    item.add(static_cast<int>(v.type));
    switch (v.type) {
      case Type::String: item.add(std::string_view(v.str)); break;
      case Type::Hash:
        item.add(static_cast<uint64_t>(v.hash.size()));
        for (const HashFields::Entry& e : v.hash) {
          item.add(std::string_view(e.field));
          item.add(std::string_view(e.value));
        }
        break;
      case Type::List:
        item.add(static_cast<uint64_t>(v.list.size()));
        for (const std::string& element : v.list) item.add(std::string_view(element));
        break;
      case Type::ZSet:
        item.add(static_cast<uint64_t>(v.zset.ordered.size()));
        for (const auto& [score, member] : v.zset.ordered) {
          item.add(std::string_view(member));
          item.add_double(score - now);
        }
        break;
    }
    item.add(v.expire_at_ms.has_value());
    if (v.expire_at_ms) item.add(*v.expire_at_ms - now_ms);
    out->add_unordered(item.value());
  }
  out->add(live);
  out->end_unordered();
}

void Store::sweep_expired(int64_t now_ms) {
  while (!expiry_index_.empty() && expiry_index_.begin()->first < now_ms) {
    auto it = keys_.find(*expiry_index_.begin()->second);
    assert(it != keys_.end() && it->second.expire_at_ms == expiry_index_.begin()->first);
    erase(it);
  }
}

void Store::clear() {
  forget_recent_keys();
  keys_.clear();
  expiry_index_.clear();
  published_.clear();
  release(charged_bytes_);
  published_bytes_ = 0;
}

}  // namespace locksim
