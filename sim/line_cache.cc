#include "sim/line_cache.h"

#include <cassert>

namespace locksim {

void LineCache::fill(int server, Store& s, const ScriptCall& call, int64_t now_ms, uint64_t held_token,
                     ExecResult* out) {
  assert(server >= 0 && static_cast<size_t>(server) < by_server_.size());
  if (call.params.line.empty() || call.params.deadlines.empty()) {
    if (!out->line_after.empty()) {
      out->line_after.swap(parked_line_);
      out->line_after.clear();
    }
    return;
  }
  if (out->line_after.empty()) out->line_after.swap(parked_line_);
  Store::LineVersion version;
  if (!s.line_version(call.params.line, call.params.deadlines, now_ms, &version)) {
    out->line_known = false;  // not a list / sorted set: no line to report
    out->line_after.clear();
    return;
  }
  CachedLine& cached = by_server_[static_cast<size_t>(server)][call.params.line];
  if (!cached.filled || !(cached.version == version) || cached.deadlines != call.params.deadlines) {
    const bool read = s.line_with_scores(call.params.line, call.params.deadlines, now_ms, &cached.waiters);
    assert(read && "line_version and line_with_scores disagree");
    (void)read;
    cached.filled = true;
    cached.token = ++next_token_;
    cached.version = version;
    cached.deadlines = call.params.deadlines;
  }
  out->line_known = true;
  out->line_token = cached.token;
  if (held_token != cached.token) out->line_after = cached.waiters;
}

}  // namespace locksim
