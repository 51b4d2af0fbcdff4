// HTML text: a string made safe inside an HTML element or a double-quoted
// attribute (visible text first, traces/byte_text.h: no control character or
// malformed UTF-8 reaches the page; then '<', '>', '&', '"' escaped), shared
// by the pages reports/ writes.
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

}  // namespace locksim
