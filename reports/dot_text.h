// DOT text: a string made safe inside a double-quoted Graphviz attribute
// (visible text first, traces/byte_text.h: no control character or
// malformed UTF-8 reaches dot or the SVG it writes; then '"' and '\'
// escaped, a newline as "\n"), shared by the timeline views.
#pragma once

#include <string>
#include <string_view>

#include "traces/byte_text.h"

namespace locksim {

inline std::string dot_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t from = 0;;) {  // line by line: a newline stays a DOT line break
    const size_t end = text.find('\n', from);
    const std::string_view line =
        std::string_view(text).substr(from, end == std::string::npos ? std::string::npos : end - from);
    for (char c : visible_text(line)) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    if (end == std::string::npos) return out;
    out += "\\n";
    from = end + 1;
  }
}

}  // namespace locksim
