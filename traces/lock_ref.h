// LockRef: the lock an event names. A lock is one key on one server
// ("lsim:L0"), or a group lock (multi-lock, RedLock) with a member key on
// each of its servers, named "<group>@<index>" ("lsim:L0@1": the member of
// group "lsim:L0" on its server 1). The name is read once, where it enters
// (the scenario that names a group's members, the trace reader), and its
// group is kept beside it, so that no consumer splits names.
//
// Contract: name() is the text a trace writes as "l" and the key the
// scripts are called with; a name with an '@' is a member of the group
// before its last '@' (the one rule of the old rfind('@')); group() of a
// lock that is no member is its own name. Equality and order are the
// names'. LockRef(name).name() == name for every text.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace locksim {

class LockRef {
 public:
  LockRef() = default;
  explicit LockRef(std::string_view name) { assign(name); }
  // The member of `group` on its `index`-th server: "<group>@<index>".
  static LockRef member_of(std::string_view group, int index);

  // Replaces the name, keeping its storage (a reader refills one event).
  void assign(std::string_view name);
  void clear() {
    name_.clear();
    group_size_ = kNoGroup;
  }

  const std::string& name() const { return name_; }
  // Reads as its name where a text is wanted (a map of locks, a script's key;
  // NOLINT: implicit on purpose). No member of std::string is reachable
  // through it: a member's group is group().
  operator const std::string&() const { return name_; }  // NOLINT(google-explicit-constructor)
  operator std::string_view() const { return name_; }     // NOLINT(google-explicit-constructor)
  bool empty() const { return name_.empty(); }
  // A member of a group lock ("<group>@<index>").
  bool is_member() const { return group_size_ != kNoGroup; }
  // The group of a member; the name itself for a lock that is no member.
  std::string_view group() const {
    return is_member() ? std::string_view(name_).substr(0, group_size_) : std::string_view(name_);
  }
  // This lock is `lock`, or a member of the group `lock`.
  bool is_or_member_of(std::string_view lock) const { return name_ == lock || (is_member() && group() == lock); }

  friend bool operator==(const LockRef& a, const LockRef& b) { return a.name_ == b.name_; }
  friend bool operator==(const LockRef& a, std::string_view b) { return a.name_ == b; }
  friend std::strong_ordering operator<=>(const LockRef& a, const LockRef& b) { return a.name_ <=> b.name_; }

 private:
  static constexpr uint32_t kNoGroup = UINT32_MAX;
  std::string name_;
  uint32_t group_size_ = kNoGroup;  // bytes of the group's name in name_, or kNoGroup
};

}  // namespace locksim
