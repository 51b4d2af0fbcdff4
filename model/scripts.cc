#include "model/scripts.h"

#include "model/faster_multi_fields.h"
#include "model/script_branches.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>

namespace locksim {

namespace {

// A Lua number returned from a script becomes an integer reply, truncated
// toward zero.
Reply lua_number_reply(double v) {
  assert(std::isfinite(v) && std::fabs(v) < 9.2e18);
  return Reply::of_int(static_cast<int64_t>(std::trunc(v)));
}

// `return tonumber(GET(latch))`: an integer for the "0"/"1" the scripts
// write; anything that is not a plain integer (never written by the scripts)
// is answered as nil.
Reply latch_reply(const std::string& value) {
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || ptr != value.data() + value.size() || value.empty()) return Reply::nil();
  return Reply::of_int(v);
}

// One script execution: the store, the frozen server clock, the parameters and
// the variant. Each method is one script of scripts.h, step by step.
class Execution {
 public:
  Execution(Store& store, const ScriptParams& p, int64_t server_now_ms, ModelVariant variant)
      : s_(store), p_(p), now_(server_now_ms), variant_(variant) {}

  // The branches taken so far (model/script_branches.h).
  uint64_t branches() const { return branches_; }

  Reply run(ScriptKind kind) {
    switch (kind) {
      case ScriptKind::RlockAcquire: return rlock_acquire();
      case ScriptKind::RlockRelease: return rlock_release();
      case ScriptKind::RlockRenew: return rlock_renew();
      case ScriptKind::RlockForceRelease: return rlock_force_release();
      case ScriptKind::FairAcquire: return fair_acquire(/*try_once=*/false);
      case ScriptKind::FairTryOnce: return fair_acquire(/*try_once=*/true);
      case ScriptKind::FairRelease: return fair_release();
      case ScriptKind::FairAcquireFailed: return fair_acquire_failed();
      case ScriptKind::FairForceRelease: return fair_force_release();
      case ScriptKind::SpinRelease: return spin_release();
      case ScriptKind::SpinForceRelease: return spin_force_release();
      case ScriptKind::FasterMultiAcquire: return faster_multi_acquire();
      case ScriptKind::FasterMultiRelease: return faster_multi_release();
      case ScriptKind::FasterMultiRenew: return faster_multi_renew();
      case ScriptKind::FasterMultiForceRelease: return faster_multi_force_release();
    }
    assert(false && "unknown script kind");
    return Reply::error("ERR unknown script");
  }

 private:
  bool is(ModelVariant v) const { return variant_ == v; }
  void took(ScriptBranch b) { branches_ |= branch_bit(b); }

  void set_latch(const char* value) { s_.set(p_.latch, value, p_.latch_ttl_ms, now_); }

  // ---- reentrant lock ----

  Reply rlock_acquire() {
    const bool absent = !s_.exists(p_.lock, now_);
    if (absent || s_.hexists(p_.lock, p_.owner, now_)) {
      took(absent ? ScriptBranch::RlockAcquireFree : ScriptBranch::RlockAcquireReentry);
      s_.hincrby(p_.lock, p_.owner, 1, now_);
      if (absent || !is(ModelVariant::ReentryNoExpiryReset)) s_.pexpire(p_.lock, p_.lease_ms, now_);
      return Reply::nil();
    }
    took(ScriptBranch::RlockAcquireHeld);
    return Reply::of_int(s_.pttl(p_.lock, now_));
  }

  Reply rlock_release() {
    if (auto v = s_.get(p_.latch, now_)) {  // step 1
      took(ScriptBranch::RlockReleaseLatch);
      return latch_reply(*v);
    }
    if (!is(ModelVariant::ReleaseNoOwnerCheck) && !s_.hexists(p_.lock, p_.owner, now_)) {
      took(ScriptBranch::RlockReleaseNotOwner);
      return Reply::nil();  // step 2
    }
    if (s_.hincrby(p_.lock, p_.owner, -1, now_) > 0) {  // step 3
      took(ScriptBranch::RlockReleaseStillHeld);
      s_.pexpire(p_.lock, p_.lease_ms, now_);
      set_latch("0");
      return Reply::of_int(0);
    }
    took(ScriptBranch::RlockReleaseReleased);
    s_.del(p_.lock, now_);  // step 4
    if (!is(ModelVariant::ReleaseNoPublish)) s_.publish(p_.channel, p_.message);
    set_latch("1");
    return Reply::of_int(1);
  }

