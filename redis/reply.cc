#include "redis/reply.h"

namespace locksim {

std::string Reply::to_string() const {
  switch (kind) {
    case Kind::Nil: return "nil";
    case Kind::Integer: return std::to_string(integer);
    case Kind::Bulk: return "\"" + text + "\"";
    case Kind::Error: return "error: " + text;
    case Kind::Array: {
      std::string out = "[";
      for (size_t i = 0; i < elements.size(); ++i) {
        if (i) out += ", ";
        out += elements[i].to_string();
      }
      return out + "]";
    }
  }
  return "?";
}

}  // namespace locksim
