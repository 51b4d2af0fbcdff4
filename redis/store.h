// Store: an in-memory subset of Redis over virtual milliseconds, just enough
// to run the lock scripts with Redis 7.0's exact rules (docs/redis-facts.md).
//
// Contract:
//  - Every operation takes the server time `now_ms`; inside one script the
//    caller passes the same value to every call (Redis freezes time per script).
//  - A key with an expiry is gone once now_ms > expire_at_ms (strict). An
//    expired key is deleted when an operation touches it (Redis's lazy expiry);
//    sweep_expired() deletes every due key at once (Redis's active expiry) so a
//    long run does not accumulate dead latch keys. Neither is visible to a
//    script when server time never goes backwards.
//  - Types: string, hash (fields in insertion order, as Redis keeps a small
//    hash; redis/hash_fields.h), list, sorted set (double scores,
//    ordered by (score, member bytewise)). Every operation a lock script
//    calls costs what Redis's does: amortised constant per field, element
//    or appended byte, not the size of the value (HSET, HINCRBY, APPEND,
//    LPUSH / RPUSH, LPOP / RPOP, ZADD...). An operation on a key of another type
//    throws StoreError with Redis's WRONGTYPE text; a bad argument (SET PX <= 0)
//    throws StoreError with Redis's error text. Writes done before the throw stay.
//  - Writes that create or replace a value drop the expiry like Redis (SET);
//    HINCRBY / HSET / RPUSH / ZADD / ZINCRBY keep it; a container whose last
//    element is removed is deleted.
//  - PUBLISH appends to a log that the caller drains with take_published().
//  - Memory: with set_memory_account(), every key, field, element, member,
//    string byte and pending published message is charged to that account
//    (redis/memory_account.h) before it is stored, by a size that bounds
//    what it takes from the heap; a write the account refuses throws
//    StoreMemoryError and stores nothing of it. Without an account (the
//    model backend) nothing is refused. APPEND past Redis's
//    proto-max-bulk-len (kMaxStringBytes, 512 MB) throws StoreError with
//    Redis's text, as Redis answers it.
//  - Store is move-only: its expiry index points into its own key table.
//  - snapshot(now_ms): every live key sorted by name, values rendered as
//    string -> raw value; hash -> "f=v" joined by "," in field order;
//    list -> elements joined by "," head first; zset -> "member:score" joined
//    by "," in ZRANGE order, score via format_score(). Does not delete anything.
#pragma once

#include <array>
#include <cassert>
#include <deque>
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>

#include "redis/exec_result.h"
#include "redis/hash_fields.h"
#include "redis/key_hash.h"
#include "redis/memory_account.h"
#include "redis/state_digest.h"

namespace locksim {

struct StoreError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A write the store's MemoryAccount refused (not a Redis error: the run
// stops); what() says how much the account allows.
struct StoreMemoryError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Store {
 public:
  enum class Type { String, Hash, List, ZSet };

  static constexpr size_t kMaxStringBytes = size_t{512} << 20;  // proto-max-bulk-len

  Store() = default;
  ~Store() { detach_account(); }
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  Store(Store&& other) noexcept { *this = std::move(other); }
  Store& operator=(Store&& other) noexcept {
    detach_account();
    keys_ = std::move(other.keys_);
    expiry_index_ = std::move(other.expiry_index_);
    published_ = std::move(other.published_);
    write_clock_ = other.write_clock_;
    spare_nodes_ = std::move(other.spare_nodes_);
    recent_keys_ = std::move(other.recent_keys_);
    account_ = other.account_;
    charged_bytes_ = other.charged_bytes_;
    published_bytes_ = other.published_bytes_;
    work_ = other.work_;
    other.account_ = nullptr;
    other.charged_bytes_ = 0;
    other.published_bytes_ = 0;
    return *this;
  }

  // --- keyspace ---
  bool exists(std::string_view key, int64_t now_ms);
  std::optional<Type> type(std::string_view key, int64_t now_ms);
  int64_t del(std::string_view key, int64_t now_ms);  // 1 if deleted, else 0
  // PTTL: remaining ms (expire_at - now), -1 no expiry, -2 no such key.
  int64_t pttl(std::string_view key, int64_t now_ms);
  // PEXPIRE: 0 if the key is absent; ms <= 0 deletes it and returns 1; else
  // sets expire_at = now_ms + ms and returns 1.
  int64_t pexpire(std::string_view key, int64_t ms, int64_t now_ms);
  std::optional<int64_t> expire_at_ms(std::string_view key, int64_t now_ms);
  // Sets (or, with nullopt, removes) the absolute expiry of a live key; false
  // if the key is absent. The caller deletes a key whose new expiry is due.
  bool set_expire_at(std::string_view key, std::optional<int64_t> expire_at_ms, int64_t now_ms);

