#include "properties/checker.h"

#include <algorithm>
#include <charconv>

namespace locksim {

bool is_acquire_op(const Event& e) { return e.op == "lock" || e.op == "try_lock"; }

bool is_script(const Event& e, std::string_view script) {
  return e.kind == EventKind::Script && e.script == script;
}

bool holders_contain(const Event& e, const std::string& owner) {
  return std::find(e.holders_after.begin(), e.holders_after.end(), owner) != e.holders_after.end();
}

bool reply_integer(const Event& e, int64_t* out) {
  const std::string& r = e.reply;
  if (r.empty()) return false;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(r.data(), r.data() + r.size(), v);
  if (ec != std::errc() || ptr != r.data() + r.size()) return false;
  *out = v;
  return true;
}

bool reply_is_nil(const Event& e) { return e.reply == "nil"; }

}  // namespace locksim
