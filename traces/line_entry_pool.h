// LineEntryPool: spare fair-line entries whose owner strings keep their
// buffers. Reading a trace fills the same Events again and again, and their
// lines grow and shrink by a few entries from one event to the next: a
// vector shrunk by resize() or copy-assignment frees the owner strings it
// drops, and the next growth allocates them again (a tenth of the reading
// thread's time went to malloc and free). Lines changed through the pool
// keep what they drop here instead, and take it back when they grow.
//
// Whole lines are kept too: an event without a line parks its line's
// vector (one move, however long the line), and the next empty line that is
// about to be filled takes one back.
//
// Contract: the results are those of the plain vector operations (same
// entries, same order; a line taken back is to be overwritten); only where
// the storage comes from differs. Memory: at most kMaxEntries loose spare
// entries and kMaxEntries entries in parked lines; beyond that, dropped
// entries are freed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "traces/event.h"

namespace locksim {

class LineEntryPool {
 public:
  static constexpr size_t kMaxEntries = size_t{1} << 16;

  // *to = from.
  void assign(std::vector<LineEntry>* to, const std::vector<LineEntry>& from) {
    const size_t common = std::min(to->size(), from.size());
    for (size_t i = 0; i < common; ++i) (*to)[i] = from[i];
    truncate(to, from.size());
    for (size_t i = common; i < from.size(); ++i) grow(to) = from[i];
  }
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

  // Empties *line, keeping its vector (entries and all) while there is room.
  void park_line(std::vector<LineEntry>* line) {
    if (line->empty()) return;
    if (parked_entries_ + line->size() <= kMaxEntries) {
      parked_entries_ += line->size();
      parked_.push_back(std::move(*line));
    }
    line->clear();
  }
  // Gives an empty *line the entries of a parked line, if any: contents to
  // be overwritten, and the caller sets its size.
  void take_line(std::vector<LineEntry>* line) {
    if (!line->empty() || parked_.empty()) return;
    line->swap(parked_.back());
    parked_.pop_back();
    parked_entries_ -= line->size();
  }

 private:
  std::vector<LineEntry> spare_;
  std::vector<std::vector<LineEntry>> parked_;
  size_t parked_entries_ = 0;
};

}  // namespace locksim