  Reply rlock_renew() {
    if (is(ModelVariant::RenewNoOwnerCheck)) {
      const int64_t renewed = s_.pexpire(p_.lock, p_.lease_ms, now_);
      took(renewed == 1 ? ScriptBranch::RlockRenewRenewed : ScriptBranch::RlockRenewRefused);
      return Reply::of_int(renewed);
    }
    if (s_.hexists(p_.lock, p_.owner, now_)) {
      took(ScriptBranch::RlockRenewRenewed);
      s_.pexpire(p_.lock, p_.lease_ms, now_);
      return Reply::of_int(1);
    }
    took(ScriptBranch::RlockRenewRefused);
    return Reply::of_int(0);
  }

  Reply rlock_force_release() {
    if (s_.del(p_.lock, now_) == 1) {
      took(ScriptBranch::RlockForceReleaseDeleted);
      s_.publish(p_.channel, p_.message);
      return Reply::of_int(1);
    }
    took(ScriptBranch::RlockForceReleaseAbsent);
    return Reply::of_int(0);
  }

  // ---- spin lock (section 4b): the reentrant lock's hash, nobody published to ----

  Reply spin_release() {
    if (auto v = s_.get(p_.latch, now_)) {
      took(ScriptBranch::SpinReleaseLatch);
      return latch_reply(*v);
    }
    if (!s_.hexists(p_.lock, p_.owner, now_)) {
      took(ScriptBranch::SpinReleaseNotOwner);
      return Reply::nil();
    }
    if (s_.hincrby(p_.lock, p_.owner, -1, now_) > 0) {
      took(ScriptBranch::SpinReleaseStillHeld);
      s_.pexpire(p_.lock, p_.lease_ms, now_);
      set_latch("0");
      return Reply::of_int(0);
    }
    took(ScriptBranch::SpinReleaseReleased);
    s_.del(p_.lock, now_);
    set_latch("1");
    return Reply::of_int(1);
  }

  Reply spin_force_release() {
    if (s_.del(p_.lock, now_) == 1) {
      took(ScriptBranch::SpinForceReleaseDeleted);
      return Reply::of_int(1);
    }
    took(ScriptBranch::SpinForceReleaseAbsent);
    return Reply::of_int(0);
  }

  // ---- faster multi-lock (section 4b): one hash per group ----

  // `tonumber(HGET(...))` of a deadline our scripts wrote; a field that is no
  // number fails the comparison in Lua, so it fails the script here.
  static double deadline_number(const std::string& text) {
    double v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
      throw StoreError("ERR attempt to compare nil with number");
    }
    return v;
  }

  // HSET(lock, field, now_ms + lease_ms) unless the field already holds a
  // later deadline.
  void raise_deadline(const std::string& field) {
    const int64_t deadline = p_.now_ms + p_.lease_ms;
    const auto current = s_.hget(p_.lock, field, now_);
    if (!current || deadline_number(*current) < static_cast<double>(deadline)) {
      s_.hset(p_.lock, field, std::to_string(deadline), now_);
    }
  }

  void pexpire_if_shorter() {
    if (s_.pttl(p_.lock, now_) < p_.lease_ms) s_.pexpire(p_.lock, p_.lease_ms, now_);
  }

  Reply faster_multi_acquire() {
    const std::vector<std::string> values = split_values(p_.values);
    const bool absent = !s_.exists(p_.lock, now_);
    if (!absent) {  // 1. refuse while another owner's deadline is ahead of the caller's clock
      for (const std::string& v : values) {
        const auto other = s_.hget(p_.lock, v, now_);
        if (!other || *other == p_.owner) continue;
        const auto deadline = s_.hget(p_.lock, value_expire_field(v, *other), now_);
        const bool live = deadline && (is(ModelVariant::FasterMultiExpiryInverted)
                                           ? static_cast<double>(p_.now_ms) >= deadline_number(*deadline)
                                           : deadline_number(*deadline) > static_cast<double>(p_.now_ms));
        if (live) {
          took(ScriptBranch::FasterMultiAcquireRefused);
          return Reply::of_int(s_.pttl(p_.lock, now_));
        }
      }
    }
    bool took_expired = false;  // 2. take every value
    for (const std::string& v : values) {
      const auto other = s_.hget(p_.lock, v, now_);
      if (other && *other != p_.owner) {
        s_.hdel(p_.lock, value_expire_field(v, *other), now_);
        s_.hdel(p_.lock, value_count_field(v, *other), now_);
        took_expired = true;
      }
      s_.hset(p_.lock, v, p_.owner, now_);
      raise_deadline(value_expire_field(v, p_.owner));
      s_.hincrby(p_.lock, value_count_field(v, p_.owner), 1, now_);
    }
    pexpire_if_shorter();  // 3.
    took(absent         ? ScriptBranch::FasterMultiAcquireNew
         : took_expired ? ScriptBranch::FasterMultiAcquireTookExpired
                        : ScriptBranch::FasterMultiAcquireGranted);
    return Reply::nil();
  }

