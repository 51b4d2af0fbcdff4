// locksim stress [--threads T] [--locks K] [--lock rlock|fair] [--duration-s D]
//                [--lease-ms L] [--clients C] [--redis HOST:PORT] [--trace FILE]
//                [--mutant NAME] [--benchmark-requests N]
// Many real threads contend for K locks through the real-time lock library
// (impl/realtime/redis_lock_client.h) on a live Redis: its own plain
// redis-server by default, a named one only with --redis (and then only keys
// under the run's prefix "lsim:stress:<run>:" plus "lsim:realtime:clock" are
// written; the run deletes its keys at the end). Each hold sets a per-lock
// in-critical-section flag (an overlap is seen directly) and increments a
// per-lock counter with a plain load and store (an overlap loses counts).
// The whole history is recorded with real times and checked by every
// checker of properties/ (and written with --trace, for `locksim check`).
// Prints lock+unlock pairs/s, acquire latency p50/p99, the checkers'
// verdict, and redis-benchmark's single-connection EVALSHA rate of the
// acquire script on the same server for comparison. Speeds are reported,
// never judged. Exit 0: no overlap, no lost count, no failing property;
// 1: any of those; 2: bad input or the run could not be done.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>

#include "impl/client_mutant.h"
#include "impl/realtime/history_recorder.h"
#include "impl/realtime/redis_lock_client.h"
#include "impl/redis_conn.h"
#include "properties/checker_suite.h"
#include "properties/scenario_check.h"
#include "properties/violation.h"
#include "sim/run.h"
#include "sim/scenario.h"
#include "tools/bench/redis_benchmark.h"
#include "tools/cli/commands.h"
#include "tools/server/redis_server.h"
#include "traces/output_file.h"
#include "traces/trace_writer.h"

