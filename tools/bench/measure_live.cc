// The live measurement: rlock pairs through the LiveBackend on our own
// redis-server in virtual time, then redis-benchmark's single-connection
// EVALSHA rate of the rlock_acquire script on the same server. Beside each
// rate, the CPU time per script of each side (ours or redis-benchmark's, and
// redis-server's): wall-clock rates on a loaded machine swing, CPU per
// script much less.
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
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

namespace {

double seconds(const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; }

// User + system CPU seconds of the calling thread.
double thread_cpu_s() {
  rusage u{};
  ::getrusage(RUSAGE_THREAD, &u);
  return seconds(u.ru_utime) + seconds(u.ru_stime);
}

// User + system CPU seconds the server has used (INFO cpu), if it says.
std::optional<double> server_cpu_s(RedisConn& conn) {
  const Reply info = conn.command({"INFO", "cpu"});
  if (info.kind != Reply::Kind::Bulk) return std::nullopt;
  double total = 0;
  for (const char* field : {"used_cpu_sys:", "used_cpu_user:"}) {
    const size_t at = info.text.find(field);
    if (at == std::string::npos) return std::nullopt;
    total += std::strtod(info.text.c_str() + at + std::char_traits<char>::length(field), nullptr);
  }
  return total;
}

// " (CPU per script: <who> 9.1 us, redis-server 11.2 us)", or "" when the
// server's figure is missing.
std::string cpu_detail(const char* who, double who_cpu_s, std::optional<double> server_before,
                       std::optional<double> server_after, uint64_t scripts) {
  if (!server_before || !server_after || scripts == 0) return "";
  const double n = static_cast<double>(scripts);
  char out[160];
  std::snprintf(out, sizeof out, "; CPU per script: %s %.1f us, redis-server %.1f us", who, who_cpu_s * 1e6 / n,
                (*server_after - *server_before) * 1e6 / n);
  return out;
}

}  // namespace

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
  RedisConn conn = RedisConn::connect(RedisConnOptions{server->host(), server->port()});
  double live_rate = 0;
  {
    LiveBackend backend({server.get()}, pack, kKeyPrefix);
    const std::optional<double> server_before = server_cpu_s(conn);
    const double cpu_before = thread_cpu_s();
    const WallTimer timer;
    const uint64_t scripts = run_rlock_pairs(backend, sizes.live_pairs, kBenchStartUs);
    const double wall_s = timer.elapsed_s();
    const double cpu_s = thread_cpu_s() - cpu_before;
    const std::optional<double> server_after = server_cpu_s(conn);
    live_rate = static_cast<double>(scripts) / wall_s;
    char detail[200];
    std::snprintf(detail, sizeof detail, "live: %llu rlock acquire+release scripts in %.2f s (redis-server %s)",
                  static_cast<unsigned long long>(scripts), wall_s, server->version().c_str());
    report->set("live_execs_per_s", live_rate,
                detail + cpu_detail("locksim", cpu_s, server_before, server_after, scripts));
  }
  // The same acquire script, by another owner, straight from redis-benchmark.
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
  const std::optional<double> server_before = server_cpu_s(conn);
  const RedisBenchmarkResult rb = run_redis_benchmark(server->port(), sizes.redis_benchmark_requests, command);
  const std::optional<double> server_after = server_cpu_s(conn);
  if (!rb.requests_per_s) {
    report->set_null("redis_benchmark_evalsha_per_s", rb.error);
    report->set_null("live_vs_redis_benchmark", "no redis-benchmark rate: " + rb.error);
    return;
  }
  char detail[200];
  std::snprintf(detail, sizeof detail, "redis-benchmark -c 1 -n %llu EVALSHA <rlock_acquire> on the same server",
                static_cast<unsigned long long>(sizes.redis_benchmark_requests));
  report->set("redis_benchmark_evalsha_per_s", *rb.requests_per_s,
              detail + cpu_detail("redis-benchmark", rb.cpu_s, server_before, server_after,
                                  sizes.redis_benchmark_requests));
  report->set("live_vs_redis_benchmark", live_rate / *rb.requests_per_s,
              "live_execs_per_s / redis_benchmark_evalsha_per_s");
}

}  // namespace locksim