  Reply faster_multi_release() {
    if (auto v = s_.get(p_.latch, now_)) {  // 1.
      took(ScriptBranch::FasterMultiReleaseLatch);
      return latch_reply(*v);
    }
    if (!s_.exists(p_.lock, now_)) {  // 2.
      took(ScriptBranch::FasterMultiReleaseGone);
      s_.publish(p_.channel, p_.message);
      return Reply::nil();
    }
    const std::vector<std::string> values = split_values(p_.values);
    auto owned = [this](const std::string& v) {
      const auto deadline = s_.hget(p_.lock, value_expire_field(v, p_.owner), now_);
      return deadline && deadline_number(*deadline) >= static_cast<double>(p_.now_ms);
    };
    const bool frees_early = is(ModelVariant::FasterMultiReleaseFreesEarly);
    if (!frees_early) {
      for (const std::string& v : values) {  // 3. every value the caller's, or nothing changes
        if (!owned(v)) {
          took(ScriptBranch::FasterMultiReleaseNotOwned);
          return Reply::nil();
        }
      }
    }
    bool freed_any = false;  // 4.
    bool freed_all = true;
    for (const std::string& v : values) {
      if (frees_early && !owned(v)) {  // the earlier values are already given back
        took(ScriptBranch::FasterMultiReleaseNotOwned);
        return Reply::nil();
      }
      if (s_.hincrby(p_.lock, value_count_field(v, p_.owner), -1, now_) > 0) {
        raise_deadline(value_expire_field(v, p_.owner));
        freed_all = false;
        continue;
      }
      s_.hdel(p_.lock, v, now_);
      s_.hdel(p_.lock, value_expire_field(v, p_.owner), now_);
      s_.hdel(p_.lock, value_count_field(v, p_.owner), now_);
      freed_any = true;
    }
    if (freed_any) s_.publish(p_.channel, p_.message);  // 5.
    if (freed_all) {
      took(ScriptBranch::FasterMultiReleaseReleased);
      set_latch("1");
      return Reply::of_int(1);
    }
    took(ScriptBranch::FasterMultiReleaseStillHeld);
    pexpire_if_shorter();
    set_latch("0");
    return Reply::of_int(0);
  }

  Reply faster_multi_renew() {
    const std::vector<std::string> values = split_values(p_.values);
    if (is(ModelVariant::FasterMultiRenewUnheld)) {
      if (values.empty() || !s_.exists(p_.lock, now_)) {
        took(ScriptBranch::FasterMultiRenewRefused);
        return Reply::of_int(0);
      }
      took(ScriptBranch::FasterMultiRenewRenewed);
      for (const std::string& v : values) raise_deadline(value_expire_field(v, p_.owner));
      s_.pexpire(p_.lock, p_.lease_ms, now_);
      return Reply::of_int(1);
    }
    bool all_held = !values.empty();
    for (const std::string& v : values) {
      const auto holder = s_.hget(p_.lock, v, now_);
      if (!holder || *holder != p_.owner) all_held = false;
    }
    if (!all_held) {
      took(ScriptBranch::FasterMultiRenewRefused);
      return Reply::of_int(0);
    }
    took(ScriptBranch::FasterMultiRenewRenewed);
    for (const std::string& v : values) raise_deadline(value_expire_field(v, p_.owner));
    s_.pexpire(p_.lock, p_.lease_ms, now_);
    return Reply::of_int(1);
  }

  Reply faster_multi_force_release() {
    if (s_.del(p_.lock, now_) == 1) {
      took(ScriptBranch::FasterMultiForceReleaseDeleted);
      s_.publish(p_.channel, p_.message);
      return Reply::of_int(1);
    }
    took(ScriptBranch::FasterMultiForceReleaseAbsent);
    return Reply::of_int(0);
  }

  // ---- fair lock ----

  // Pops waiters whose deadline (client clock) is <= now_ms, stopping at the
  // first live head or at a head without a deadline. Bounded by the line's length.
  void purge_stale_waiters() {
    const int64_t limit = s_.llen(p_.line, now_);
    for (int64_t i = 0; i < limit; ++i) {
      // `head` stays valid until the lpop (the calls between touch only
      // the deadlines key).
      const std::string* head = s_.lindex_ref(p_.line, 0, now_);
      if (head == nullptr) {
        took(ScriptBranch::PurgeEmpty);
        return;
      }
      const auto deadline = s_.zscore(p_.deadlines, *head, now_);
      if (!deadline) {
        took(ScriptBranch::PurgeNoDeadline);
        return;
      }
      if (*deadline > static_cast<double>(p_.now_ms)) {
        took(ScriptBranch::PurgeLiveHead);
        return;
      }
      took(ScriptBranch::PurgePopped);
      s_.zrem(p_.deadlines, *head, now_);
      s_.lpop(p_.line, now_);
    }
    if (limit == 0) took(ScriptBranch::PurgeEmpty);
  }

