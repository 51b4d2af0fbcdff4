// Virtual-clock probe: checks that a server really runs on the clock its
// ServerControl sets (the vclock shim is loaded and answers the time calls).
// A key set with PX 1000 at t must still be there at exactly t+1000 ms and be
// gone at t+1001 ms (Redis's strict expiry rule). Without the shim, Redis
// reads the wall clock and the key outlives the virtual jump.
//
// Contract: probe_virtual_clock() uses its own key (kClockProbeKey), deletes
// it, and puts the server's clock back where it found it, on every path.
// It returns "" when the clock works, else one line saying what was seen;
// it throws RedisError only when the server cannot be reached at all.
// Used by every RedisServer start and by `locksim doctor`.
#pragma once

#include <string>

#include "impl/server_control.h"

namespace locksim {

inline constexpr const char* kClockProbeKey = "locksim:clock-probe";

std::string probe_virtual_clock(ServerControl& server);

}  // namespace locksim
