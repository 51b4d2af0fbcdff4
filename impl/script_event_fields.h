// set_script_call_fields: the fields of a Script history event that come
// from the call itself (lease_ms, wait_ms, and for fair scripts the client
// clock `now_ms` it sent, which is server truth for slot deadlines). One
// definition for the simulator (sim/world.cc) and the real-time recorder
// (impl/realtime), so both write the same history for the same call.
#pragma once

#include "model/script_call.h"
#include "traces/event.h"

namespace locksim {

void set_script_call_fields(const ScriptCall& call, Event* e);

}  // namespace locksim
