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

void reset_keeping_storage(Event* e) {
  // A field added to Event needs its line here (and the size below).
  static_assert(sizeof(Event) == 552, "Event changed: update reset_keeping_storage");
  e->id = 0;
  e->true_us = 0;
  e->kind = EventKind::Info;
  e->client = -1;
  e->server = -1;
  e->owner.clear();
  e->lock.clear();
  e->op = Op::None;
  e->op_id = 0;
  e->local_ms = 0;
  e->wait_ms = -1;
  e->lease_ms = -1;
  e->value = 0;
  e->reason = EndReason::None;
  e->once = false;
  e->error_declared = false;
  e->persistence = Persistence::None;
  e->lost.what = LostMessage::What::None;
  e->lost.script.clear();
  e->lost.lock.clear();
  e->lost.channel.clear();
  e->detail.clear();
  e->token.clear();
  e->script.clear();
  e->request_id.clear();
  e->reply.clear();
  e->server_ms = 0;
  e->line_known = false;
  e->line_token = LineToken{};
  e->duration_ms = 0;
  e->target = -1;
}

}  // namespace locksim
