// The checker-10m measurement: a contention-64 history of exactly
// sizes.checker_events events, checked in process and from a saved trace.
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "model/variant.h"
#include "properties/checker_suite.h"
#include "properties/scenario_check.h"
#include "sim/bench_scenarios.h"
#include "sim/model_backend.h"
#include "sim/run.h"
#include "sim/simulator.h"
#include "tools/bench/bench_measure.h"
#include "tools/bench/wall_timer.h"
#include "traces/trace_prefetch.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace locksim {

namespace {

// A private temp dir ($TMPDIR or /tmp), removed with everything in it.
class TempDir {
 public:
  TempDir() {
    const char* tmp = ::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/locksim-bench-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a temp dir " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Passes the first `limit` events to the trace writer and, in chunks, to the
// checkers, timing only the checkers; stops the simulator at the limit.
class CheckerBenchSink final : public EventSink {
 public:
  static constexpr size_t kChunkEvents = 1 << 16;

  CheckerBenchSink(uint64_t limit, CheckerSuite* suite, TraceWriter* writer)
      : limit_(limit), suite_(suite), writer_(writer) {
    chunk_.reserve(kChunkEvents);
  }
  void attach(Simulator* sim) { sim_ = sim; }

  void on_event(const Event& e) override {
    if (events_ == limit_) return;
    ++events_;
    writer_->write(e);
    chunk_.push_back(e);
    if (chunk_.size() == kChunkEvents) check_chunk();
    if (events_ == limit_ && sim_ != nullptr) sim_->stop();
  }
  // Checks what is left and ends the history.
  void finish() {
    check_chunk();
    const WallTimer timer;
    suite_->finish();
    checker_s_ += timer.elapsed_s();
  }
  uint64_t events() const { return events_; }
  double checker_s() const { return checker_s_; }

 private:
  void check_chunk() {
    const WallTimer timer;
    for (const Event& e : chunk_) suite_->on_event(e);
    checker_s_ += timer.elapsed_s();
    chunk_.clear();
  }

  uint64_t limit_;
  CheckerSuite* suite_;
  TraceWriter* writer_;
  Simulator* sim_ = nullptr;
  std::vector<Event> chunk_;
  uint64_t events_ = 0;
  double checker_s_ = 0;
};

}  // namespace

void measure_checker(const BenchSizes& sizes, BenchReport* report) {
  const TempDir dir;
  const std::string trace_path = dir.path() + "/checker.jsonl";
  const Scenario s = checker_history_scenario(1);  // ended by the event limit
  ModelBackend backend(s.servers, ModelVariant::Correct);
  CheckerSuite suite(default_check_config());
  size_t in_process_violations = 0;
  uint64_t events = 0;
  double sim_s = 0;
  {
    TraceWriter writer(trace_path, make_trace_header(s, "model"));
    CheckerBenchSink sink(sizes.checker_events, &suite, &writer);
    Simulator sim(s, backend, sink);
    sink.attach(&sim);
    const WallTimer timer;
    sim.run();
    sink.finish();
    writer.close();
    sim_s = timer.elapsed_s();
    events = sink.events();
    in_process_violations = suite.violations().size();
    char detail[256];
    std::snprintf(detail, sizeof detail,
                  "checker-10m: %llu events (64 clients, 4 locks mixed, no faults) checked in %.2f s (simulated, written and checked "
                  "in %.2f s), %zu violation(s)",
                  static_cast<unsigned long long>(events), sink.checker_s(), sim_s, in_process_violations);
    report->set("checker_events_per_s", static_cast<double>(events) / sink.checker_s(), detail);
  }
  const uintmax_t trace_bytes = std::filesystem::file_size(trace_path);
  CheckerSuite offline(default_check_config());
  const WallTimer timer;
  // As `locksim check` reads: decoded on a second thread while checked.
  const uint64_t read = stream_events(std::make_unique<TraceReader>(trace_path), [&offline](std::span<const Event> batch) {
    for (const Event& e : batch) offline.on_event(e);
  });
  offline.finish();
  const double read_s = timer.elapsed_s();
  const size_t offline_violations = offline.violations().size();
  char detail[320];
  std::snprintf(detail, sizeof detail, "checker-10m: %llu events read from a %.0f MB trace and checked in %.2f s%s",
                static_cast<unsigned long long>(read), static_cast<double>(trace_bytes) / 1e6, read_s,
                offline_violations == in_process_violations && read == events
                    ? ", same violations as in process"
                    : " (MISMATCH with the in-process check: a bug)");
  report->set("trace_check_events_per_s", static_cast<double>(read) / read_s, detail);
}

}  // namespace locksim
