// EventReply: a script's reply as its Script event records it: nil, an
// integer, an error (its message), or any other value (a bulk string, an
// array) kept as the text Reply::to_string() gives it (redis/reply.h). The
// checkers ask is_nil() or is(1) instead of comparing text.
//
// Contract: text() is what a trace writes as "r": "" (no reply), "nil",
// the integer in decimal, "error: " + the message, or the other value's
// text; EventReply::parse(text()) == *this, and parse(t).text() == t for
// every t (an integer's text is canonical or it reads as Other).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace locksim {

struct EventReply {
  enum class Kind : uint8_t { None, Nil, Integer, Error, Other };
  Kind kind = Kind::None;
  int64_t integer = 0;  // Integer
  std::string text;     // Error: the message; Other: the whole text

  static EventReply nil() { return EventReply{Kind::Nil, 0, {}}; }
  static EventReply of_int(int64_t v) { return EventReply{Kind::Integer, v, {}}; }
  static EventReply error(std::string message) { return EventReply{Kind::Error, 0, std::move(message)}; }
  static EventReply other(std::string text) { return EventReply{Kind::Other, 0, std::move(text)}; }
  // Reads a trace's "r" (see the contract).
  static EventReply parse(std::string_view text);
  void assign_parsed(std::string_view text);  // the same, into *this, keeping storage

  bool empty() const { return kind == Kind::None; }
  bool is_nil() const { return kind == Kind::Nil; }
  bool is_integer() const { return kind == Kind::Integer; }
  bool is(int64_t v) const { return kind == Kind::Integer && integer == v; }
  bool is_error() const { return kind == Kind::Error; }
  void clear() {
    kind = Kind::None;
    integer = 0;
    text.clear();
  }
  // The text a trace writes (see the contract); appended to *out.
  void append_text(std::string* out) const;
  std::string to_text() const;

  bool operator==(const EventReply&) const = default;
};

}  // namespace locksim