  // --- strings ---
  std::optional<std::string> get(std::string_view key, int64_t now_ms);
  // SET key value [PX px_ms]: replaces any value of any type; with px_ms the
  // key expires at now + px_ms, and px_ms <= 0 throws
  // "ERR invalid expire time in 'set' command" without touching the key.
  void set(std::string_view key, std::string_view value, std::optional<int64_t> px_ms,
           int64_t now_ms);
  // SET with an absolute expiry (nullopt: none) or, keep_ttl, the key's
  // current expiry (SET KEEPTTL, INCR). No check on expire_at_ms.
  void set_at(std::string_view key, std::string_view value, std::optional<int64_t> expire_at_ms,
              bool keep_ttl, int64_t now_ms);
  // APPEND: the new length; creates the key; keeps its expiry. Amortised
  // O(length of `suffix`). Past kMaxStringBytes: StoreError "ERR string
  // exceeds maximum allowed size (proto-max-bulk-len)", touching nothing.
  int64_t append(std::string_view key, std::string_view suffix, int64_t now_ms);
  // GET without a copy (same lookup, lazy expiry and WRONGTYPE): null where
  // GET gives nil; valid until the next call that may change `key`.
  const std::string* get_ref(std::string_view key, int64_t now_ms);

  // --- hashes ---
  // HINCRBY: creates the key / field (from 0) as needed; a field at 0 stays.
  // Throws "ERR hash value is not an integer" if the field is not an integer
  // (Redis's string2ll rules, redis_number.h) and "ERR increment or
  // decrement would overflow" past int64, touching nothing.
  int64_t hincrby(std::string_view key, std::string_view field, int64_t delta, int64_t now_ms);
  int64_t hset(std::string_view key, std::string_view field, std::string_view value,
               int64_t now_ms);  // 1 if the field is new
  bool hexists(std::string_view key, std::string_view field, int64_t now_ms);
  std::optional<std::string> hget(std::string_view key, std::string_view field, int64_t now_ms);
  std::vector<std::string> hkeys(std::string_view key, int64_t now_ms);  // insertion order
  int64_t hdel(std::string_view key, std::string_view field, int64_t now_ms);  // 1 if removed
  // The hash's fields and values in insertion order, without a copy (null:
  // no such key); valid until the next call that may change `key`.
  using HashFields = locksim::HashFields;
  const HashFields* hash_ref(std::string_view key, int64_t now_ms);

  // --- lists ---
  std::optional<std::string> lindex(std::string_view key, int64_t index, int64_t now_ms);
  std::optional<std::string> lpop(std::string_view key, int64_t now_ms);
  int64_t rpush(std::string_view key, std::string_view value, int64_t now_ms);  // new length
  int64_t lpush(std::string_view key, std::string_view value, int64_t now_ms);  // new length
  std::optional<std::string> rpop(std::string_view key, int64_t now_ms);
  // LSET: false if `index` is out of range (the key must exist: the caller
  // checks); LTRIM start stop with Redis's index rules (deletes an emptied list).
  bool lset(std::string_view key, int64_t index, std::string_view value, int64_t now_ms);
  void ltrim(std::string_view key, int64_t start, int64_t stop, int64_t now_ms);
  // LREM key count value: count > 0 from the head, < 0 from the tail, 0 all.
  int64_t lrem(std::string_view key, int64_t count, std::string_view value, int64_t now_ms);
  std::vector<std::string> lrange_all(std::string_view key, int64_t now_ms);
  using List = std::deque<std::string>;  // head first
  // LINDEX and LRANGE 0 -1 without a copy (same lookup, lazy expiry and
  // WRONGTYPE): null where LINDEX gives nil / there is no list. The pointer
  // stays valid until the next call that may change `key` (calls on other
  // keys leave it alone).
  const std::string* lindex_ref(std::string_view key, int64_t index, int64_t now_ms);
  const List* list_ref(std::string_view key, int64_t now_ms);
  // The fair waiting line `line` with each member's score in `deadlines`
  // (none if absent), head first, into *out (its buffers are reused). Same
  // lookups (and lazy expiry) as LRANGE then one ZSCORE per member; false,
  // with *out empty, where those would fail with WRONGTYPE.
  bool line_with_scores(std::string_view line, std::string_view deadlines, int64_t now_ms,
                        std::vector<LineWaiter>* out);
  // What line_with_scores would read, as versions: every write to a list or
  // sorted set gives it a new version from a counter that never repeats
  // (not even across clear()), 0 for an absent key, and deadlines_version is
  // 0 when the line is empty. Equal versions => equal line_with_scores
  // output. Same lookups (and lazy expiry) as line_with_scores; false where
  // it would return false.
  struct LineVersion {
    uint64_t line_version = 0;
    uint64_t deadlines_version = 0;
    bool operator==(const LineVersion&) const = default;
  };
  bool line_version(std::string_view line, std::string_view deadlines, int64_t now_ms,
                    LineVersion* out);
  int64_t llen(std::string_view key, int64_t now_ms);

