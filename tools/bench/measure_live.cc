// The live measurement: rlock pairs through the LiveBackend on our own
// redis-server in virtual time, then redis-benchmark's single-connection
// EVALSHA rate of the rlock_acquire script on the same server.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "impl/redis_conn.h"
#include "impl/script_pack.h"
#include "sim/bench_scenarios.h"
#include "sim/live_backend.h"
#include "tools/bench/bench_measure.h"
#include "tools/bench/redis_benchmark.h"
#include "tools/bench/wall_timer.h"
#include "tools/server/redis_server.h"

namespace locksim {

void measure_live(const BenchSizes& sizes, BenchReport* report) {
  std::unique_ptr<RedisServer> server;
  try {
    server = std::make_unique<RedisServer>();
  } catch (const RedisError& e) {
    const std::string reason = std::string("no live redis-server on the virtual clock: ") + e.what();
    report->set_null("live_execs_per_s", reason);
    report->set_null("redis_benchmark_evalsha_per_s", reason);
    report->set_null("live_vs_redis_benchmark", reason);
    return;
  }
  const ScriptPack pack = ScriptPack::load(ScriptPack::default_dir());
  double live_rate = 0;
  {
    LiveBackend backend({server.get()}, pack, kKeyPrefix);
    const WallTimer timer;
    const uint64_t scripts = run_rlock_pairs(backend, sizes.live_pairs, kBenchStartUs);
    const double wall_s = timer.elapsed_s();
    live_rate = static_cast<double>(scripts) / wall_s;
    char detail[200];
    std::snprintf(detail, sizeof detail, "live: %llu rlock acquire+release scripts in %.2f s (redis-server %s)",
                  static_cast<unsigned long long>(scripts), wall_s, server->version().c_str());
    report->set("live_execs_per_s", live_rate, detail);
  }
  // The same acquire script, by another owner, straight from redis-benchmark.
  RedisConn conn = RedisConn::connect(RedisConnOptions{server->host(), server->port()});
  const Reply sha = conn.command({"SCRIPT", "LOAD", pack.script(ScriptKind::RlockAcquire).source});
  if (sha.is_error() || sha.text.empty()) {
    report->set_null("redis_benchmark_evalsha_per_s", "SCRIPT LOAD failed: " + sha.to_string());
    report->set_null("live_vs_redis_benchmark", "no redis-benchmark rate");
    return;
  }
  const ScriptArgs args = pack.build_args(bench_rlock_call(ScriptKind::RlockAcquire, "B:1", ""));
  std::vector<std::string> command = {"EVALSHA", sha.text, std::to_string(args.keys.size())};
  command.insert(command.end(), args.keys.begin(), args.keys.end());
  command.insert(command.end(), args.argv.begin(), args.argv.end());
  const RedisBenchmarkResult rb = run_redis_benchmark(server->port(), sizes.redis_benchmark_requests, command);
  if (!rb.requests_per_s) {
    report->set_null("redis_benchmark_evalsha_per_s", rb.error);
    report->set_null("live_vs_redis_benchmark", "no redis-benchmark rate: " + rb.error);
    return;
  }
  char detail[200];
  std::snprintf(detail, sizeof detail, "redis-benchmark -c 1 -n %llu EVALSHA <rlock_acquire> on the same server",
                static_cast<unsigned long long>(sizes.redis_benchmark_requests));
  report->set("redis_benchmark_evalsha_per_s", *rb.requests_per_s, detail);
  report->set("live_vs_redis_benchmark", live_rate / *rb.requests_per_s,
              "live_execs_per_s / redis_benchmark_evalsha_per_s");
}

}  // namespace locksim
