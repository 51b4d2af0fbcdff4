// Replay: re-runs a trace's scenario (from its header) on a backend and
// compares the new history with the file event by event (as decoded Events,
// through sim/history_comparator.h; the lines are kept for the report). Stops at the first difference: its
// 0-based index, the expected line (from the file, or "<end of trace>") and
// the actual line (encoded from the run, or "<end of run>").
// The caller builds the backend the header asks for (model or live).
// A shrunk counterexample's trace carries an explicit plan in its header
// (sim/explicit_plan_json.h): that plan is re-run (run_explicit) instead of
// the scenario's generated workload. `also`, when given, sees every event of
// the new run too (e.g. a CheckerSuite, to show the violation again).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/backend.h"
#include "sim/history_comparator.h"
#include "traces/trace_reader.h"

namespace locksim {

using ReplayMismatch = HistoryMismatch;

struct ReplayResult {
  uint64_t events_compared = 0;
  std::optional<ReplayMismatch> mismatch;
  bool identical() const { return !mismatch.has_value(); }
};

// Throws ScenarioError for a bad scenario in the header, TraceError for a
// malformed trace line.
ReplayResult replay_trace(TraceReader& reader, Backend& backend, EventSink* also = nullptr);

}  // namespace locksim
