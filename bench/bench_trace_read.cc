// What reading a trace costs per event line, in steps, on the checker-10m
// workload's lines (encoded as the trace writer writes them, "lr" lines
// included, held in memory so that no file reading counts):
//   ParseOnly      simdjson's DOM parse of each line and nothing else: the
//                  floor of any JSON Lines reader built on simdjson;
//   Decode         the fast decoder: the parse, then filling the Event.
// `locksim check` pays Decode on its reading thread and the checkers on its
// other thread, so on two cores it cannot exceed 2 / (Decode + checkers)
// events per second (README, Performance, "Still short"). Nothing here
// asserts a speed.
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include <simdjson.h>

#include "sim/bench_scenarios.h"
#include "traces/fast_event_decoder.h"
#include "traces/line_memory.h"
#include "traces/trace_format.h"

namespace locksim {
namespace {

// The first 300 k events of checker-10m's run as trace lines (no header).
const std::vector<std::string>& checker_lines() {
  static const std::vector<std::string> lines = [] {
    std::vector<std::string> out;
    LineMemory memory;
    run_first_events(checker_history_scenario(1), 300'000,
                     [&](const Event& e) { out.push_back(encode_event(e, memory.repeats(e))); });
    return out;
  }();
  return lines;
}

void report(benchmark::State& state, uint64_t lines, uint64_t bytes) {
  state.counters["lines/s"] = benchmark::Counter(static_cast<double>(lines), benchmark::Counter::kIsRate);
  state.counters["ns/line"] = benchmark::Counter(static_cast<double>(lines),
                                                 benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["bytes/line"] = static_cast<double>(bytes) / static_cast<double>(lines);
}

void BM_ParseOnly(benchmark::State& state) {
  const std::vector<std::string>& lines = checker_lines();
  simdjson::dom::parser parser;
  std::vector<char> padded;
  uint64_t count = 0, bytes = 0, parsed = 0;
  for (auto _ : state) {
    for (const std::string& line : lines) {
      padded.resize(line.size() + simdjson::SIMDJSON_PADDING);
      std::memcpy(padded.data(), line.data(), line.size());
      simdjson::dom::element root;
      if (parser.parse(padded.data(), line.size(), false).get(root) == simdjson::SUCCESS) ++parsed;
      bytes += line.size();
    }
    count += lines.size();
  }
  if (parsed != count) state.SkipWithError("a line did not parse");
  report(state, count, bytes);
}

void BM_Decode(benchmark::State& state) {
  const std::vector<std::string>& lines = checker_lines();
  FastEventDecoder decoder;
  Event event;
  uint64_t count = 0, bytes = 0, decoded = 0;
  for (auto _ : state) {
    for (const std::string& line : lines) {
      bool repeated = false;
      if (decoder.decode(line, &event, &repeated)) ++decoded;
      bytes += line.size();
    }
    count += lines.size();
  }
  if (decoded != count) state.SkipWithError("the fast decoder declined a line");
  report(state, count, bytes);
}

BENCHMARK(BM_ParseOnly)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_Decode)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace
}  // namespace locksim

BENCHMARK_MAIN();
