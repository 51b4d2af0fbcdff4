// DOT text: a string made safe inside a double-quoted Graphviz attribute
// ('"' and '\' escaped, a newline as "\n"), shared by the timeline views.
#pragma once

#include <string>

namespace locksim {

inline std::string dot_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace locksim
