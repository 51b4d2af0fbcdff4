#include "sim/differential.h"

#include <algorithm>
#include <cassert>
#include <sstream>

namespace locksim {

namespace {

std::string render_published(const std::vector<Published>& published) {
  std::string out = "[";
  for (size_t i = 0; i < published.size(); ++i) {
    if (i) out += ", ";
    out += published[i].channel + " <- " + published[i].payload;
  }
  return out + "]";
}

std::string render_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  return out + "]";
}

std::string render_key(const KeyState& k) {
  return k.key + " " + k.type + " {" + k.value + "} pttl=" + std::to_string(k.pttl_ms);
}

std::string render_state(const std::vector<KeyState>& state) {
  if (state.empty()) return "(empty)";
  std::string out;
  for (size_t i = 0; i < state.size(); ++i) {
    if (i) out += "; ";
    out += render_key(state[i]);
  }
  return out;
}

bool replies_agree(const Reply& a, const Reply& b) {
  if (a.is_error() || b.is_error()) return a.is_error() && b.is_error();
  return a == b;
}

std::string offset_text(int64_t server_now_us) {
  const int64_t us = server_now_us - kDiffEpochUs;
  std::string frac = std::to_string(1000 + us % 1000).substr(1);
  return "+" + std::to_string(us / 1000) + "." + frac + " ms";
}

ShrinkableSequence truncated(ShrinkableSequence s, size_t diverged_at) {
  if (diverged_at + 1 < s.steps.size()) {
    s.steps.erase(s.steps.begin() + static_cast<std::ptrdiff_t>(diverged_at + 1), s.steps.end());
  }
  return s;
}

}  // namespace

std::string compare_step(const ExecResult& reference, const ExecResult& candidate,
                         const std::vector<KeyState>& reference_state,
                         const std::vector<KeyState>& candidate_state, CompareScope scope) {
  if (!replies_agree(reference.reply, candidate.reply)) {
    return "reply: " + reference.reply.to_string() + " vs " + candidate.reply.to_string();
  }
  if (reference.published != candidate.published) {
    return "published: " + render_published(reference.published) + " vs " +
           render_published(candidate.published);
  }
  if (scope == CompareScope::Replies) return "";
  if (reference.holders_after != candidate.holders_after) {
    return "holders: " + render_list(reference.holders_after) + " vs " + render_list(candidate.holders_after);
  }
  if (reference_state != candidate_state) {
    const size_t n = std::max(reference_state.size(), candidate_state.size());
    for (size_t i = 0; i < n; ++i) {
      const std::string a = i < reference_state.size() ? render_key(reference_state[i]) : "(none)";
      const std::string b = i < candidate_state.size() ? render_key(candidate_state[i]) : "(none)";
      if (a != b) return "state: " + a + " vs " + b;
    }
  }
  return "";
}

LockstepResult run_lockstep(const DiffSequence& seq, const DiffSide& reference, const DiffSide& candidate,
                            bool keep_records, CompareScope scope) {
  assert(reference.backend != nullptr && candidate.backend != nullptr);
  reference.wipe();
  candidate.wipe();
  LockstepResult out;
  int64_t now_us = kDiffEpochUs;
  std::vector<KeyState> ref_state;  // reference state at now_us (empty at the start)
  for (size_t i = 0; i < seq.steps.size(); ++i) {
    const DiffStep& step = seq.steps[i];
    const ResolvedStep resolved = resolve_step(seq, step, now_us, ref_state);
    assert(resolved.server_now_us >= now_us);
    now_us = resolved.server_now_us;
    StepRecord rec;
    rec.reference = reference.backend->execute(0, resolved.call, now_us);
    rec.candidate = candidate.backend->execute(0, resolved.call, now_us);
    rec.reference_state = reference.backend->snapshot(0, now_us);
    rec.candidate_state = candidate.backend->snapshot(0, now_us);
    ref_state = rec.reference_state;
    ++out.steps_run;
    const std::string diff = compare_step(rec.reference, rec.candidate, rec.reference_state, rec.candidate_state, scope);
    if (keep_records) {
      rec.step = step;
      rec.resolved = resolved;
      out.records.push_back(std::move(rec));
    }
    if (!diff.empty()) {
      out.diverged_at = i;
      out.divergence = diff;
      break;
    }
  }
  return out;
}

