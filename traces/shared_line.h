// SharedLine: a fair lock's waiting line (LineEntry, head first) held by
// reference and copied on write. Most fair scripts leave the line as it
// was, so consecutive events of one lock carry the same line: copying a
// SharedLine shares its entries (a reference count, not ~40 owner strings),
// which is what makes a repeated line ("lr":1) cheap to read from a trace
// and cheap to hand from the reading thread to the checking thread.
//
// Contract: a SharedLine behaves as a value. Reading never changes what
// another copy sees; edit() hands out entries no other copy can see (they
// are copied first when shared). Two lines are equal when their entries
// are, whether or not they share them. Thread safety: that of a
// std::shared_ptr: copies may be read, copied and dropped on different
// threads; edit() needs the calling thread to own this SharedLine object.
// unique() is exact for a line whose other copies are only ever dropped
// (never copied again) on other threads: then once it is true it stays so,
// and edit() changes the entries in place, reusing their storage.
#pragma once

#include <atomic>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "traces/line_entry.h"

namespace locksim {

class SharedLine {
 public:
  using Entries = std::vector<LineEntry>;

  SharedLine() = default;
  SharedLine(std::initializer_list<LineEntry> entries) { assign(Entries(entries)); }
  explicit SharedLine(Entries entries) { assign(std::move(entries)); }
  SharedLine& operator=(std::initializer_list<LineEntry> entries) {
    assign(Entries(entries));
    return *this;
  }
  SharedLine& operator=(Entries entries) {
    assign(std::move(entries));
    return *this;
  }

  // Reading.
  const Entries& entries() const { return entries_ ? *entries_ : kEmpty; }
  size_t size() const { return entries().size(); }
  bool empty() const { return entries().empty(); }
  const LineEntry& operator[](size_t i) const { return entries()[i]; }
  const LineEntry& front() const { return entries().front(); }
  Entries::const_iterator begin() const { return entries().begin(); }
  Entries::const_iterator end() const { return entries().end(); }
  // Whether both name the very same entries (then they are surely equal).
  bool same_storage(const SharedLine& other) const { return entries_ == other.entries_; }
  bool operator==(const SharedLine& other) const { return same_storage(other) || entries() == other.entries(); }

  // Writing. The entries to change, seen by no other copy: this line's own
  // when no other copy shares them (their storage is reused), else a fresh
  // copy of them.
  Entries& edit() {
    if (!entries_) {
      entries_ = std::make_shared<Entries>();
    } else if (!unique()) {
      entries_ = std::make_shared<Entries>(*entries_);
    }
    return *entries_;
  }
  // Entries to be overwritten whole (contents unspecified, the caller sets
  // them and their size): this line's own when no other copy shares them
  // (their storage is reused), else new ones (nothing is copied).
  Entries& overwrite() {
    if (!entries_ || !unique()) entries_ = std::make_shared<Entries>();
    return *entries_;
  }
  // No entries (drops this copy's reference; other copies keep theirs).
  void clear() { entries_.reset(); }
  void push_back(LineEntry entry) { edit().push_back(std::move(entry)); }
  void assign(Entries entries) {
    if (entries.empty()) {
      entries_.reset();
    } else if (entries_ && unique()) {
      *entries_ = std::move(entries);
    } else {
      entries_ = std::make_shared<Entries>(std::move(entries));
    }
  }
  // Whether this line holds entries storage (possibly empty entries).
  bool holds_storage() const { return entries_ != nullptr; }
  // Whether no other copy shares the entries (true for no entries). After a
  // true answer, the other copies' reads of the entries happened before.
  bool unique() const {
    if (!entries_) return true;
    if (entries_.use_count() != 1) return false;
    // use_count() is a relaxed load; the last other copy let go of the
    // entries with a release decrement, which this fence pairs with.
    std::atomic_thread_fence(std::memory_order_acquire);
    return true;
  }

 private:
  static inline const Entries kEmpty{};
  std::shared_ptr<Entries> entries_;  // null: no entries
};

}  // namespace locksim