namespace locksim::cli {

namespace {

struct StressArgs {
  int threads = 16;
  int locks = 4;
  std::string lock = "rlock";
  double duration_s = 10;
  int64_t lease_ms = -1;
  int clients = 0;  // 0: min(threads, 4)
  std::string redis;
  std::string trace;
  std::string mutant = "none";
  uint64_t benchmark_requests = 20'000;
};

struct ThreadResult {
  uint64_t pairs = 0;
  uint64_t not_held = 0;  // unlock refused: the hold was gone (a broken client)
  uint64_t gave_up = 0;   // waits cut off at the end of the duration
  std::vector<uint32_t> acquire_us;
  std::string error;
};

RedisConnOptions parse_redis(const std::string& text) {
  const size_t colon = text.rfind(':');
  int port = 0;
  if (colon == std::string::npos || colon == 0 || !parse_whole_integer(text.substr(colon + 1), &port) || port < 1 ||
      port > 65535) {
    throw UsageError("--redis: expected HOST:PORT with a port in [1, 65535], got '" + text + "'");
  }
  RedisConnOptions o;
  o.host = text.substr(0, colon);
  o.port = port;
  return o;
}

std::string run_id() {
  std::random_device device;
  char text[16];
  std::snprintf(text, sizeof text, "%08x", device());
  return text;
}

double percentile_ms(std::vector<uint32_t>& sorted_us, double p) {
  if (sorted_us.empty()) return 0;
  const size_t i = std::min(sorted_us.size() - 1, static_cast<size_t>(std::ceil(p * sorted_us.size())) - 1);
  return sorted_us[i] / 1000.0;
}

// Deletes every key whose name contains `prefix` (SCAN, never KEYS or FLUSH).
void delete_keys_containing(const RedisConnOptions& where, const std::string& prefix) {
  RedisConn conn = RedisConn::connect(where);
  std::string cursor = "0";
  for (int rounds = 0; rounds < 100'000; ++rounds) {
    const Reply r = conn.command({"SCAN", cursor, "MATCH", "*" + prefix + "*", "COUNT", "1000"});
    if (r.kind != Reply::Kind::Array || r.elements.size() != 2) return;
    for (const Reply& key : r.elements[1].elements) conn.command({"DEL", key.text});
    cursor = r.elements[0].text;
    if (cursor == "0") return;
  }
}

// redis-benchmark -c 1 EVALSHA of the acquire script on the same server, as
// `locksim bench` measures it (tools/bench/redis_benchmark.h).
std::string benchmark_line(const RedisConnOptions& where, const ScriptPack& pack, const std::string& key,
                           uint64_t requests, double pairs_per_s) {
  if (requests == 0) return "redis-benchmark: not run (--benchmark-requests 0)";
  if (where.host != "127.0.0.1" && where.host != "localhost") {
    return "redis-benchmark: not run (it is run against 127.0.0.1 only)";
  }
  RedisConn conn = RedisConn::connect(where);
  const Reply sha = conn.command({"SCRIPT", "LOAD", pack.script(ScriptKind::RlockAcquire).source});
  if (sha.kind != Reply::Kind::Bulk) return "redis-benchmark: not run (SCRIPT LOAD: " + sha.to_string() + ")";
  ScriptCall call;
  call.kind = ScriptKind::RlockAcquire;
  call.params.lock = key;
  call.params.owner = "bench:1";
  call.params.lease_ms = 30'000;
  const ScriptArgs args = pack.build_args(call);
  std::vector<std::string> command = {"EVALSHA", sha.text, std::to_string(args.keys.size())};
  command.insert(command.end(), args.keys.begin(), args.keys.end());
  command.insert(command.end(), args.argv.begin(), args.argv.end());
  const RedisBenchmarkResult rb = run_redis_benchmark(where.port, requests, command);
  conn.command({"DEL", key});
  if (!rb.requests_per_s) return "redis-benchmark: not measured (" + rb.error + ")";
  char line[256];
  std::snprintf(line, sizeof line,
                "redis-benchmark -c 1 -n %llu EVALSHA rlock_acquire, same server: %.0f requests/s "
                "(stress pairs/s = %.3f of it; a pair is 2 scripts, each in a recorded transaction)",
                static_cast<unsigned long long>(requests), *rb.requests_per_s, pairs_per_s / *rb.requests_per_s);
  return line;
}

// The flags parsed (pure): the lock kind, the client mutant, the clients,
// the server named with --redis.
struct StressRequest {
  StressArgs args;
  ClientMutant mutant = ClientMutant::None;
  int clients = 1;
  std::optional<RedisConnOptions> redis;  // nullopt: a redis-server of our own
};

StressRequest validate_stress(const StressArgs& args) {
  if (args.lock != "rlock" && args.lock != "fair") {
    throw UsageError("--lock: expected rlock or fair, got '" + args.lock + "'");
  }
  StressRequest q;
  q.args = args;
  const auto mutant = client_mutant_from_name(args.mutant);
  if (!mutant) throw UsageError("--mutant: unknown client mutant '" + args.mutant + "' (see `locksim mutants`)");
  q.mutant = *mutant;
  q.clients = args.clients > 0 ? args.clients : std::min(args.threads, 4);
  if (q.clients > args.threads) throw UsageError("--clients must be at most --threads");
  if (!args.redis.empty()) q.redis = parse_redis(args.redis);
  return q;
}

// Each client holds two connections (commands, wake-ups), and so does our
// own redis-server for it: the soft limit on open files raised to what the
// run needs (up to the hard limit), before the server inherits it.
void raise_file_limit(int clients) {
  const rlim_t needed = static_cast<rlim_t>(clients) * 2 + 128;
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur == RLIM_INFINITY || files.rlim_cur >= needed) return;
  if (files.rlim_max != RLIM_INFINITY && files.rlim_max < needed) {
    throw UsageError("--clients " + std::to_string(clients) + " needs about " + std::to_string(needed) +
                     " open files, but this process may open at most " + std::to_string(files.rlim_max) +
                     " (ulimit -Hn); use fewer clients");
  }
  files.rlim_cur = needed;
  if (::setrlimit(RLIMIT_NOFILE, &files) != 0) {
    throw UsageError("cannot raise the open-file limit to " + std::to_string(needed) + " for --clients " +
                     std::to_string(clients));
  }
}

// Where the run's Redis is: the one --redis names, or one of our own.
struct StressServer {
  std::unique_ptr<RedisServer> own;
  RedisConnOptions where;
  std::string text;
};

StressServer stress_server(const StressRequest& q) {
  StressServer out;
  if (q.redis) {
    out.where = *q.redis;
    out.text = "redis " + out.where.host + ":" + std::to_string(out.where.port) + " (named with --redis)";
    return out;
  }
  RedisServerOptions o;
  o.virtual_clock = false;
  try {
    out.own = std::make_unique<RedisServer>(o);
  } catch (const RedisError& e) {
    throw UsageError(std::string("cannot start redis-server: ") + e.what());
  }
  out.where.host = out.own->host();
  out.where.port = out.own->port();
  out.text = "own redis-server " + out.own->version() + " on 127.0.0.1:" + std::to_string(out.where.port);
  return out;
}

// The shared state the locks guard (a flag and a counter per lock) and what
// each thread did.
struct StressState {
  explicit StressState(int locks) : inside(static_cast<size_t>(locks)), counters(static_cast<size_t>(locks)) {
    for (auto& f : inside) f.store(false);
    for (auto& c : counters) c.store(0);
  }
  std::vector<std::atomic<bool>> inside;
  std::vector<std::atomic<uint64_t>> counters;
  std::atomic<uint64_t> overlaps{0};
};

// One thread's loop: lock, a guarded read-modify-write, unlock, until the
// duration ends (a waiter still in line then gives up).
void stress_thread(const StressArgs& args, RedisLockClient& client, const std::vector<std::string>& lock_names,
                   std::chrono::steady_clock::time_point stop_at, int t, StressState& state, ThreadResult& out) {
  std::mt19937 rng(static_cast<uint32_t>(t) * 2654435761u + 1);
  try {
    while (std::chrono::steady_clock::now() < stop_at) {
      const size_t k = rng() % static_cast<uint32_t>(args.locks);
      RLock lock = args.lock == "fair" ? client.get_fair_lock(lock_names[k]) : client.get_lock(lock_names[k]);
      const auto t0 = std::chrono::steady_clock::now();
      const int64_t left_ms =
          std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::milliseconds>(stop_at - t0).count());
      if (!lock.try_lock(left_ms, args.lease_ms > 0 ? args.lease_ms : -1)) {
        ++out.gave_up;
        break;
      }
      const auto waited = std::chrono::steady_clock::now() - t0;
      out.acquire_us.push_back(static_cast<uint32_t>(
          std::min<int64_t>(std::chrono::duration_cast<std::chrono::microseconds>(waited).count(), UINT32_MAX)));
      if (state.inside[k].exchange(true)) ++state.overlaps;
      const uint64_t seen = state.counters[k].load(std::memory_order_relaxed);
      std::this_thread::yield();  // widen the window an overlap needs to lose a count
      state.counters[k].store(seen + 1, std::memory_order_relaxed);
      state.inside[k].store(false);
      try {
        lock.unlock();
      } catch (const LockNotHeldError&) {
        ++out.not_held;
      }
      ++out.pairs;
    }
  } catch (const std::exception& e) {
    out.error = e.what();
  }
}