size_t run_lockstep_all(const DiffSequence& seq, int sequence_index, const DiffSide& reference,
                        const DiffSide& candidate, std::array<ScriptTally, kScriptKindCount>* tally,
                        const std::function<bool(const DivergenceNote&)>& on_divergence, CompareScope scope) {
  assert(reference.backend != nullptr && candidate.backend != nullptr && tally != nullptr);
  reference.wipe();
  candidate.wipe();
  int64_t now_us = kDiffEpochUs;
  std::vector<KeyState> ref_state;
  size_t steps = 0;
  for (size_t i = 0; i < seq.steps.size(); ++i) {
    const ResolvedStep resolved = resolve_step(seq, seq.steps[i], now_us, ref_state);
    assert(resolved.server_now_us >= now_us);
    now_us = resolved.server_now_us;
    const ExecResult a = reference.backend->execute(0, resolved.call, now_us);
    const ExecResult b = candidate.backend->execute(0, resolved.call, now_us);
    std::vector<KeyState> a_state = reference.backend->snapshot(0, now_us);
    const std::vector<KeyState> b_state = candidate.backend->snapshot(0, now_us);
    ++steps;
    ScriptTally& t = (*tally)[static_cast<size_t>(resolved.call.kind)];
    const std::string diff = compare_step(a, b, a_state, b_state, scope);
    if (diff.empty()) {
      ++t.agreed;
      ref_state = std::move(a_state);
      continue;
    }
    ++t.diverged;
    DivergenceNote note{sequence_index, i + 1, resolved.call.kind, describe_call(resolved.call), diff};
    if (!t.first) t.first = note;
    if (!on_divergence(note)) break;
    // Both back to empty servers: the next step starts from a state they share.
    reference.wipe();
    candidate.wipe();
    ref_state.clear();
  }
  return steps;
}

ShrinkableSequence shrink_sequence(ShrinkableSequence failing,
                                   const std::function<std::optional<size_t>(const DiffSequence&)>& diverges,
                                   size_t max_runs, size_t* runs) {
  assert(runs != nullptr);
  ShrinkableSequence cur = std::move(failing);
  auto attempt = [&](const ShrinkableSequence& cand) -> bool {
    if (*runs >= max_runs) return false;
    ++*runs;
    const auto at = diverges(cand.value());
    if (!at) return false;
    cur = truncated(cand, *at);
    return true;
  };

  bool progress = true;
  while (progress && *runs < max_runs) {
    progress = false;
    // 1. Remove chunks of steps: halves, quarters, ..., single steps.
    for (size_t chunk = std::max<size_t>(cur.steps.size() / 2, 1); chunk >= 1; chunk /= 2) {
      size_t i = 0;
      while (i + chunk <= cur.steps.size() && cur.steps.size() > 1) {
        ShrinkableSequence cand = cur;
        cand.steps.erase(cand.steps.begin() + static_cast<std::ptrdiff_t>(i),
                         cand.steps.begin() + static_cast<std::ptrdiff_t>(i + chunk));
        if (attempt(cand)) {
          progress = true;
        } else {
          i += chunk;
        }
        if (*runs >= max_runs) break;
      }
      if (chunk == 1) break;
    }
    // 2. Simplify single steps through their RapidCheck shrink trees.
    for (size_t i = 0; i < cur.steps.size() && *runs < max_runs; ++i) {
      auto shrinks = cur.steps[i].shrinks();
      while (auto next = shrinks.next()) {
        ShrinkableSequence cand = cur;
        cand.steps[i] = *next;
        if (attempt(cand)) {
          progress = true;
          if (i >= cur.steps.size()) break;
          shrinks = cur.steps[i].shrinks();  // continue from the simpler step
        }
        if (*runs >= max_runs) break;
      }
    }
    // 3. Fewer locks / owners.
    for (int locks = 1; locks < cur.lock_count; ++locks) {
      ShrinkableSequence cand = cur;
      cand.lock_count = locks;
      if (attempt(cand)) {
        progress = true;
        break;
      }
    }
    for (int owners = 1; owners < cur.owner_count; ++owners) {
      ShrinkableSequence cand = cur;
      cand.owner_count = owners;
      if (attempt(cand)) {
        progress = true;
        break;
      }
    }
  }
  return cur;
}

// Shrinks the divergence `run` found in sequence `s` into report's
// counterexample (and checks that it reproduces).
void shrink_into(DiffReport* out, const DiffOptions& options, const ShrinkableSequence& seq, int s,
                 LockstepResult run, const DiffSide& reference, const DiffSide& candidate) {
  DiffReport& report = *out;
  report.divergences = 1;
  report.diverging_sequence = s;
  report.original_length = *run.diverged_at + 1;
  if (*run.diverged_at < run.records.size()) {
    const ScriptCall& call = run.records[*run.diverged_at].resolved.call;
    report.first_divergence =
        DivergenceNote{s, *run.diverged_at + 1, call.kind, describe_call(call), run.divergence};
  }
  const ShrinkableSequence unshrunk = truncated(seq, *run.diverged_at);
  auto diverges = [&](const DiffSequence& cand) -> std::optional<size_t> {
    for (const DiffStep& step : cand.steps) {  // a step shrunk into a skipped script is no candidate
      if (std::find(options.skip_scripts.begin(), options.skip_scripts.end(), step.kind) !=
          options.skip_scripts.end()) {
        return std::nullopt;
      }
    }
    return run_lockstep(cand, reference, candidate, false, options.scope).diverged_at;
  };
  const ShrinkableSequence shrunk =
      shrink_sequence(unshrunk, diverges, options.max_shrink_runs, &report.shrink_runs);
  report.counterexample = shrunk.value();
  report.counterexample_run = run_lockstep(*report.counterexample, reference, candidate, true, options.scope);
  const LockstepResult& again = report.counterexample_run;
  report.reproduced = again.diverged_at.has_value();
  for (int c = 0; c < options.confirm_runs && report.reproduced; ++c) {
    const LockstepResult confirm = run_lockstep(*report.counterexample, reference, candidate, false, options.scope);
    report.reproduced = confirm.diverged_at == again.diverged_at && confirm.divergence == again.divergence;
  }
  if (!report.reproduced) {
    report.counterexample = unshrunk.value();
    report.counterexample_run = std::move(run);
  }
}

