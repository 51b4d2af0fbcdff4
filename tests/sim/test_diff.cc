// The differential engine (sim/differential.h) on two model backends (fast,
// no Redis): the correct model agrees with itself; every model variant is
// caught and shrunk to a short counterexample; runs are deterministic; the
// shrinker finds the minimal core of a synthetic failure.
#include <gtest/gtest.h>

#include <string>

#include "sim/differential.h"
#include "sim/model_backend.h"

namespace locksim {
namespace {

DiffReport diff_models(ModelVariant candidate_variant, int sequences, uint64_t seed, int length = 50) {
  ModelBackend reference(1, ModelVariant::Correct);
  ModelBackend candidate(1, candidate_variant);
  DiffOptions options;
  options.sequences = sequences;
  options.length = length;
  options.seed = seed;
  return run_differential(options, DiffSide{&reference, [&] { reference.wipe(); }},
                          DiffSide{&candidate, [&] { candidate.wipe(); }});
}

TEST(Differential, CorrectModelAgreesWithItself) {
  const DiffReport r = diff_models(ModelVariant::Correct, 300, 7);
  EXPECT_EQ(r.divergences, 0);
  EXPECT_EQ(r.sequences_run, 300);
  EXPECT_EQ(r.steps_run, 300 * 50);
  EXPECT_FALSE(r.counterexample.has_value());
}

// Mutants and design variants alike differ from the correct scripts. (The
// random sequences call no faster multi-lock script: the case table tells
// its mutants apart, tests/model/script_cases_test.cc.)
TEST(Differential, EveryVariantIsCaughtAndShrunk) {
  for (ModelVariant v : all_variants()) {
    if (v == ModelVariant::Correct || is_faster_multi_mutant(v)) continue;
    const DiffReport r = diff_models(v, 500, 1);
    ASSERT_EQ(r.divergences, 1) << variant_name(v);
    ASSERT_TRUE(r.counterexample.has_value());
    EXPECT_LE(r.counterexample->steps.size(), 10u) << variant_name(v);
    EXPECT_LE(r.counterexample->steps.size(), r.original_length);
    ASSERT_TRUE(r.counterexample_run.diverged_at.has_value());
    // The shrunk sequence diverges at its last step.
    EXPECT_EQ(*r.counterexample_run.diverged_at + 1, r.counterexample->steps.size());
    const std::string text = format_counterexample(r, "model", "mutant");
    EXPECT_NE(text.find("DIVERGES at step"), std::string::npos) << text;
  }
}

TEST(Differential, DeterministicGivenTheSeed) {
  const DiffReport a = diff_models(ModelVariant::FairNoStalePurge, 500, 42);
  const DiffReport b = diff_models(ModelVariant::FairNoStalePurge, 500, 42);
  ASSERT_EQ(a.divergences, 1);
  EXPECT_EQ(a.sequences_run, b.sequences_run);
  EXPECT_EQ(a.steps_run, b.steps_run);
  EXPECT_EQ(format_counterexample(a, "x", "y"), format_counterexample(b, "x", "y"));
}

TEST(Differential, SequencesDependOnTheSeed) {
  const auto a = generate_sequence(rc::Random(1), 20).value();
  const auto b = generate_sequence(rc::Random(2), 20).value();
  std::string ta, tb;
  for (const auto& s : a.steps) ta += describe_advance(s) + std::string(script_name(s.kind));
  for (const auto& s : b.steps) tb += describe_advance(s) + std::string(script_name(s.kind));
  EXPECT_NE(ta, tb);
}

// The generator must reach the corners the issue names, or an "all agree"
// would mean little: every script, error replies (zero latch lifetime),
// queued fair waiters, try-once refusals, wake-up messages, latched retries,
// and time landing exactly on an expiry (PTTL 0) and just after it.
TEST(Differential, GeneratorReachesTheInterestingCases) {
  ModelBackend a, b;
  const DiffSide ref{&a, [&] { a.wipe(); }};
  const DiffSide cand{&b, [&] { b.wipe(); }};
  rc::Random root(3);
  std::vector<int> kinds(kScriptKindCount, 0);
  int errors = 0, queued = 0, refused = 0, published = 0, latched = 0, at_expiry = 0, expired_lock = 0;
  for (int s = 0; s < 200; ++s) {
    const DiffSequence seq = generate_sequence(root.split(), 50).value();
    const LockstepResult run = run_lockstep(seq, ref, cand, true);
    ASSERT_FALSE(run.diverged_at.has_value());
    std::vector<std::string> released_latches;
    for (const StepRecord& r : run.records) {
      const ScriptKind k = r.resolved.call.kind;
      ++kinds[static_cast<size_t>(k)];
      if (r.reference.reply.is_error()) ++errors;
      if (k == ScriptKind::FairAcquire && r.reference.reply.is_int() && r.reference.reply.integer > 0) ++queued;
      if (k == ScriptKind::FairTryOnce && r.reference.reply == Reply::of_int(1)) ++refused;
      if (!r.reference.published.empty()) ++published;
      if ((k == ScriptKind::RlockRelease || k == ScriptKind::FairRelease) && r.reference.published.empty() &&
          r.reference.reply == Reply::of_int(1)) {
        ++latched;  // answered 1 without publishing: a latched retry (or a free fair lock with no line)
      }
      for (const KeyState& key : r.reference_state) at_expiry += key.pttl_ms == 0;
      if (r.step.advance == AdvanceKind::ToLockExpiry && r.step.boundary_delta_ms > 0 &&
          k == ScriptKind::RlockAcquire && r.reference.reply.is_nil()) {
        ++expired_lock;
      }
    }
  }
  // Every script kind but the spin lock's and the faster multi-lock's, which
  // the random sequences do not call (the case table covers them:
  // model/script_cases.h spin_cases(), faster_multi_cases()).
  for (int i = 0; i < kScriptKindCount; ++i) {
    if (is_optional_script(static_cast<ScriptKind>(i))) continue;
    EXPECT_GT(kinds[i], 0) << script_name(static_cast<ScriptKind>(i));
  }
  EXPECT_GT(errors, 0);
  EXPECT_GT(queued, 0);
  EXPECT_GT(refused, 0);
  EXPECT_GT(published, 0);
  EXPECT_GT(latched, 0);
  EXPECT_GT(at_expiry, 0);
  EXPECT_GT(expired_lock, 0);
}

// fair_ttl_from_deadline is only checked where the generator makes its
// step-4 answer go negative (a waiter polling after its estimate ran out).
TEST(Differential, GeneratorReachesNegativeFairTtlFromDeadlineAnswers) {
  ModelBackend a(1, ModelVariant::FairTtlFromDeadline), b(1, ModelVariant::FairTtlFromDeadline);
  const DiffSide ref{&a, [&] { a.wipe(); }};
  const DiffSide cand{&b, [&] { b.wipe(); }};
  rc::Random root(5);
  int negative = 0;
  for (int s = 0; s < 200; ++s) {
    const DiffSequence seq = generate_sequence(root.split(), 50).value();
    const LockstepResult run = run_lockstep(seq, ref, cand, true);
    ASSERT_FALSE(run.diverged_at.has_value());
    for (const StepRecord& r : run.records) {
      negative += r.resolved.call.kind == ScriptKind::FairAcquire && r.reference.reply.is_int() &&
                  r.reference.reply.integer < 0;
    }
  }
  EXPECT_GT(negative, 0);
}

TEST(Differential, CompareStepTreatsErrorsAsEqualButNothingElse) {
  ExecResult a, b;
  a.reply = Reply::error("ERR one");
  b.reply = Reply::error("ERR two");
  EXPECT_EQ(compare_step(a, b, {}, {}), "");
  b.reply = Reply::of_int(0);
  EXPECT_NE(compare_step(a, b, {}, {}), "");
  b.reply = a.reply;
  b.published.push_back({"ch", "0"});
  EXPECT_NE(compare_step(a, b, {}, {}), "");
  b.published.clear();
  EXPECT_NE(compare_step(a, b, {KeyState{"k", "string", "1", 5}}, {KeyState{"k", "string", "1", 4}}), "");
}

TEST(Differential, ShrinkerFindsTheMinimalCore) {
  // Synthetic failure: a renew by owner 1 anywhere after a fair_acquire.
  auto diverges = [](const DiffSequence& seq) -> std::optional<size_t> {
    bool seen_fair = false;
    for (size_t i = 0; i < seq.steps.size(); ++i) {
      const DiffStep& s = seq.steps[i];
      if (s.kind == ScriptKind::FairAcquire) seen_fair = true;
      if (seen_fair && s.kind == ScriptKind::RlockRenew && s.owner % seq.owner_count == 1) return i;
    }
    return std::nullopt;
  };
  int found = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    ShrinkableSequence seq = generate_sequence(rc::Random(seed), 60);
    seq.owner_count = 4;
    if (!diverges(seq.value())) continue;
    ++found;
    size_t runs = 0;
    const DiffSequence shrunk = shrink_sequence(seq, diverges, 5000, &runs).value();
    ASSERT_EQ(shrunk.steps.size(), 2u) << "seed " << seed;
    EXPECT_EQ(shrunk.steps[0].kind, ScriptKind::FairAcquire);
    EXPECT_EQ(shrunk.steps[1].kind, ScriptKind::RlockRenew);
    EXPECT_EQ(shrunk.owner_count, 2);  // the smallest count where owner 1 exists
  }
  EXPECT_GT(found, 0);
}

}  // namespace
}  // namespace locksim