// The threads' results summed.
struct StressTally {
  uint64_t pairs = 0, not_held = 0, gave_up = 0, counted = 0, overlaps = 0;
  std::vector<uint32_t> latencies;  // sorted
  std::vector<std::string> errors;
  double wall_s = 0;
  double pairs_per_s() const { return wall_s > 0 ? pairs / wall_s : 0; }
  bool failed(size_t failing) const { return overlaps > 0 || counted != pairs || failing > 0; }
};

StressTally tally(std::vector<ThreadResult>& results, const StressState& state, double wall_s) {
  StressTally t;
  t.wall_s = wall_s;
  for (ThreadResult& r : results) {
    t.pairs += r.pairs;
    t.not_held += r.not_held;
    t.gave_up += r.gave_up;
    t.latencies.insert(t.latencies.end(), r.acquire_us.begin(), r.acquire_us.end());
    if (!r.error.empty()) t.errors.push_back(r.error);
  }
  for (auto& c : state.counters) t.counted += c.load();
  t.overlaps = state.overlaps.load();
  std::sort(t.latencies.begin(), t.latencies.end());
  return t;
}

void print_stress(const StressRequest& q, const StressServer& server, StressTally& t, const HistoryRecorder& recorder,
                  const std::vector<Violation>& all, size_t failing, const std::string& bench,
                  const std::string& trace_error) {
  const StressArgs& args = q.args;
  std::printf("stress: %d threads on %d clients, %d %s lock(s), %s, %.1f s on %s\n", args.threads, q.clients,
              args.locks, args.lock.c_str(),
              args.lease_ms > 0 ? ("explicit lease " + std::to_string(args.lease_ms) + " ms").c_str()
                                : "watchdog lease 30000 ms",
              t.wall_s, server.text.c_str());
  if (q.mutant != ClientMutant::None) std::printf("  client mutant: %s\n", args.mutant.c_str());
  std::printf("  pairs: %llu lock+unlock in %.2f s = %.0f pairs/s\n", static_cast<unsigned long long>(t.pairs),
              t.wall_s, t.pairs_per_s());
  std::printf("  acquire latency: p50 %.3f ms, p99 %.3f ms, max %.3f ms (%zu acquires; %llu waits given up at the "
              "end of the duration)\n",
              percentile_ms(t.latencies, 0.50), percentile_ms(t.latencies, 0.99),
              t.latencies.empty() ? 0.0 : t.latencies.back() / 1000.0, t.latencies.size(),
              static_cast<unsigned long long>(t.gave_up));
  std::printf("  overlaps seen by the in-critical-section flags: %llu; counter increments lost: %llu; "
              "unlocks refused (hold gone): %llu\n",
              static_cast<unsigned long long>(t.overlaps),
              static_cast<unsigned long long>(t.pairs >= t.counted ? t.pairs - t.counted : 0),
              static_cast<unsigned long long>(t.not_held));
  std::printf("  history: %llu events; scripts out of server order: %llu, dropped: %llu%s\n",
              static_cast<unsigned long long>(recorder.events()),
              static_cast<unsigned long long>(recorder.scripts_unordered()),
              static_cast<unsigned long long>(recorder.scripts_dropped()),
              recorder.spy_error().empty() ? "" : ("; " + recorder.spy_error()).c_str());
  std::printf("  checkers: %zu violation(s), %zu failing\n", all.size(), failing);
  for (const Violation& v : all) {
    std::printf("    %s %s\n", is_advisory_property(v.property) ? "note" : "FAIL", v.to_string().c_str());
  }
  std::printf("  %s\n", bench.c_str());
  if (!args.trace.empty()) {
    std::printf("  trace: %s%s\n", args.trace.c_str(), trace_error.empty() ? "" : (" NOT written: " + trace_error).c_str());
  }
  for (const std::string& e : t.errors) std::printf("  thread error: %s\n", e.c_str());
}

