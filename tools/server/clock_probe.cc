#include "tools/server/clock_probe.h"

#include <cstdint>

#include "impl/redis_conn.h"

namespace locksim {

namespace {

// Puts the server's clock back when the probe ends, however it ends.
class ClockRestorer {
 public:
  explicit ClockRestorer(ServerControl& server) : server_(server), saved_us_(server.clock_us()) {}
  ~ClockRestorer() { server_.set_clock_us(saved_us_); }
  ClockRestorer(const ClockRestorer&) = delete;
  ClockRestorer& operator=(const ClockRestorer&) = delete;

 private:
  ServerControl& server_;
  int64_t saved_us_;
};

std::string expiry_problem(ServerControl& server, RedisConn& conn) {
  // Far from any wall clock, so a server on real time cannot pass by chance.
  const int64_t t0_ms = 1'700'000'000'000;
  server.set_clock_ms(t0_ms);
  const Reply set = conn.command({"SET", kClockProbeKey, "v", "PX", "1000"});
  if (set != Reply::bulk("OK")) return "SET answered " + set.to_string();
  server.set_clock_ms(t0_ms + 1000);
  const Reply at = conn.command({"PTTL", kClockProbeKey});
  if (at != Reply::of_int(0)) return "at +1000 ms PTTL answered " + at.to_string() + " (expected 0)";
  const Reply still = conn.command({"EXISTS", kClockProbeKey});
  if (still != Reply::of_int(1)) return "key gone at +1000 ms (expected present until > expiry)";
  server.set_clock_ms(t0_ms + 1001);
  const Reply gone = conn.command({"EXISTS", kClockProbeKey});
  if (gone != Reply::of_int(0)) return "key still present at +1001 ms";
  return "";
}

}  // namespace

std::string probe_virtual_clock(ServerControl& server) {
  RedisConnOptions opts;
  opts.host = server.host();
  opts.port = server.port();
  auto conn = RedisConn::connect(opts);
  std::string problem;
  {
    ClockRestorer restore(server);
    problem = expiry_problem(server, conn);
  }
  const Reply del = conn.command({"DEL", kClockProbeKey});
  if (del.is_error() && problem.empty()) problem = "DEL answered " + del.to_string();
  return problem;
}

}  // namespace locksim
