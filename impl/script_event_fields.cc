#include "impl/script_event_fields.h"

namespace locksim {

void set_script_call_fields(const ScriptCall& call, Event* e) {
  switch (call.kind) {
    case ScriptKind::RlockAcquire:
    case ScriptKind::RlockRelease:
    case ScriptKind::SpinRelease:
    case ScriptKind::RlockRenew:
      e->lease_ms = call.params.lease_ms;
      break;
    case ScriptKind::FairAcquire:
    case ScriptKind::FairTryOnce:
    case ScriptKind::FairRelease:
      e->lease_ms = call.params.lease_ms;
      e->wait_ms = call.kind == ScriptKind::FairRelease ? -1 : call.params.wait_ms;
      e->local_ms = call.params.now_ms;
      break;
    case ScriptKind::FairForceRelease:
      e->local_ms = call.params.now_ms;
      break;
    case ScriptKind::FasterMultiAcquire:
    case ScriptKind::FasterMultiRelease:
    case ScriptKind::FasterMultiRenew:
      e->lease_ms = call.params.lease_ms;
      e->local_ms = call.params.now_ms;
      break;
    case ScriptKind::FairAcquireFailed:
      e->wait_ms = call.params.wait_ms;
      break;
    default:
      break;
  }
}

void set_event_reply(const Reply& reply, EventReply* out) {
  out->integer = 0;
  out->text.clear();
  switch (reply.kind) {
    case Reply::Kind::Nil: out->kind = EventReply::Kind::Nil; return;
    case Reply::Kind::Integer:
      out->kind = EventReply::Kind::Integer;
      out->integer = reply.integer;
      return;
    case Reply::Kind::Error:
      out->kind = EventReply::Kind::Error;
      out->text = reply.text;
      return;
    case Reply::Kind::Bulk:
    case Reply::Kind::Array:
      out->kind = EventReply::Kind::Other;
      out->text = reply.to_string();
      return;
  }
}

}  // namespace locksim
