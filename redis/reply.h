// Reply: the value a script (or a Redis command) answers with, as the client
// sees it after RESP2 conversion: nil, an integer, a bulk string, an error, or
// an array of replies. Lua numbers arrive truncated toward zero (Redis rule).
// Equality and to_string are exact and deterministic so replies can be
// compared between the model and a live server and written into traces.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace locksim {

struct Reply {
  enum class Kind { Nil, Integer, Bulk, Error, Array };
  Kind kind = Kind::Nil;
  int64_t integer = 0;
  std::string text;           // bulk payload or error message
  std::vector<Reply> elements;

  static Reply nil() { return Reply{}; }
  static Reply of_int(int64_t v) { Reply r; r.kind = Kind::Integer; r.integer = v; return r; }
  static Reply bulk(std::string s) { Reply r; r.kind = Kind::Bulk; r.text = std::move(s); return r; }
  static Reply error(std::string s) { Reply r; r.kind = Kind::Error; r.text = std::move(s); return r; }

  bool is_nil() const { return kind == Kind::Nil; }
  bool is_int() const { return kind == Kind::Integer; }
  bool is_error() const { return kind == Kind::Error; }

  bool operator==(const Reply& o) const {
    return kind == o.kind && integer == o.integer && text == o.text && elements == o.elements;
  }

  // "nil", "123", "\"text\"", "ERR message", "[a, b]".
  std::string to_string() const;
};

}  // namespace locksim