// The run's keys gone, then redis-benchmark on the same server.
std::string clean_up_and_benchmark(const StressServer& server, const std::string& prefix, uint64_t requests,
                                   double pairs_per_s) {
  try {
    delete_keys_containing(server.where, prefix);
    RedisConn(RedisConn::connect(server.where)).command({"DEL", "lsim:realtime:clock"});  // the history's clock probe
    return benchmark_line(server.where, ScriptPack::load(ScriptPack::default_dir()), prefix + "bench", requests,
                          pairs_per_s);
  } catch (const std::exception& e) {
    return std::string("redis-benchmark: not measured (") + e.what() + ")";
  }
}

int run_stress(const StressRequest& q) {
  const StressArgs& args = q.args;
  raise_file_limit(q.clients);
  const StressServer server = stress_server(q);
  const std::string prefix = "lsim:stress:" + run_id() + ":";
  std::vector<std::string> lock_names;
  for (int k = 0; k < args.locks; ++k) lock_names.push_back(prefix + "L" + std::to_string(k));
  Scenario scenario;
  scenario.seed = 0;
  scenario.clients = q.clients;
  scenario.locks = args.locks;
  scenario.lock_kind = args.lock == "fair" ? ScenarioLockKind::Fair : ScenarioLockKind::Rlock;  // checked
  scenario.duration_ms = static_cast<int64_t>(std::llround(args.duration_s * 1000));
  scenario.mutant = q.mutant;
  std::unique_ptr<TraceWriter> writer;
  if (!args.trace.empty()) {
    try {
      writer = std::make_unique<TraceWriter>(args.trace, make_trace_header(scenario, "realtime"));
    } catch (const TraceError& e) {
      throw_output_failure(e, "cannot write trace: ");
    }
  }
  RedisLockClientOptions client_options;
  client_options.server = server.where;
  client_options.config.mutant = q.mutant;
  CheckConfig check_config = default_check_config();
  check_config.default_lease_ms = client_options.config.watchdog_lease_ms;
  CheckerSuite suite(check_config);
  FanoutSink sink;
  sink.add(&suite);
  if (writer) sink.add(writer.get());
  std::unique_ptr<HistoryRecorder> recorder;
  std::vector<std::unique_ptr<RedisLockClient>> lock_clients;
  try {
    recorder = std::make_unique<HistoryRecorder>(sink, std::vector<RedisConnOptions>{server.where});
    client_options.history = recorder.get();
    for (int c = 0; c < q.clients; ++c) lock_clients.push_back(std::make_unique<RedisLockClient>(client_options));
  } catch (const std::exception& e) {
    throw UsageError(std::string("cannot connect: ") + e.what());
  }
  check_config.clock_epoch_ms = recorder->wall_epoch_ms();
  StressState state(args.locks);
  std::vector<ThreadResult> results(static_cast<size_t>(args.threads));
  const auto start = std::chrono::steady_clock::now();
  const auto stop_at = start + std::chrono::microseconds(static_cast<int64_t>(args.duration_s * 1e6));
  std::vector<std::thread> threads;
  for (int t = 0; t < args.threads; ++t) {
    threads.emplace_back([&, t] {
      stress_thread(args, *lock_clients[static_cast<size_t>(t % q.clients)], lock_names, stop_at, t, state,
                    results[static_cast<size_t>(t)]);
    });
  }
  for (auto& th : threads) th.join();
  StressTally t = tally(results, state, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  lock_clients.clear();
  recorder->close();
  suite.finish();
  const std::vector<Violation> all = suite.violations();
  const size_t failing = static_cast<size_t>(
      std::count_if(all.begin(), all.end(), [](const Violation& v) { return !is_advisory_property(v.property); }));
  std::string trace_error;
  bool trace_refused_by_system = false;
  if (writer) {
    try {
      writer->close();
    } catch (const TraceError& e) {
      trace_error = e.what();
      trace_refused_by_system = is_system_output_failure(e);
    }
  }
  const std::string bench = clean_up_and_benchmark(server, prefix, args.benchmark_requests, t.pairs_per_s());
  print_stress(q, server, t, *recorder, all, failing, bench, trace_error);
  const bool failed = t.failed(failing);
  if (!t.errors.empty() || !trace_error.empty()) {
    std::printf("stress: ERROR (%zu thread error(s)%s)\n", t.errors.size(), trace_error.empty() ? "" : ", trace");
    return failed ? 1 : (t.errors.empty() && trace_refused_by_system ? kExitEnvironment : 2);
  }
  std::printf("stress: %s\n", failed ? "FAILED" : "ok");
  return failed ? 1 : 0;
}

}  // namespace