  // --- sorted sets ---
  std::optional<double> zscore(std::string_view key, std::string_view member, int64_t now_ms);
  int64_t zadd(std::string_view key, double score, std::string_view member,
               int64_t now_ms);  // 1 if the member is new
  double zincrby(std::string_view key, double delta, std::string_view member, int64_t now_ms);
  int64_t zrem(std::string_view key, std::string_view member, int64_t now_ms);  // 1 if removed
  std::vector<std::string> zrange_all(std::string_view key, int64_t now_ms);  // members in order
  // The sorted set's (score, member) pairs in ZRANGE order, without a copy
  // (null: no such key); valid until the next call that may change `key`.
  // (score, member) ascending, members bytewise; also finds a
  // (score, std::string_view) pair without copying the member.
  struct ScoreMemberLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      if (a.first != b.first) return a.first < b.first;
      return std::string_view(a.second) < std::string_view(b.second);
    }
  };
  // An ordered set that also knows each element's rank (libstdc++'s policy
  // tree with order statistics): ZRANK, a range by rank and the bounds of a
  // range by score in O(log n), as Redis's skip list answers them.
  using ZSetOrder = __gnu_pbds::tree<std::pair<double, std::string>, __gnu_pbds::null_type, ScoreMemberLess,
                                     __gnu_pbds::rb_tree_tag, __gnu_pbds::tree_order_statistics_node_update>;
  const ZSetOrder* zset_ref(std::string_view key, int64_t now_ms);

  // --- pub/sub ---
  void publish(std::string_view channel, std::string_view payload);
  std::vector<Published> take_published();
  // Moves the log into *out (replacing its content) and keeps *out's old
  // buffer as the next log, so a steady state allocates nothing.
  void take_published_into(std::vector<Published>* out);
  size_t published_pending() const { return published_.size(); }

  // --- whole store ---
  // Names of the fields of hash `lock`, sorted; empty if absent/expired/not a hash.
  std::vector<std::string> holders(std::string_view lock, int64_t now_ms) const;
  // holders() into *out, reusing its buffers.
  void holders_into(std::string_view lock, int64_t now_ms, std::vector<std::string>* out) const;
  std::vector<KeyState> snapshot(int64_t now_ms) const;
  // Adds the fingerprint of every live key to *out (redis/state_digest.h):
  // name, type, value (hash fields and list elements in order, sorted-set
  // members with their scores) and expiry, every time relative to now_ms:
  // an expiry as expire_at - now_ms and a score as score - now_ms (scores
  // are the fair lock's deadlines). Stores whose digests are equal answer
  // every later command alike when each is asked at its own now_ms.
  // The keys' order plays no part. Deletes nothing.
  void digest(int64_t now_ms, StateDigest* out) const;
  void sweep_expired(int64_t now_ms);  // delete every key with expire_at < now_ms
  void clear();                        // server restart without persistence
  size_t key_count() const { return keys_.size(); }  // including not-yet-swept expired keys

  // Charges everything stored from now on (and what is stored already) to
  // `account` (null: none); the account must outlive the store or be
  // replaced first.
  void set_memory_account(MemoryAccount* account);
  // Gives the account back what the store holds (the store then has none).
  void detach_account() {
    if (account_ != nullptr) account_->release(charged_bytes_);
    account_ = nullptr;
  }
  size_t charged_bytes() const { return charged_bytes_; }  // what the store holds, as charged
  // Elements walked by operations whose cost grows with a value's size
  // (LREM, LTRIM, deleting a container, ZRANK, ranges of a sorted set...):
  // a counter that only grows; a script's budget is charged the difference
  // across each command (redis/lua_scripting.h). note_work() is for the
  // command handlers.
  uint64_t work() const { return work_; }
  void note_work(uint64_t elements) const { work_ += elements; }

 private:
  // Keys with an expiry by expire_at_ms; each entry points at its key's name
  // inside keys_ (node-based, so the name never moves while the key lives).
  using ExpiryIndex = std::multimap<int64_t, const std::string*>;
  // redis/key_hash.h. Only snapshot() iterates keys_, and it sorts, so the
  // hash never shows in any output.
  struct ZSet {
    std::unordered_map<std::string, double, KeyHash, std::equal_to<>> score_of;  // never iterated
    ZSetOrder ordered;
  };
  struct Value {
    uint64_t version = 0;  // see LineVersion; set by touch() on every write
    Type type = Type::String;
    std::string str;  // its capacity is what the store charges for it
    HashFields hash;  // insertion order
    List list;        // head first
    ZSet zset;
    size_t bytes = 0;  // charged for the value (the key's own share is kKeyBytes + its name)
    std::optional<int64_t> expire_at_ms;
    ExpiryIndex::iterator expiry_entry;  // valid iff expire_at_ms
  };
  // Looked up by std::string_view (heterogeneous lookup): no key is copied
  // to find it.
  using Keys = std::unordered_map<std::string, Value, KeyHash, std::equal_to<>>;

  static bool expired(const Value& v, int64_t now_ms) {
    return v.expire_at_ms && now_ms > *v.expire_at_ms;
  }
  static std::string render(const Value& v);
  // Memory: charge() before storing (throws StoreMemoryError, charging
  // nothing), release() after freeing; value bytes go to v.bytes.
  void charge(size_t bytes);
  void release(size_t bytes);
  void charge_value(Value& v, size_t bytes) {
    charge(bytes);
    v.bytes += bytes;
  }
  void release_value(Value& v, size_t bytes) {
    assert(bytes <= v.bytes);
    v.bytes -= bytes;
    release(bytes);
  }
  // Drops a value's content (of any type), releasing its bytes.
  void drop_content(Value& v);
  void touch(Value& v) { v.version = ++write_clock_; }

  // Live entry of `key` (keys_.end() if none), deleting it first if it has expired.
  Keys::iterator lookup(std::string_view key, int64_t now_ms);
  // Like lookup, but throws WRONGTYPE if it exists with another type.
  Keys::iterator lookup_typed(std::string_view key, Type type, int64_t now_ms);
  // Live value of `type`, created empty (no expiry) if absent.
  Keys::iterator lookup_or_create(std::string_view key, Type type, int64_t now_ms);
  // lookup_or_create, with `bytes` more charged to the value first.
  Value& charged_container(std::string_view key, Type type, size_t bytes, int64_t now_ms);
  Value* find_value(std::string_view key, int64_t now_ms) {
    auto it = lookup(key, now_ms);
    return it == keys_.end() ? nullptr : &it->second;
  }
  Value* find_typed(std::string_view key, Type type, int64_t now_ms) {
    auto it = lookup_typed(key, type, now_ms);
    return it == keys_.end() ? nullptr : &it->second;
  }
  void erase(Keys::iterator it);
  // keys_.find through recent_keys_.
  Keys::iterator find_key(std::string_view key);
  void forget_recent_keys() { recent_keys_.forget(); }
  // A new empty entry for `key` (absent), reusing a spare node if any.
  Keys::iterator create(std::string_view key);
  void set_expiry(Keys::iterator it, std::optional<int64_t> expire_at_ms);
  void erase_if_empty(Keys::iterator it);

  Keys keys_;                 // snapshot() sorts by name
  ExpiryIndex expiry_index_;  // one entry per key with an expiry
  std::vector<Published> published_;
  uint64_t write_clock_ = 0;  // never reset: versions stay unique across clear()
  // Nodes of erased keys, emptied, for create(): a lock hash or an unlock
  // latch comes and goes with every lock/unlock, so reusing their node (and
  // the key's buffer) saves two allocations each time. At most kSpareNodes.
  static constexpr size_t kSpareNodes = 16;
  std::vector<Keys::node_type> spare_nodes_;
  // The last few keys found: a script names the same two or three keys over
  // and over, and a hit costs a string compare instead of hashing and a
  // bucket walk. Emptied whenever an entry may go stale: a key erased (or
  // its node extracted), clear(), and a rehash (an insertion that changed
  // the bucket count), and a move of the store (both sides). Only speeds
  // find up: the same entries are found.
  struct RecentKey {
    const std::string* name = nullptr;  // the key inside its node; null: unused
    Keys::iterator it;
  };
  struct RecentKeys {
    static constexpr size_t kSize = 4;
    std::array<RecentKey, kSize> entries{};
    size_t next = 0;  // round robin

    RecentKeys() = default;
    RecentKeys(RecentKeys&& other) noexcept { other.forget(); }
    RecentKeys& operator=(RecentKeys&& other) noexcept {
      forget();
      other.forget();
      return *this;
    }
    void forget() {
      entries.fill(RecentKey{});
      next = 0;
    }
  };
  RecentKeys recent_keys_;
  MemoryAccount* account_ = nullptr;  // null: nothing refused
  size_t charged_bytes_ = 0;          // keys, values and the publish log, as charged
  size_t published_bytes_ = 0;        // the publish log's share
  mutable uint64_t work_ = 0;         // see work()
};

}  // namespace locksim