  // LINDEX line 0 == member.
  bool is_line_head(const std::string& member) {
    const std::string* head = s_.lindex_ref(p_.line, 0, now_);
    return head != nullptr && *head == member;
  }

  bool line_has_head() { return s_.lindex_ref(p_.line, 0, now_) != nullptr; }

  void publish_to_head() {
    if (is(ModelVariant::ReleaseNoPublish)) return;
    publish_to_head_always();
  }
  void publish_to_head_always() {
    if (const std::string* head = s_.lindex_ref(p_.line, 0, now_)) s_.publish(p_.channel_prefix + ":" + *head, p_.message);
  }

  Reply fair_acquire(bool try_once) {
    const double now_client = static_cast<double>(p_.now_ms);
    const double wait = static_cast<double>(p_.wait_ms);
    // 1.
    if (try_once || !is(ModelVariant::FairNoStalePurge)) purge_stale_waiters();
    // 2.
    if (!s_.exists(p_.lock, now_)) {
      const bool line_empty = !s_.exists(p_.line, now_);
      if (line_empty || is_line_head(p_.owner)) {
        if (try_once) {
          took(line_empty ? ScriptBranch::FairTryOnceFreeLine : ScriptBranch::FairTryOnceHead);
        } else {
          took(line_empty ? ScriptBranch::FairAcquireFreeLine : ScriptBranch::FairAcquireHead);
        }
        s_.lpop(p_.line, now_);
        s_.zrem(p_.deadlines, p_.owner, now_);
        for (const std::string& m : s_.zrange_all(p_.deadlines, now_)) {
          s_.zincrby(p_.deadlines, -wait, m, now_);
        }
        s_.hset(p_.lock, p_.owner, "1", now_);
        s_.pexpire(p_.lock, p_.lease_ms, now_);
        return Reply::nil();
      }
      if (!try_once) took(ScriptBranch::FairAcquireBehindHead);
    }
    // 3.
    if (s_.hexists(p_.lock, p_.owner, now_)) {
      took(try_once ? ScriptBranch::FairTryOnceReentry : ScriptBranch::FairAcquireReentry);
      s_.hincrby(p_.lock, p_.owner, 1, now_);
      s_.pexpire(p_.lock, p_.lease_ms, now_);
      return Reply::nil();
    }
    if (try_once) {
      took(ScriptBranch::FairTryOnceNotAcquired);
      return Reply::of_int(1);
    }

    const bool same_deadline = is(ModelVariant::FairSameDeadline);
    // 4.
    if (const auto own_deadline = s_.zscore(p_.deadlines, p_.owner, now_)) {
      took(ScriptBranch::FairAcquireWaiting);
      if (is(ModelVariant::FairTtlFromDeadline)) return lua_number_reply(*own_deadline - wait - now_client);
      if (same_deadline) s_.zadd(p_.deadlines, now_client + wait, p_.owner, now_);
      if (is(ModelVariant::FairWaitForHead) && !s_.exists(p_.lock, now_)) {
        const std::string* head = s_.lindex_ref(p_.line, 0, now_);
        if (head != nullptr && *head != p_.owner) {
          if (const auto head_deadline = s_.zscore(p_.deadlines, *head, now_)) {
            return lua_number_reply(std::min(static_cast<double>(kWaitForHeadRecheckMs),
                                             std::max(0.0, *head_deadline - now_client)));
          }
        }
      }
      return Reply::of_int(std::max<int64_t>(0, s_.pttl(p_.lock, now_)));
    }
    // 5.
    double ttl = 0;
    double deadline = 0;
    if (same_deadline) {
      took(ScriptBranch::FairAcquireEnqueueFirst);
      ttl = static_cast<double>(s_.pttl(p_.lock, now_));
      deadline = now_client + wait;
    } else {
      const std::string* last = s_.lindex_ref(p_.line, -1, now_);
      std::optional<double> last_deadline;
      if (last != nullptr && *last != p_.owner) last_deadline = s_.zscore(p_.deadlines, *last, now_);
      took(last_deadline ? ScriptBranch::FairAcquireEnqueueAfter : ScriptBranch::FairAcquireEnqueueFirst);
      ttl = last_deadline ? *last_deadline - now_client : static_cast<double>(s_.pttl(p_.lock, now_));
      deadline = ttl + wait + now_client;
    }
    if (s_.zadd(p_.deadlines, deadline, p_.owner, now_) == 1) s_.rpush(p_.line, p_.owner, now_);
    return lua_number_reply(ttl);
  }

