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
// are, whether or not they share them. Thread safety: copies may be read,
// copied and dropped on different threads (the count is atomic); the
// writers (edit, overwrite, assign, push_back, clear) need the calling
// thread to own this SharedLine object. unique() is exact for a line whose
// other copies are only ever dropped (never copied again) on other
// threads: then once it is true it stays so, and the writers change the
// entries in place, reusing their storage.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
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
  SharedLine(const SharedLine& other) : node_(other.node_) {
    if (node_ != nullptr) node_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  SharedLine(SharedLine&& other) noexcept : node_(std::exchange(other.node_, nullptr)) {}
  SharedLine& operator=(const SharedLine& other) {
    if (node_ != other.node_) SharedLine(other).swap(*this);
    return *this;
  }
  SharedLine& operator=(SharedLine&& other) noexcept {
    if (this != &other) {
      release();
      node_ = std::exchange(other.node_, nullptr);
    }
    return *this;
  }
  SharedLine& operator=(std::initializer_list<LineEntry> entries) {
    assign(Entries(entries));
    return *this;
  }
  SharedLine& operator=(Entries entries) {
    assign(std::move(entries));
    return *this;
  }
  ~SharedLine() { release(); }
  void swap(SharedLine& other) noexcept { std::swap(node_, other.node_); }

  // Reading.
  const Entries& entries() const { return node_ != nullptr ? node_->entries : kEmpty; }
  size_t size() const { return entries().size(); }
  bool empty() const { return entries().empty(); }
  const LineEntry& operator[](size_t i) const { return entries()[i]; }
  const LineEntry& front() const { return entries().front(); }
  Entries::const_iterator begin() const { return entries().begin(); }
  Entries::const_iterator end() const { return entries().end(); }
  // Whether both name the very same entries (then they are surely equal).
  bool same_storage(const SharedLine& other) const { return node_ == other.node_; }
  bool operator==(const SharedLine& other) const { return same_storage(other) || entries() == other.entries(); }

  // Writing. The entries to change, seen by no other copy: this line's own
  // when no other copy shares them (their storage is reused), else a fresh
  // copy of them.
  Entries& edit() {
    if (node_ == nullptr) {
      node_ = new Node{};
    } else if (!unique()) {
      Node* copy = new Node{};
      copy->entries = node_->entries;
      release();
      node_ = copy;
    }
    return node_->entries;
  }
  // Entries to be overwritten whole (contents unspecified, the caller sets
  // them and their size): this line's own when no other copy shares them
  // (their storage is reused), else new ones (nothing is copied).
  Entries& overwrite() {
    if (node_ == nullptr || !unique()) {
      release();
      node_ = new Node{};
    }
    return node_->entries;
  }
  // No entries (drops this copy's reference; other copies keep theirs).
  void clear() { release(); }
  void push_back(LineEntry entry) { edit().push_back(std::move(entry)); }
  void assign(Entries entries) {
    if (entries.empty()) {
      release();
      return;
    }
    overwrite() = std::move(entries);
  }
  // Whether this line holds entries storage (possibly empty entries).
  bool holds_storage() const { return node_ != nullptr; }
  // Whether no other copy shares the entries (true for no entries). After a
  // true answer, the other copies' reads of the entries happened before:
  // each copy lets go with a release decrement, read here with acquire.
  bool unique() const { return node_ == nullptr || node_->refs.load(std::memory_order_acquire) == 1; }

 private:
  struct Node {
    std::atomic<uint32_t> refs{1};
    Entries entries;
  };
  void release() {
    Node* node = std::exchange(node_, nullptr);
    if (node != nullptr && node->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete node;
  }
  static inline const Entries kEmpty{};
  Node* node_ = nullptr;  // null: no entries
};

}  // namespace locksim
