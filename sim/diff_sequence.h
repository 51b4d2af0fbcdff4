// DiffSequence: a random sequence of lock-script calls for the differential
// test (sim/differential.h), in *symbolic* form so that shrinking stays
// meaningful: locks, owners and request ids are small indices, and a time
// advance may be "to the expiry of this lock's key, plus delta" — resolved at
// run time against the reference backend's state, so advances land exactly on
// and around expiry boundaries (now == expire_at, expire_at + 1, ...).
//
// Contract:
//  - step_gen() is a RapidCheck generator of one step; steps shrink toward
//    rlock_acquire, index 0, small advances and plain values.
//  - generate_sequence(random, length) is deterministic given `random`.
//  - resolve_step() turns a symbolic step into (server time, ScriptCall) given
//    the current server time and the reference state; pure and deterministic.
//  - Names: locks "lsim:L<i>", owners "c<k>-uuid:<t>", request ids "r<i>";
//    every key a call touches contains kDiffKeyPrefix.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "redis/exec_result.h"
#include "model/script_call.h"

namespace locksim {

inline constexpr const char* kDiffKeyPrefix = "lsim:";
inline constexpr int kDiffMaxLocks = 3;
inline constexpr int kDiffMaxOwners = 4;
inline constexpr int kDiffRequestIds = 4;
// Server time at the start of every sequence: 1e15 µs (~2001-09-09).
inline constexpr int64_t kDiffEpochUs = 1'000'000'000'000'000;

enum class AdvanceKind {
  By,               // advance by advance_us
  ToLockExpiry,     // to the expiry of the step's lock hash, + boundary_delta_ms
  ToLatchExpiry,    // to the expiry of the step's latch key, + boundary_delta_ms
  ToHeadDeadline,   // to the line head's deadline in the step's client clock, + delta
};

struct DiffStep {
  AdvanceKind advance = AdvanceKind::By;
  int64_t advance_us = 0;
  int64_t boundary_delta_ms = 0;
  ScriptKind kind = ScriptKind::RlockAcquire;
  int lock = 0;         // index, taken modulo the sequence's lock count
  int owner = 0;        // index, taken modulo the sequence's owner count
  int request = 0;      // latch request id index (repeats = retried releases)
  int64_t lease_ms = 30'000;
  int64_t wait_ms = 5'000;
  int64_t latch_ttl_ms = 10'000;
  int64_t client_skew_ms = 0;  // fair lock: client clock = server ms + skew
  std::string message = "0";
};

struct DiffSequence {
  int lock_count = 2;
  int owner_count = 2;
  std::vector<DiffStep> steps;
};

// RapidCheck generator of one symbolic step.
rc::Gen<DiffStep> step_gen();

// A sequence plus the RapidCheck shrink tree of each of its steps.
struct ShrinkableSequence {
  int lock_count = 2;
  int owner_count = 2;
  std::vector<rc::Shrinkable<DiffStep>> steps;
  DiffSequence value() const;
};
ShrinkableSequence generate_sequence(rc::Random random, int length);

struct ResolvedStep {
  int64_t server_now_us = 0;
  ScriptCall call;
};

std::string diff_lock_name(int lock);
std::string diff_owner_name(int owner);

// Resolves step `step` of `seq` at current server time `now_us`, with
// `state` = the reference backend's snapshot at now_us.
ResolvedStep resolve_step(const DiffSequence& seq, const DiffStep& step, int64_t now_us,
                          const std::vector<KeyState>& state);

// "+2.000 ms to lsim:L0 expiry +1 ms" etc., for counterexample printing.
std::string describe_advance(const DiffStep& step);
// "fair_acquire lock=lsim:L0 owner=c0-uuid:1 lease_ms=.. wait_ms=.. now_ms=.."
std::string describe_call(const ScriptCall& call);

}  // namespace locksim
