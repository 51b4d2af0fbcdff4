// OwnerName / OwnerTable: owner ids ("<client-uuid>:<task>") kept once.
// The fair-line mirror's waiters and the liveness checker's records name
// their owners through one table (the mirror's): a copy is a pointer copy
// (no string allocated and freed per waiter, per line rebuild, per entry a
// waiter notes ahead of it), and two names of the same table are equal
// exactly when their pointers are, so a scan of a line for an owner settles
// a match without comparing bytes.
//
// Contract: an OwnerName stays valid while its table lives; the table never
// forgets a name (memory: one string per distinct owner interned, which
// grows with client restarts, each of which brings a new uuid). Equality is
// that of the strings, also between names of different tables (then by
// comparing bytes); a default OwnerName is the empty name.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>

#include "redis/key_hash.h"
#include "properties/name_equal.h"
#include "traces/owner_id.h"

namespace locksim {

class OwnerName {
 public:
  OwnerName() : name_(&empty_name()) {}
  const std::string& str() const { return *name_; }
  // Reads as the string (NOLINT: implicit on purpose).
  operator const std::string&() const { return *name_; }  // NOLINT(google-explicit-constructor)
  operator std::string_view() const { return *name_; }    // NOLINT(google-explicit-constructor)
  bool empty() const { return name_->empty(); }
  // Equality of two names of the same table: one pointer comparison (for
  // scans; == also compares names of different tables).
  bool is(const OwnerName& same_table) const { return name_ == same_table.name_; }

  friend bool operator==(const OwnerName& a, const OwnerName& b) {
    return a.name_ == b.name_ || same_name(*a.name_, *b.name_);
  }
  friend bool operator==(const OwnerName& a, std::string_view b) { return same_name(*a.name_, b); }
  friend bool operator==(const OwnerName& a, const std::string& b) { return same_name(*a.name_, b); }
  friend bool operator==(const OwnerName& a, const char* b) { return *a.name_ == b; }
  friend bool operator==(const OwnerName& a, const OwnerId& b) { return same_name(*a.name_, b.str()); }

 private:
  friend class OwnerTable;
  explicit OwnerName(const std::string* name) : name_(name) {}
  static const std::string& empty_name() {
    static const std::string kEmpty;
    return kEmpty;
  }
  const std::string* name_;
};

class OwnerTable {
 public:
  OwnerTable() = default;
  // Names point into the table: it stays put.
  OwnerTable(const OwnerTable&) = delete;
  OwnerTable& operator=(const OwnerTable&) = delete;

  // `owner`'s name in this table, added at its first appearance.
  OwnerName intern(std::string_view owner) {
    auto it = names_.find(owner);
    if (it == names_.end()) it = names_.emplace(owner).first;
    return OwnerName(&*it);
  }
  size_t size() const { return names_.size(); }

 private:
  struct Equal {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  };
  struct Hash : KeyHash {
    using is_transparent = void;
  };
  std::unordered_set<std::string, Hash, Equal> names_;  // nodes stay put
};

}  // namespace locksim
