// set_script_call_fields: the fields of a Script history event that come
// from the call itself (lease_ms, wait_ms, and for fair scripts the client
// clock `now_ms` it sent, which is server truth for slot deadlines). One
// definition for the simulator (sim/world.cc) and the real-time recorder
// (impl/realtime), so both write the same history for the same call; and
// the reply, typed.
#pragma once

#include "redis/reply.h"
#include "model/script_call.h"
#include "traces/event.h"

namespace locksim {

void set_script_call_fields(const ScriptCall& call, Event* e);

// A reply as its Script event records it (traces/event_reply.h): nil, an
// integer and an error as such, a bulk string or an array as its text
// (Reply::to_string()), into *out keeping its storage. Its text is
// reply.to_string(), byte for byte.
void set_event_reply(const Reply& reply, EventReply* out);

}  // namespace locksim
