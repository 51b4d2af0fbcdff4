// LineMemory: the last fair waiting line a trace gave for each (server,
// lock), so that version 3 traces write a fair script's line only when it
// changed. The writer and the reader each keep one and feed it the same
// events in the same order, so a repeated line ("lr":1 in place of "ln")
// always means the line of the previous event with a line on that server
// and lock. The reader names each line it remembers with a token (Event::
// line_token); the writer skips comparing a line whose producer token is
// the remembered line's. Lines are shared with the events that carry them
// (traces/shared_line.h), not copied. Memory: one line per (server, lock)
// seen.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "traces/event.h"

namespace locksim {

class LineMemory {
 public:
  // The reader: gives e the line remembered for its server and lock
  // ("lr":1), shared, with that line's token; false when none is
  // remembered.
  bool repeat_into(Event* e) const {
    auto it = lines_.find(Key{e->server, e->lock.name()});
    if (it == lines_.end()) return false;
    e->line_after = it->second.entries;
    e->line_token = LineToken{it->second.token};
    return true;
  }
  // The reader: remembers e's line (when it has one), shared, under a new
  // token, which e carries from then on.
  void remember(Event* e) {
    if (!e->line_known) return;
    Line& line = lines_[Key{e->server, e->lock.name()}];
    line.entries = e->line_after;
    line.token = ++last_token_;
    e->line_token = LineToken{line.token};
  }
  // The writer: true when `e` has a line equal to the remembered one (it may
  // be written as repeated); otherwise remembers e's line (when it has one).
  // A line with the remembered line's (producer) token is equal unseen.
  bool repeats(const Event& e) {
    if (!e.line_known) return false;
    auto [it, inserted] = lines_.try_emplace(Key{e.server, e.lock.name()});
    Line& line = it->second;
    const uint64_t token = e.line_token.value;
    if (!inserted && token != 0 && token == line.token) return true;
    const bool same = !inserted && line.entries == e.line_after;
    if (!same) line.entries = e.line_after;
    line.token = token;
    return same;
  }

 private:
  using Key = std::pair<int, std::string>;
  struct Line {
    SharedLine entries;
    uint64_t token = 0;  // the token the entries were remembered with (0: none)
  };
  std::map<Key, Line> lines_;
  uint64_t last_token_ = 0;  // the reader's tokens
};

}  // namespace locksim
