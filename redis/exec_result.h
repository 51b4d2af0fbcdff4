// ExecResult, Published, KeyState: what one script execution produces and how
// a key looks from outside. Shared by the model (model/scripts.h) and every
// Backend (sim/backend.h); they live in model/ so that model/ depends on
// nothing of ours.
//  - ExecResult: the reply, the messages PUBLISHed by that one execution in
//    order (kept even when the script later fails: Redis has no rollback), and
//    the owner fields of params.lock right after it, sorted; for fair-lock
//    scripts (params.line set) also the line right after it, head first,
//    each owner with its deadline score (none if the sorted set lacks it),
//    and optionally a line_token naming that line's content.
//  - KeyState: one key with its type, canonical value rendering (see
//    redis/store.h for the rendering rules) and PTTL (-1: no expiry).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "redis/reply.h"

namespace locksim {

struct Published {
  std::string channel;
  std::string payload;
  bool operator==(const Published&) const = default;
};

struct LineWaiter {
  std::string owner;
  std::optional<double> deadline_ms;
  bool operator==(const LineWaiter&) const = default;
};

struct ExecResult {
  Reply reply;
  // The reply is an error the script pack declares part of its conventions
  // (an absent script's answer, or an error its manifest lists): not a
  // script failure. On the model only the FairNoAcquireFailed variant's
  // absent fair_acquire_failed declares one (model/variant.h).
  bool error_declared = false;
  std::vector<Published> published;
  std::vector<std::string> holders_after;  // owner fields of params.lock, sorted
  bool line_known = false;                 // line_after filled (fair scripts)
  std::vector<LineWaiter> line_after;      // params.line after the script, head first
  // 0, or a token for line_after from a backend that caches lines: within
  // one backend, equal non-zero tokens mean equal line_after (so a caller
  // may keep its own copy per token instead of copying the line again).
  uint64_t line_token = 0;
  // The model only: the branches of model/script_branches.h this execution
  // took (a mask of branch_bit()); 0 on the other backends.
  uint64_t branches = 0;
};

// One key as seen by a client: type ("string", "hash", "list", "zset"), a
// canonical value rendering, and PTTL (-1 no expiry).
struct KeyState {
  std::string key;
  std::string type;
  std::string value;
  int64_t pttl_ms = -1;
  bool operator==(const KeyState&) const = default;
};

}  // namespace locksim
