#include "impl/script_event_fields.h"

namespace locksim {

void set_script_call_fields(const ScriptCall& call, Event* e) {
  switch (call.kind) {
    case ScriptKind::RlockAcquire:
    case ScriptKind::RlockRelease:
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
    case ScriptKind::FairAcquireFailed:
      e->wait_ms = call.params.wait_ms;
      break;
    default:
      break;
  }
}

}  // namespace locksim
