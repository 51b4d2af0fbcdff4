#include "sim/diff_sequence.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "redis/score_format.h"

namespace locksim {

namespace {

// A weighted choice that *shrinks toward the first entry*: the index is drawn
// with gen::inRange over the total weight (which shrinks toward 0), then mapped
// onto the cumulative weights. (gen::weightedElement does not shrink.)
template <typename T>
rc::Gen<T> weighted(std::vector<std::pair<int, T>> choices) {
  int total = 0;
  for (const auto& c : choices) {
    assert(c.first > 0);
    total += c.first;
  }
  return rc::gen::map(rc::gen::inRange(0, total), [choices](int w) {
    for (const auto& c : choices) {
      if (w < c.first) return c.second;
      w -= c.first;
    }
    assert(false);
    return choices.back().second;
  });
}

constexpr int64_t kMaxBoundaryAdvanceMs = 1'000'000;  // never jump further than ~17 min

int64_t floor_ms(int64_t us) {
  int64_t q = us / 1000;
  if (us % 1000 < 0) --q;
  return q;
}

const KeyState* find_key(const std::vector<KeyState>& state, const std::string& key) {
  for (const KeyState& k : state) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

// Lowest score in a zset rendering "member:score,member:score" (ZRANGE order:
// the first entry). Members may contain ':' (owner ids), so the score is the
// text after the last ':' of the first entry.
bool first_score(const std::string& rendering, double* out) {
  const size_t comma = rendering.find(',');
  const std::string first = rendering.substr(0, comma);
  const size_t colon = first.rfind(':');
  if (colon == std::string::npos) return false;
  return parse_score(first.substr(colon + 1), out);
}

std::string request_id(int request) { return "r" + std::to_string(request); }

}  // namespace

rc::Gen<DiffStep> step_gen() {
  using rc::gen::set;
  using K = ScriptKind;
  return rc::gen::build<DiffStep>(
      set(&DiffStep::advance, weighted<AdvanceKind>({{8, AdvanceKind::By},
                                                     {3, AdvanceKind::ToLockExpiry},
                                                     {1, AdvanceKind::ToLatchExpiry},
                                                     {2, AdvanceKind::ToHeadDeadline}})),
      set(&DiffStep::advance_us, weighted<int64_t>({{5, 0},
                                                    {1, 1},
                                                    {1, 999},
                                                    {3, 1'000},
                                                    {2, 2'000},
                                                    {2, 10'000},
                                                    {2, 50'000},
                                                    {1, 1'000'000},
                                                    {1, 10'000'000},
                                                    {1, 31'000'000}})),
      set(&DiffStep::boundary_delta_ms, weighted<int64_t>({{3, 0}, {3, 1}, {2, -1}, {1, 2}})),
      set(&DiffStep::kind, weighted<ScriptKind>({{3, K::RlockAcquire},
                                                 {3, K::RlockRelease},
                                                 {2, K::RlockRenew},
                                                 {1, K::RlockForceRelease},
                                                 {4, K::FairAcquire},
                                                 {2, K::FairTryOnce},
                                                 {3, K::FairRelease},
                                                 {2, K::FairAcquireFailed},
                                                 {1, K::FairForceRelease}})),
      set(&DiffStep::lock, rc::gen::inRange(0, kDiffMaxLocks)),
      set(&DiffStep::owner, rc::gen::inRange(0, kDiffMaxOwners)),
      set(&DiffStep::request, rc::gen::inRange(0, kDiffRequestIds)),
      set(&DiffStep::lease_ms, weighted<int64_t>({{3, 30'000},
                                                  {1, 1},
                                                  {1, 2},
                                                  {1, 5},
                                                  {1, 10},
                                                  {1, 50},
                                                  {1, 100},
                                                  {2, 1'000},
                                                  {1, 0}})),
      set(&DiffStep::wait_ms, weighted<int64_t>({{3, 5'000},
                                                 {1, 1},
                                                 {1, 10},
                                                 {1, 50},
                                                 {1, 100},
                                                 {2, 1'000},
                                                 {1, 300'000},
                                                 {1, 0}})),
      set(&DiffStep::latch_ttl_ms, weighted<int64_t>({{6, 10'000}, {2, 1}, {2, 10}, {2, 1'000}, {1, 0}, {1, -1}})),
      set(&DiffStep::client_skew_ms,
          weighted<int64_t>({{8, 0}, {1, 1}, {1, -1}, {1, 50}, {1, -50}, {1, 2'000}, {1, -2'000}})));
}

DiffSequence ShrinkableSequence::value() const {
  DiffSequence out;
  out.lock_count = lock_count;
  out.owner_count = owner_count;
  out.steps.reserve(steps.size());
  for (const auto& s : steps) out.steps.push_back(s.value());
  return out;
}

ShrinkableSequence generate_sequence(rc::Random random, int length) {
  assert(length >= 0);
  constexpr int kSize = 100;  // RapidCheck's nominal size; our gens ignore it
  ShrinkableSequence out;
  out.lock_count = rc::gen::inRange(2, kDiffMaxLocks + 1)(random.split(), kSize).value();
  out.owner_count = rc::gen::inRange(2, kDiffMaxOwners + 1)(random.split(), kSize).value();
  const auto gen = step_gen();
  out.steps.reserve(static_cast<size_t>(length));
  for (int i = 0; i < length; ++i) out.steps.push_back(gen(random.split(), kSize));
  return out;
}

std::string diff_lock_name(int lock) { return std::string(kDiffKeyPrefix) + "L" + std::to_string(lock); }

std::string diff_owner_name(int owner) {
  // Owners 0 and 1 are different clients; 2 is a second thread of client 0.
  static const char* const kOwners[kDiffMaxOwners] = {"c0-uuid:1", "c1-uuid:1", "c0-uuid:2", "c2-uuid:1"};
  assert(owner >= 0 && owner < kDiffMaxOwners);
  return kOwners[owner];
}

ResolvedStep resolve_step(const DiffSequence& seq, const DiffStep& step, int64_t now_us,
                          const std::vector<KeyState>& state) {
  assert(seq.lock_count >= 1 && seq.lock_count <= kDiffMaxLocks);
  assert(seq.owner_count >= 1 && seq.owner_count <= kDiffMaxOwners);
  const std::string lock = diff_lock_name(step.lock % seq.lock_count);
  const std::string latch = LockKeys::latch(lock, request_id(step.request % kDiffRequestIds));

  int64_t advance_ms = 0;  // for the boundary kinds
  switch (step.advance) {
    case AdvanceKind::By:
      break;
    case AdvanceKind::ToLockExpiry:
    case AdvanceKind::ToLatchExpiry: {
      const KeyState* k = find_key(state, step.advance == AdvanceKind::ToLockExpiry ? lock : latch);
      if (k != nullptr && k->pttl_ms >= 0) advance_ms = k->pttl_ms + step.boundary_delta_ms;
      break;
    }
    case AdvanceKind::ToHeadDeadline: {
      const KeyState* k = find_key(state, LockKeys::deadlines(lock));
      double score = 0;
      if (k != nullptr && first_score(k->value, &score)) {
        const int64_t client_now_ms = floor_ms(now_us) + step.client_skew_ms;
        advance_ms = static_cast<int64_t>(score) - client_now_ms + step.boundary_delta_ms;
      }
      break;
    }
  }
  advance_ms = std::clamp<int64_t>(advance_ms, 0, kMaxBoundaryAdvanceMs);

  ResolvedStep out;
  out.server_now_us = now_us + (step.advance == AdvanceKind::By ? std::max<int64_t>(step.advance_us, 0)
                                                                 : advance_ms * 1000);
  ScriptParams& p = out.call.params;
  out.call.kind = step.kind;
  p.lock = lock;
  p.owner = diff_owner_name(step.owner % seq.owner_count);
  p.token = p.owner;  // as a design with per-owner tokens sends it
  p.channel = LockKeys::channel(lock);
  p.channel_prefix = LockKeys::channel(lock);
  p.line = LockKeys::line(lock);
  p.deadlines = LockKeys::deadlines(lock);
  p.latch = latch;
  p.message = step.message;
  p.lease_ms = step.lease_ms;
  p.wait_ms = step.wait_ms;
  p.now_ms = floor_ms(out.server_now_us) + step.client_skew_ms;
  p.latch_ttl_ms = step.latch_ttl_ms;
  return out;
}

std::string describe_advance(const DiffStep& step) {
  auto signed_ms = [](int64_t ms) { return (ms >= 0 ? "+" : "") + std::to_string(ms) + " ms"; };
  switch (step.advance) {
    case AdvanceKind::By: {
      const int64_t us = step.advance_us;
      return "advance " + std::to_string(us / 1000) + "." + std::to_string(1000 + us % 1000).substr(1) + " ms";
    }
    case AdvanceKind::ToLockExpiry: return "advance to the lock's expiry " + signed_ms(step.boundary_delta_ms);
    case AdvanceKind::ToLatchExpiry: return "advance to the latch's expiry " + signed_ms(step.boundary_delta_ms);
    case AdvanceKind::ToHeadDeadline:
      return "advance to the line head's deadline (client clock) " + signed_ms(step.boundary_delta_ms);
  }
  return "?";
}

std::string describe_call(const ScriptCall& call) {
  const ScriptParams& p = call.params;
  std::string out(script_name(call.kind));
  auto add = [&out](const char* name, const std::string& v) { out += std::string(" ") + name + "=" + v; };
  auto add_int = [&add](const char* name, int64_t v) { add(name, std::to_string(v)); };
  switch (call.kind) {
    case ScriptKind::RlockAcquire:
    case ScriptKind::RlockRenew:
      add("lock", p.lock), add("owner", p.owner), add_int("lease_ms", p.lease_ms);
      break;
    case ScriptKind::RlockRelease:
    case ScriptKind::SpinRelease:
      add("lock", p.lock), add("owner", p.owner), add("latch", p.latch), add_int("lease_ms", p.lease_ms),
          add_int("latch_ttl_ms", p.latch_ttl_ms);
      break;
    case ScriptKind::RlockForceRelease:
    case ScriptKind::SpinForceRelease:
      add("lock", p.lock);
      break;
    case ScriptKind::FairAcquire:
    case ScriptKind::FairTryOnce:
      add("lock", p.lock), add("owner", p.owner), add_int("lease_ms", p.lease_ms),
          add_int("wait_ms", p.wait_ms), add_int("now_ms", p.now_ms);
      break;
    case ScriptKind::FairRelease:
      add("lock", p.lock), add("owner", p.owner), add("latch", p.latch), add_int("lease_ms", p.lease_ms),
          add_int("now_ms", p.now_ms), add_int("latch_ttl_ms", p.latch_ttl_ms);
      break;
    case ScriptKind::FairAcquireFailed:
      add("line", p.line), add("owner", p.owner), add_int("wait_ms", p.wait_ms);
      break;
    case ScriptKind::FairForceRelease:
      add("lock", p.lock), add_int("now_ms", p.now_ms);
      break;
    case ScriptKind::FasterMultiAcquire:
    case ScriptKind::FasterMultiRenew:
      add("lock", p.lock), add("owner", p.owner), add_int("lease_ms", p.lease_ms), add_int("now_ms", p.now_ms),
          add("values", p.values);
      break;
    case ScriptKind::FasterMultiRelease:
      add("lock", p.lock), add("owner", p.owner), add("latch", p.latch), add_int("lease_ms", p.lease_ms),
          add_int("now_ms", p.now_ms), add_int("latch_ttl_ms", p.latch_ttl_ms), add("values", p.values);
      break;
    case ScriptKind::FasterMultiForceRelease:
      add("lock", p.lock);
      break;
  }
  return out;
}

}  // namespace locksim
