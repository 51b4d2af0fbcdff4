// ServerControl: what a live backend needs from a Redis server it drives in
// virtual time: where to connect, a way to set the server's clock, a
// restart that loses all data (no persistence), and append-only persistence
// with a restart that keeps it. Implemented by
// tools/server/redis_server.h (a redis-server under the vclock shim); an
// interface here so impl/ and sim/ need not depend on tools/.
#pragma once

#include <cstdint>
#include <string>

namespace locksim {

class ServerControl {
 public:
  virtual ~ServerControl() = default;
  virtual std::string host() const = 0;
  virtual int port() const = 0;
  // Sets the server's clock (µs since the epoch of virtual time). Takes
  // effect for the next command the server executes.
  virtual void set_clock_us(int64_t now_us) = 0;
  void set_clock_ms(int64_t now_ms) { set_clock_us(now_ms * 1000); }
  virtual int64_t clock_us() const = 0;
  // Stops and starts the server again on the same port with empty data.
  virtual void restart() = 0;
  // Append-only persistence with an fsync on every write (appendonly yes,
  // appendfsync always), on from the next write until switched off; kept
  // across restarts. Returns once the server logs every write it acknowledges.
  virtual void set_append_only(bool on) = 0;
  virtual bool append_only() const = 0;
  // Kills the server (no clean shutdown) and starts it again on the same
  // port with the data its append-only file holds. Requires append_only().
  virtual void restart_keeping_data() = 0;
};

}  // namespace locksim
