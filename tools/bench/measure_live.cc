// The live measurement: rlock pairs through the LiveBackend on our own
// redis-server in virtual time, and redis-benchmark's single-connection
// EVALSHA rate of the rlock_acquire script on the same server, in five
// alternating rounds; each figure is the median over the rounds. Beside each
// rate, the CPU time per script of each side (ours or redis-benchmark's, and
// redis-server's): wall-clock rates on a loaded machine swing, CPU per
// script much less.
#include <sys/resource.h>

#include <algorithm>
#include <cassert>
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
std::string cpu_detail(const char* who, double who_cpu_s, double server_cpu_s, bool server_known,
                       uint64_t scripts) {
  if (!server_known || scripts == 0) return "";
  const double n = static_cast<double>(scripts);
  char out[160];
  std::snprintf(out, sizeof out, "; CPU per script: %s %.1f us, redis-server %.1f us", who, who_cpu_s * 1e6 / n,
                server_cpu_s * 1e6 / n);
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
  LiveBackend backend({server.get()}, pack, kKeyPrefix);
  // The same acquire script, by another owner, straight from redis-benchmark.
  const Reply sha = conn.command({"SCRIPT", "LOAD", pack.script(ScriptKind::RlockAcquire).source});
  const ScriptArgs args = pack.build_args(bench_rlock_call(ScriptKind::RlockAcquire, "B:1", ""));
  std::vector<std::string> command = {"EVALSHA", sha.text, std::to_string(args.keys.size())};
  command.insert(command.end(), args.keys.begin(), args.keys.end());
  command.insert(command.end(), args.argv.begin(), args.argv.end());
  // Alternating rounds, so that both rates see the same load of the machine
  // (one long phase each swung the ratio from 0.4 to 2.5 on a loaded
  // machine), and medians, so that one round hit by a burst of load (a short
  // redis-benchmark run measured at a seventh of its rate) does not decide.
  // Each live round starts on an emptied server (the latches of the last
  // round would answer its releases) at the same server time, like one run.
  constexpr uint64_t kRounds = 5;
  std::vector<double> live_rates;
  std::vector<double> rb_rates;
  std::vector<double> ratios;  // of the live round and the redis-benchmark run after it
  const uint64_t pairs = std::max<uint64_t>(1, sizes.live_pairs / kRounds);
  const uint64_t requests = std::max<uint64_t>(1, sizes.redis_benchmark_requests / kRounds);
  uint64_t scripts = 0;
  double live_wall_s = 0;
  double live_cpu_s = 0;
  double live_server_cpu_s = 0;
  double rb_cpu_s = 0;
  double rb_server_cpu_s = 0;
  bool server_cpu_known = true;
  std::string rb_error = sha.is_error() || sha.text.empty() ? "SCRIPT LOAD failed: " + sha.to_string() : "";
  for (uint64_t round = 0; round < kRounds; ++round) {
    backend.wipe();
    std::optional<double> server_before = server_cpu_s(conn);
    const double cpu_before = thread_cpu_s();
    const WallTimer timer;
    const uint64_t round_scripts = run_rlock_pairs(backend, pairs, kBenchStartUs, [&] { backend.wipe(); });
    const double round_wall_s = timer.elapsed_s();
    scripts += round_scripts;
    live_wall_s += round_wall_s;
    live_rates.push_back(static_cast<double>(round_scripts) / round_wall_s);
    live_cpu_s += thread_cpu_s() - cpu_before;
    std::optional<double> server_after = server_cpu_s(conn);
    server_cpu_known = server_cpu_known && server_before && server_after;
    if (server_cpu_known) live_server_cpu_s += *server_after - *server_before;
    if (!rb_error.empty()) continue;
    server_before = server_cpu_s(conn);
    const RedisBenchmarkResult rb = run_redis_benchmark(server->port(), requests, command);
    server_after = server_cpu_s(conn);
    if (!rb.requests_per_s) {
      rb_error = rb.error;
      continue;
    }
    rb_rates.push_back(*rb.requests_per_s);
    ratios.push_back(live_rates.back() / *rb.requests_per_s);
    rb_cpu_s += rb.cpu_s;
    server_cpu_known = server_cpu_known && server_before && server_after;
    if (server_cpu_known) rb_server_cpu_s += *server_after - *server_before;
  }
  char detail[240];
  std::snprintf(detail, sizeof detail,
                "live: %llu rlock acquire+release scripts in %.2f s, median of %llu rounds (redis-server %s)",
                static_cast<unsigned long long>(scripts), live_wall_s, static_cast<unsigned long long>(kRounds),
                server->version().c_str());
  report->set("live_execs_per_s", median(live_rates),
              detail + cpu_detail("locksim", live_cpu_s, live_server_cpu_s, server_cpu_known, scripts));
  if (!rb_error.empty()) {
    report->set_null("redis_benchmark_evalsha_per_s", rb_error);
    report->set_null("live_vs_redis_benchmark", "no redis-benchmark rate: " + rb_error);
    return;
  }
  std::snprintf(detail, sizeof detail,
                "redis-benchmark -c 1 -n %llu EVALSHA <rlock_acquire> on the same server after each live round, "
                "median",
                static_cast<unsigned long long>(requests));
  report->set("redis_benchmark_evalsha_per_s", median(rb_rates),
              detail + cpu_detail("redis-benchmark", rb_cpu_s, rb_server_cpu_s, server_cpu_known,
                                  requests * kRounds));
  report->set("live_vs_redis_benchmark", median(ratios),
              "median over the rounds of live rate / the next redis-benchmark rate");
}

}  // namespace locksim
