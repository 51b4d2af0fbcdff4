// LineEntryPool: spare fair-line entries whose owner strings keep their
// buffers. Reading a trace fills the same Events again and again, and their
// lines grow and shrink by a few entries from one event to the next: a
// vector shrunk by resize() or copy-assignment frees the owner strings it
// drops, and the next growth allocates them again (a tenth of the reading
// thread's time went to malloc and free). Lines changed through the pool
// keep what they drop here instead, and take it back when they grow.
//
// Contract: the results are those of the plain vector operations (same
// entries, same order; a line taken back is to be overwritten); only where
// the storage comes from differs. Memory: at most kMaxEntries spare
// entries; beyond that, dropped entries are freed.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "traces/line_entry.h"

namespace locksim {

class LineEntryPool {
 public:
  static constexpr size_t kMaxEntries = size_t{1} << 16;

  // Appends an entry (a spare one when there is one: its contents are
  // unspecified until the caller sets them); returns it.
  LineEntry& grow(std::vector<LineEntry>* line) {
    if (spare_.empty()) return line->emplace_back();
    line->push_back(std::move(spare_.back()));
    spare_.pop_back();
    return line->back();
  }
  // Shrinks *line to its first n entries (no-op when it has no more),
  // keeping the others as spares while there is room.
  void truncate(std::vector<LineEntry>* line, size_t n) {
    while (line->size() > n) {
      if (spare_.size() < kMaxEntries) spare_.push_back(std::move(line->back()));
      line->pop_back();
    }
  }
  size_t spare() const { return spare_.size(); }

 private:
  std::vector<LineEntry> spare_;
};

}  // namespace locksim
