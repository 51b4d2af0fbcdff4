// LineCache: the fair line after a script (ExecResult::line_after) for the
// in-process backends (ModelBackend, LuaBackend), read from the Store only
// when it changed. Per (server, line key) it keeps the last line read with
// the Store::line_version it was read at and a token; a caller that already
// holds the line of token T (ExecResult::line_token on entry) gets it left
// as it was instead of copied again.
//
// Contract of fill(): for a fair call (params.line and params.deadlines
// set) it sets line_known (false when the keys are of another type: no line
// to report), line_token and, unless the caller holds that token,
// line_after. For any other call line_after is parked (its buffers kept for
// the next fair call) and line_known is left alone. Tokens are unique per
// cache; the cache stays valid across Store::clear() (versions never repeat).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "redis/exec_result.h"
#include "redis/key_hash.h"
#include "model/script_call.h"
#include "redis/store.h"

namespace locksim {

// Backend::execute() of a backend whose execute_into() uses a LineCache:
// execute_into() into a new result, line_after only when known, and no
// token (tokens mean something only to a caller of that backend's
// execute_into: a wrapper such as ReplicatedBackend may mix backends).
template <class B>
ExecResult execute_without_token(B& backend, int server, const ScriptCall& call, int64_t server_now_us) {
  ExecResult out;
  backend.execute_into(server, call, server_now_us, &out);
  if (!out.line_known) out.line_after.clear();
  out.line_token = 0;
  return out;
}

class LineCache {
 public:
  explicit LineCache(int servers) : by_server_(static_cast<size_t>(servers)) {}

  void fill(int server, Store& store, const ScriptCall& call, int64_t now_ms, uint64_t held_token, ExecResult* out);

 private:
  struct CachedLine {
    bool filled = false;
    uint64_t token = 0;  // ExecResult::line_token, new at every re-read
    std::string deadlines;
    Store::LineVersion version;
    std::vector<LineWaiter> waiters;
  };
  // line_after entries parked while non-fair scripts run, so the next fair
  // script reuses their buffers.
  std::vector<LineWaiter> parked_line_;
  // One entry per fair lock name seen, per server; never iterated.
  std::vector<std::unordered_map<std::string, CachedLine, KeyHash>> by_server_;
  uint64_t next_token_ = 0;
};

}  // namespace locksim