DiffReport run_differential(const DiffOptions& options, const DiffSide& reference, const DiffSide& candidate) {
  assert(options.sequences >= 0 && options.length >= 0 && options.confirm_runs >= 0);
  DiffReport report;
  rc::Random root(options.seed);
  const bool go_on = options.max_divergences != 1;
  for (int s = 0; s < options.sequences; ++s) {
    ShrinkableSequence seq = generate_sequence(root.split(), options.length);
    if (!options.skip_scripts.empty()) {
      std::erase_if(seq.steps, [&](const rc::Shrinkable<DiffStep>& step) {
        const ScriptKind kind = step.value().kind;
        return std::find(options.skip_scripts.begin(), options.skip_scripts.end(), kind) !=
               options.skip_scripts.end();
      });
    }
    if (go_on) {
      ++report.sequences_run;
      const bool first_here = report.all_divergences.empty();
      bool full = false;
      report.steps_run += static_cast<int64_t>(
          run_lockstep_all(seq.value(), s, reference, candidate, &report.per_script, [&](const DivergenceNote& n) {
            report.all_divergences.push_back(n);
            full = options.max_divergences > 0 &&
                   report.all_divergences.size() >= static_cast<size_t>(options.max_divergences);
            return !full;
          }, options.scope));
      if (first_here && !report.all_divergences.empty()) {
        // The first diverging sequence is shrunk as when stopping at it.
        LockstepResult run = run_lockstep(seq.value(), reference, candidate, true, options.scope);
        if (run.diverged_at) shrink_into(&report, options, seq, s, std::move(run), reference, candidate);
      }
      report.divergences = static_cast<int>(report.all_divergences.size());
      if (full) break;
      continue;
    }
    LockstepResult run = run_lockstep(seq.value(), reference, candidate, true, options.scope);
    ++report.sequences_run;
    report.steps_run += static_cast<int64_t>(run.steps_run);
    if (!run.diverged_at) continue;
    shrink_into(&report, options, seq, s, std::move(run), reference, candidate);
    break;
  }
  return report;
}

std::string format_counterexample(const DiffReport& report, const std::string& reference_name,
                                  const std::string& candidate_name) {
  if (!report.counterexample) return "";
  const DiffSequence& seq = *report.counterexample;
  const LockstepResult& run = report.counterexample_run;
  std::ostringstream out;
  if (report.reproduced) {
    out << "divergence in sequence " << report.diverging_sequence << " at step " << report.original_length
        << "; shrunk to " << seq.steps.size() << " step(s) in " << report.shrink_runs << " run(s)\n";
  } else {
    out << "divergence in sequence " << report.diverging_sequence << " at step " << report.original_length
        << ", but the divergence did not reproduce (nondeterministic script?): steps that diverged once "
           "did not diverge alike when run again, so the counterexample is not shrunk; the unshrunk steps as "
           "first run:\n";
  }
  out << "locks: " << seq.lock_count << ", owners: " << seq.owner_count
      << ", server time starts at " << kDiffEpochUs / 1000 << " ms\n";
  const size_t w = std::max(reference_name.size(), candidate_name.size());
  auto label = [w](const std::string& name) { return "    " + name + std::string(w - name.size(), ' ') + "  "; };
  for (size_t i = 0; i < run.records.size(); ++i) {
    const StepRecord& r = run.records[i];
    out << "step " << i + 1 << ": " << describe_advance(r.step) << " -> server time "
        << offset_text(r.resolved.server_now_us) << "\n";
    out << "    call  " << describe_call(r.resolved.call) << "\n";
    out << label(reference_name) << "reply " << r.reference.reply.to_string() << "  published "
        << render_published(r.reference.published) << "  holders " << render_list(r.reference.holders_after)
        << "\n";
    out << label(candidate_name) << "reply " << r.candidate.reply.to_string() << "  published "
        << render_published(r.candidate.published) << "  holders " << render_list(r.candidate.holders_after)
        << "\n";
    out << label(reference_name) << "state " << render_state(r.reference_state) << "\n";
    out << label(candidate_name) << "state " << render_state(r.candidate_state) << "\n";
  }
  if (run.diverged_at) {
    out << "DIVERGES at step " << *run.diverged_at + 1 << ": " << run.divergence << " (" << reference_name
        << " vs " << candidate_name << ")\n";
  }
  return out.str();
}

}  // namespace locksim
