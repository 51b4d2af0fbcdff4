// run_redis_benchmark: runs Redis's own `redis-benchmark` against a server on
// 127.0.0.1:port with one connection, no pipelining:
//   redis-benchmark -h 127.0.0.1 -p PORT -c 1 -n REQUESTS --csv COMMAND...
// and returns its requests per second, or why there is none (redis-benchmark
// not on PATH, it failed, or its output had no rate). The child dies with
// us (PR_SET_PDEATHSIG) and gets no shell.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace locksim {

struct RedisBenchmarkResult {
  std::optional<double> requests_per_s;
  std::string error;  // set when requests_per_s is not
  double cpu_s = 0;   // user + system CPU seconds redis-benchmark used
};

RedisBenchmarkResult run_redis_benchmark(int port, uint64_t requests, const std::vector<std::string>& command);

// The rate in redis-benchmark's --csv output (the "rps" column of the first
// data row); nullopt if there is none.
std::optional<double> parse_redis_benchmark_csv(const std::string& csv);

}  // namespace locksim
