#include "traces/event.h"

#include <array>
#include <cassert>

namespace locksim {

namespace {
constexpr std::array<std::string_view, 8> kKindNames = {
    "invoke", "ok", "fail", "info", "script", "deliver", "fault", "verdict",
};
}  // namespace

std::string_view event_kind_name(EventKind kind) {
  const auto i = static_cast<size_t>(kind);
  assert(i < kKindNames.size());
  return kKindNames[i];
}

bool event_kind_from_name(std::string_view name, EventKind* out) {
  for (size_t i = 0; i < kKindNames.size(); ++i) {
    if (kKindNames[i] == name) {
      *out = static_cast<EventKind>(i);
      return true;
    }
  }
  return false;
}

}  // namespace locksim
