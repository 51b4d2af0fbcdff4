// LineMemory: the last fair waiting line a trace gave for each (server,
// lock), so that version 3 traces write a fair script's line only when it
// changed. The writer and the reader each keep one and feed it the same
// events in the same order, so a repeated line ("lr":1 in place of "ln")
// always means the line of the previous event with a line on that server
// and lock. Memory: one line per (server, lock) seen.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "traces/event.h"

namespace locksim {

class LineMemory {
 public:
  // The line last remembered for the event's server and lock, or null.
  const std::vector<LineEntry>* last(const Event& e) const {
    auto it = lines_.find(Key{e.server, e.lock});
    return it == lines_.end() ? nullptr : &it->second;
  }
  // Remembers e's line, when it has one (the reader, for each line given).
  void remember(const Event& e) {
    if (e.line_known) lines_[Key{e.server, e.lock}] = e.line_after;  // reuses the stored line's storage
  }
  // True when `e` has a line equal to the remembered one (it may be written
  // as repeated); otherwise remembers e's line (when it has one).
  bool repeats(const Event& e) {
    if (!e.line_known) return false;
    auto [it, inserted] = lines_.try_emplace(Key{e.server, e.lock}, e.line_after);
    if (inserted) return false;
    if (it->second == e.line_after) return true;
    it->second = e.line_after;
    return false;
  }

 private:
  using Key = std::pair<int, std::string>;
  std::map<Key, std::vector<LineEntry>> lines_;
};

}  // namespace locksim