void add_stress_command(CLI::App& app, CliContext* ctx) {
  auto args = std::make_shared<StressArgs>();
  CLI::App* cmd = app.add_subcommand(
      "stress",
      "Real threads contend for locks on a live Redis through the lock library; overlaps, checkers, pairs/s, "
      "p50/p99 acquire latency, redis-benchmark EVALSHA rate");
  cmd->add_option("--threads", args->threads, "Threads contending")->capture_default_str()->transform(integer_in(1, 1024));
  cmd->add_option("--locks", args->locks, "Locks they contend for (each thread picks one at random per hold)")
      ->capture_default_str()->transform(integer_in(1, kMaxLocks));
  cmd->add_option("--lock", args->lock, "Lock kind: rlock or fair")->capture_default_str();
  cmd->add_option("--duration-s", args->duration_s, "Seconds of real time the threads keep locking; a thread still waiting at the end gives up (tryLock with the time left), so the run ends about then")
      ->capture_default_str()->check(decimal_in(0.1, 3600));
  cmd->add_option("--lease-ms", args->lease_ms,
                  "Explicit lease of every hold, no watchdog (default: watchdog, lease 30000 ms)")
      ->transform(integer_in<int64_t>(1, 86'400'000));
  cmd->add_option("--clients", args->clients, "Client processes (UUIDs) the threads are spread over (default: "
                  "min(threads, 4))")->transform(integer_in(1, 1024));
  cmd->add_option("--redis", args->redis,
                  "Use this running Redis (HOST:PORT) instead of starting one; only keys whose names contain the "
                  "run's prefix lsim:stress:<run>: and the clock probe lsim:realtime:clock are written (and deleted "
                  "at the end)");
  cmd->add_option("--trace", args->trace, "Write the recorded history here (check it with `locksim check`)");
  cmd->add_option("--mutant", args->mutant, "Client mutant, to see the detectors catch a broken client "
                  "(default: none)")->capture_default_str();
  cmd->add_option("--benchmark-requests", args->benchmark_requests,
                  "redis-benchmark requests for the comparison (0: skip)")
      ->capture_default_str()->transform(non_negative_integer());
  cmd->callback([args, ctx] { ctx->exit_code = run_stress(validate_stress(*args)); });
}

}  // namespace locksim::cli
