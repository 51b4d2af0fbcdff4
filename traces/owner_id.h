// OwnerId: who holds or waits for a lock, as the lock's hash names it:
// "<client-uuid>:<task>" (the Redisson convention: the client's id and its
// thread). The text is read once, where it enters (the client that makes
// an owner, the trace reader), and its parts kept beside it, so that no
// consumer splits owner ids.
//
// Contract: str() is the text a trace writes as "o" and the field the
// scripts store; uuid() is the text before its last ':' (all of it when
// there is none); task() is the number after that ':' when the rest is
// decimal digits of a task number (at most 9 of them), else nullopt.
// OwnerId(text).str() == text for every text. Equality and order are the
// texts'; an owner compares equal to its text, and reads as it where a text
// is wanted (the server's holders and line entries are texts: Redis data).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace locksim {

class OwnerId {
 public:
  OwnerId() = default;
  explicit OwnerId(std::string_view text) { assign(text); }
  // "<uuid>:<task>".
  OwnerId(std::string_view uuid, int task);

  // Replaces the text, keeping its storage (a reader refills one event).
  void assign(std::string_view text);
  void clear() {
    text_.clear();
    uuid_size_ = 0;
    task_ = -1;
  }

  const std::string& str() const { return text_; }
  // Reads as its text where a text is wanted (a map of owners, the server's
  // holders; NOLINT: implicit on purpose, as OwnerName's). No member of
  // std::string is reachable through it: split an owner by uuid() and task().
  operator const std::string&() const { return text_; }  // NOLINT(google-explicit-constructor)
  operator std::string_view() const { return text_; }     // NOLINT(google-explicit-constructor)
  bool empty() const { return text_.empty(); }
  std::string_view uuid() const { return std::string_view(text_).substr(0, uuid_size_); }
  std::optional<int> task() const { return task_ >= 0 ? std::optional<int>(task_) : std::nullopt; }

  friend bool operator==(const OwnerId& a, const OwnerId& b) { return a.text_ == b.text_; }
  friend bool operator==(const OwnerId& a, std::string_view b) { return a.text_ == b; }
  friend std::strong_ordering operator<=>(const OwnerId& a, const OwnerId& b) { return a.text_ <=> b.text_; }

 private:
  std::string text_;
  uint32_t uuid_size_ = 0;
  int32_t task_ = -1;  // -1: none
};

}  // namespace locksim