  Reply fair_release() {
    if (auto v = s_.get(p_.latch, now_)) {  // 1.
      took(ScriptBranch::FairReleaseLatch);
      return latch_reply(*v);
    }
    purge_stale_waiters();            // 2.
    if (!s_.exists(p_.lock, now_)) {  // 3.
      took(line_has_head() ? ScriptBranch::FairReleaseFreeNotify : ScriptBranch::FairReleaseFreeNoWaiter);
      publish_to_head();
      set_latch("1");
      return Reply::of_int(1);
    }
    if (!s_.hexists(p_.lock, p_.owner, now_)) {  // 4.
      took(ScriptBranch::FairReleaseNotOwner);
      return Reply::nil();
    }
    if (s_.hincrby(p_.lock, p_.owner, -1, now_) > 0) {  // 5.
      took(ScriptBranch::FairReleaseStillHeld);
      s_.pexpire(p_.lock, p_.lease_ms, now_);
      set_latch("0");
      return Reply::of_int(0);
    }
    s_.del(p_.lock, now_);  // 6.
    set_latch("1");
    took(line_has_head() ? ScriptBranch::FairReleaseReleasedNotify : ScriptBranch::FairReleaseReleasedNoWaiter);
    publish_to_head();
    return Reply::of_int(1);
  }

  Reply fair_force_release() {
    purge_stale_waiters();
    if (s_.del(p_.lock, now_) == 1) {
      took(line_has_head() ? ScriptBranch::FairForceReleaseDeletedNotify
                           : ScriptBranch::FairForceReleaseDeletedNoWaiter);
      publish_to_head_always();
      return Reply::of_int(1);
    }
    took(ScriptBranch::FairForceReleaseAbsent);
    return Reply::of_int(0);
  }

  Reply fair_acquire_failed() {
    if (is(ModelVariant::FairNoAcquireFailed)) return absent_script_reply(ScriptKind::FairAcquireFailed);
    // The line itself, not a copy: the zincrby calls touch only the deadlines key.
    if (const Store::List* members = s_.list_ref(p_.line, now_)) {
      const auto first = std::find(members->begin(), members->end(), p_.owner);
      if (first == members->end()) {
        took(ScriptBranch::FairAcquireFailedNotInLine);
      } else {
        took(first + 1 == members->end() ? ScriptBranch::FairAcquireFailedLast
                                         : ScriptBranch::FairAcquireFailedWithFollowers);
        for (auto it = first + 1; it != members->end(); ++it) {
          s_.zincrby(p_.deadlines, -static_cast<double>(p_.wait_ms), *it, now_);
        }
      }
    } else {
      took(ScriptBranch::FairAcquireFailedNotInLine);
    }
    s_.zrem(p_.deadlines, p_.owner, now_);
    s_.lrem(p_.line, 0, p_.owner, now_);
    return Reply::nil();
  }

  Store& s_;
  const ScriptParams& p_;
  const int64_t now_;
  const ModelVariant variant_;
  uint64_t branches_ = 0;
};

}  // namespace

Reply absent_script_reply(ScriptKind kind) {
  return Reply::error("ERR locksim: " + std::string(script_name(kind)) + " is absent from this script pack");
}

void run_script_into(Store& store, const ScriptCall& call, int64_t server_now_ms, ModelVariant variant,
                     ExecResult* out) {
  assert(out != nullptr);
  assert(store.published_pending() == 0);
  Execution execution(store, call.params, server_now_ms, variant);
  try {
    out->reply = execution.run(call.kind);
  } catch (const StoreError& e) {
    out->reply = Reply::error(e.what());
  }
  out->branches = execution.branches();
  out->error_declared = variant == ModelVariant::FairNoAcquireFailed && call.kind == ScriptKind::FairAcquireFailed;
  store.take_published_into(&out->published);
  store.holders_into(call.params.lock, server_now_ms, &out->holders_after);
  out->line_known = false;
  out->line_token = 0;
}

ExecResult run_script(Store& store, const ScriptCall& call, int64_t server_now_ms,
                      ModelVariant variant) {
  ExecResult result;
  run_script_into(store, call, server_now_ms, variant, &result);
  return result;
}

}  // namespace locksim
