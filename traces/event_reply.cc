#include "traces/event_reply.h"

#include <charconv>

namespace locksim {

namespace {
constexpr std::string_view kErrorPrefix = "error: ";
}  // namespace

EventReply EventReply::parse(std::string_view text) {
  EventReply r;
  r.assign_parsed(text);
  return r;
}

void EventReply::assign_parsed(std::string_view t) {
  integer = 0;
  text.clear();
  if (t.empty()) {
    kind = Kind::None;
    return;
  }
  if (t == "nil") {
    kind = Kind::Nil;
    return;
  }
  if (t.substr(0, kErrorPrefix.size()) == kErrorPrefix) {
    kind = Kind::Error;
    text.assign(t.substr(kErrorPrefix.size()));
    return;
  }
  // An integer only in the text std::to_string gives it: no sign but '-',
  // no leading zero, no "-0" (anything else stays as written).
  int64_t v = 0;
  const char* end = t.data() + t.size();
  const auto [ptr, ec] = std::from_chars(t.data(), end, v);
  const size_t first_digit = t[0] == '-' ? 1 : 0;
  const bool canonical = ec == std::errc() && ptr == end && t.size() > first_digit &&
                         (t[first_digit] != '0' || t.size() == first_digit + 1) && t != "-0";
  if (canonical) {
    kind = Kind::Integer;
    integer = v;
    return;
  }
  kind = Kind::Other;
  text.assign(t);
}

void EventReply::append_text(std::string* out) const {
  switch (kind) {
    case Kind::None: return;
    case Kind::Nil: *out += "nil"; return;
    case Kind::Integer: {
      char digits[24];
      const auto end = std::to_chars(digits, digits + sizeof digits, integer).ptr;
      out->append(digits, static_cast<size_t>(end - digits));
      return;
    }
    case Kind::Error:
      *out += kErrorPrefix;
      *out += text;
      return;
    case Kind::Other: *out += text; return;
  }
}

std::string EventReply::to_text() const {
  std::string out;
  append_text(&out);
  return out;
}

}  // namespace locksim
