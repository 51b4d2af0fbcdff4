// Differential engine: runs random script-call sequences (sim/diff_sequence.h)
// in lockstep on a *reference* backend (the model) and a *candidate* backend
// (typically a script pack on live Redis) and reports the first divergence,
// shrunk to a minimal sequence.
//
// After every step it compares: the reply (errors only as "is an error"), the
// published messages (channel + payload, in order), the lock's holders, and
// the full snapshot of both backends. Both backends are wiped before every
// sequence run, and every sequence starts at server time kDiffEpochUs.
//
// Shrinking: greedy, deterministic, RapidCheck-style: remove chunks of steps
// (halves, quarters, ... single steps), then replace single steps by their
// RapidCheck shrinks, then lower the lock/owner counts; keep any change after
// which the run still diverges (anywhere); repeat until nothing helps or the
// run budget is spent.
//
// Reproduction: the shrunk counterexample is run again (with records) and
// then twice more; a deterministic script pack diverges at the same step in
// the same way every time. If it does not (a script that answers at random,
// a server that does not follow the virtual clock), the report says so
// (reproduced = false) and its counterexample is the unshrunk sequence with
// the records of the run that did diverge: never an assertion.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/backend.h"
#include "sim/diff_sequence.h"

namespace locksim {

// What a step's comparison covers. Everything: reply, publishes, holders and
// the whole store. Replies: the reply and the publishes only, for a pack
// whose storage layout differs from the model's by design.
enum class CompareScope { Everything, Replies };

// One side of the comparison: a backend and how to empty it.
struct DiffSide {
  Backend* backend = nullptr;
  std::function<void()> wipe;
};

struct StepRecord {
  DiffStep step;
  ResolvedStep resolved;
  ExecResult reference;
  ExecResult candidate;
  std::vector<KeyState> reference_state;
  std::vector<KeyState> candidate_state;
};

struct LockstepResult {
  size_t steps_run = 0;
  std::optional<size_t> diverged_at;  // index of the first diverging step
  std::string divergence;             // what differs, one line
  std::vector<StepRecord> records;    // filled only with keep_records
};

// "" when the two agree, else a one-line description of the first difference.
std::string compare_step(const ExecResult& reference, const ExecResult& candidate,
                         const std::vector<KeyState>& reference_state,
                         const std::vector<KeyState>& candidate_state,
                         CompareScope scope = CompareScope::Everything);

LockstepResult run_lockstep(const DiffSequence& seq, const DiffSide& reference, const DiffSide& candidate,
                            bool keep_records, CompareScope scope = CompareScope::Everything);

// One step on which the two backends differed.
struct DivergenceNote {
  int sequence = 0;           // index of the sequence
  size_t step = 0;            // 1-based step number in that sequence
  ScriptKind kind = ScriptKind::RlockAcquire;
  std::string call;           // describe_call of the step
  std::string divergence;     // compare_step's one line
};

// How each script fared over a run: steps of it that agreed / differed.
struct ScriptTally {
  int64_t agreed = 0;
  int64_t diverged = 0;
  std::optional<DivergenceNote> first;  // its first divergence
};

// Runs every step of `seq` and goes on past differences: after a step that
// differs, both backends are wiped and the sequence continues from the next
// step on empty servers (so every later step is compared from a state both
// agree on). Calls on_divergence for each differing step; counts into
// `tally` (per script kind). Returns the number of steps run.
size_t run_lockstep_all(const DiffSequence& seq, int sequence_index, const DiffSide& reference,
                        const DiffSide& candidate, std::array<ScriptTally, kScriptKindCount>* tally,
                        const std::function<bool(const DivergenceNote&)>& on_divergence,
                        CompareScope scope = CompareScope::Everything);

// Shrinks a sequence on which `diverges` (returns the diverging step index)
// answers a value; returns the smallest failing sequence found. `runs` counts
// calls of `diverges`.
ShrinkableSequence shrink_sequence(ShrinkableSequence failing,
                                   const std::function<std::optional<size_t>(const DiffSequence&)>& diverges,
                                   size_t max_runs, size_t* runs);

struct DiffOptions {
  int sequences = 200;
  int length = 50;
  uint64_t seed = 1;
  size_t max_shrink_runs = 2000;
  int confirm_runs = 2;  // extra runs of the shrunk counterexample that must diverge alike
  // 1: stop at the first divergence (shrunk). N > 1: go on past differences
  // (run_lockstep_all) until N are listed; 0: no limit. Only the first
  // divergence is shrunk.
  int max_divergences = 1;
  // Steps of these scripts are left out of every generated sequence.
  std::vector<ScriptKind> skip_scripts;
  CompareScope scope = CompareScope::Everything;
};

struct DiffReport {
  int sequences_run = 0;
  int64_t steps_run = 0;
  int divergences = 0;           // 0 or 1 by default; up to max_divergences (all: 0) when going on
  int diverging_sequence = -1;   // index of the sequence that diverged
  size_t original_length = 0;    // steps up to the divergence, before shrinking
  size_t shrink_runs = 0;
  // false: the divergence did not happen again alike on re-running (a
  // nondeterministic script or server); counterexample is then the unshrunk
  // sequence and counterexample_run the run that diverged.
  bool reproduced = true;
  std::optional<DiffSequence> counterexample;
  LockstepResult counterexample_run;  // with records
  // Going on (max_divergences != 1): every divergence listed, in order, and
  // how each script fared. Stopping at the first: the first only, no tally.
  std::optional<DivergenceNote> first_divergence;  // as found, before shrinking
  std::vector<DivergenceNote> all_divergences;
  std::array<ScriptTally, kScriptKindCount> per_script{};
};

DiffReport run_differential(const DiffOptions& options, const DiffSide& reference, const DiffSide& candidate);

// Human-readable step-by-step account of a report's counterexample.
std::string format_counterexample(const DiffReport& report, const std::string& reference_name,
                                  const std::string& candidate_name);

}  // namespace locksim
