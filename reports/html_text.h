// HTML text: a string made safe inside an HTML element or a double-quoted
// attribute (visible text first, traces/byte_text.h: no control character or
// malformed UTF-8 reaches the page; then '<', '>', '&', '"' escaped), shared
// by the pages reports/ writes; and a name made into one segment of a
// relative link (url_path_segment).
#pragma once

#include <string>
#include <string_view>

#include "traces/byte_text.h"

namespace locksim {

inline std::string html_escape(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (char c : visible_text(raw)) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// `name` as one segment of a relative URL path: every byte but letters,
// digits and "-._~" percent-encoded, so that no name (one holding ':', '/',
// '?', '#', or "javascript:...") can make a link that leaves the directory
// or carries a scheme. Prefix it with "./" in an href: a segment is then
// relative whatever its first character.
inline std::string url_path_segment(std::string_view name) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(name.size());
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                       c == '.' || c == '_' || c == '~';
    if (plain) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

}  // namespace locksim
