#include "sim/run.h"

#include <filesystem>
#include <optional>
#include <sstream>

#include "impl/builtin_packs.h"
#include "model/variant.h"

namespace locksim {

namespace {
bool same_dir(const std::string& a, const std::string& b) {
  if (is_builtin_name(a) || is_builtin_name(b)) {
    return std::filesystem::path(a).lexically_normal() == std::filesystem::path(b).lexically_normal();
  }
  std::error_code ec1, ec2;
  const auto ca = std::filesystem::weakly_canonical(a, ec1);
  const auto cb = std::filesystem::weakly_canonical(b, ec2);
  if (ec1 || ec2) return a == b;
  return ca == cb;
}

// The pack a model variant was written from, as built into the library:
// ours for the correct model, impl/variants/<name> for a design variant,
// impl/mutants/<name> otherwise.
std::string reference_pack_dir(ModelVariant v) {
  if (v == ModelVariant::Correct) return std::string(kBuiltinOurPack);
  return builtin_variant_pack(variant_name(v), is_design_variant(v));
}

std::string describe_script(const PackScript& s) {
  return s.form == PackForm::Lua ? std::filesystem::path(s.path).lexically_normal().string() : s.describe();
}

// The first script in which `pack` differs from `reference` (its Lua text,
// or how it runs: KEYS, ARGV and the other conventions); nullopt if none does.
// A pack without the spin lock's or the faster multi-lock's scripts is
// compared on the others (the lock kind that needs them refuses it:
// apply_scenario_pack).
std::optional<ScriptKind> first_difference(const ScriptPack& pack, const ScriptPack& reference) {
  for (ScriptKind kind : all_script_kinds()) {
    const PackScript& mine = pack.script(kind);
    const PackScript& theirs = reference.script(kind);
    if (is_optional_script(kind) && mine.form == PackForm::Absent) continue;
    if (mine.source != theirs.source || mine.conventions_text() != theirs.conventions_text()) return kind;
  }
  return std::nullopt;
}

// Our scripts wherever they lie: the built-in pack, or a directory that is,
// script for script, the same (the checkout's impl/lua, a copy of it).
// The model reads the holders as the lock hash's fields, so a design that
// reads them otherwise is not ours whatever its scripts.
bool is_our_pack(const ScriptPack& pack) {
  if (pack.design().holders != HolderRead::HashFields) return false;
  return same_dir(pack.dir(), std::string(kBuiltinOurPack)) ||
         !first_difference(pack, ScriptPack::load(std::string(kBuiltinOurPack)));
}

// The model stands for a pack only if the pack is, script for script (Lua
// text, KEYS and ARGV), the pack its variant was written from. Throws
// ScenarioError naming the first script that differs.
void require_reference_scripts(const ScriptPack& pack, ModelVariant v) {
  const std::string ref_dir = reference_pack_dir(v);
  if (same_dir(pack.dir(), ref_dir)) return;
  const ScriptPack reference = [&] {
    try {
      return ScriptPack::load(ref_dir);
    } catch (const ScriptPackError& e) {
      throw ScenarioError("cannot load the reference pack of model variant '" + std::string(variant_name(v)) +
                          "': " + e.what());
    }
  }();
  if (const auto kind = first_difference(pack, reference)) {
    const PackScript& mine = pack.script(*kind);
    const PackScript& theirs = reference.script(*kind);
    throw ScenarioError("script pack " + pack.dir() + " says it is model variant '" +
                        std::string(variant_name(v)) + "', but its " + std::string(script_name(*kind)) + " (" +
                        describe_script(mine) + ") differs from " + describe_script(theirs) +
                        ", so the model cannot stand for its scripts: it runs on the lua or live backend "
                        "(locksim run --backend lua, locksim campaign --backend lua, locksim diff)");
  }
}
}  // namespace

ScriptPack load_scenario_pack(const Scenario& scenario) {
  return ScriptPack::load(scenario.scripts.empty() ? ScriptPack::default_dir() : scenario.scripts);
}

void apply_scenario_pack(Scenario* scenario, const ScriptPack& pack, BackendKind backend) {
  const std::string& dir = pack.dir();
  scenario->design = pack.design();
  for (DesignKind k : kinds_needed_by(scenario->lock_kind)) {
    if (!pack.design().provides(k)) {
      throw ScenarioError("script pack " + dir + " does not provide the " + std::string(design_kind_name(k)) +
                          " lock kind that --lock " + std::string(lock_kind_name(scenario->lock_kind)) +
                          " needs (its design's kinds: " + design_kinds_text(pack.design()) + ")");
    }
  }
  if (scenario->lock_kind == ScenarioLockKind::Spin && pack.script(ScriptKind::SpinRelease).form == PackForm::Absent) {
    throw ScenarioError("script pack " + dir + " has no spin_release script, which --lock spin needs (the spin "
                        "lock's release: the reentrant lock's without its publish; spin_force_release may be absent)");
  }
  if (scenario->lock_kind == ScenarioLockKind::FasterMulti) {
    for (ScriptKind kind : {ScriptKind::FasterMultiAcquire, ScriptKind::FasterMultiRelease,
                            ScriptKind::FasterMultiRenew}) {
      if (pack.script(kind).form != PackForm::Absent) continue;
      throw ScenarioError("script pack " + dir + " has no " + std::string(script_name(kind)) +
                          " script, which --lock faster_multi needs (faster_multi_acquire, faster_multi_release "
                          "and faster_multi_renew; faster_multi_force_release may be absent)");
    }
  }
  if (pack.model_variant()) {
    scenario->model_variant = *pack.model_variant();
  } else if (is_our_pack(pack)) {
    scenario->model_variant = ModelVariant::Correct;
  } else if (backend == BackendKind::Model) {
    throw ScenarioError("script pack " + dir +
                        " has no \"model_variant\" in its manifest, so the model cannot stand for its scripts: "
                        "it runs on the lua or live backend (locksim run --backend lua, locksim campaign "
                        "--backend lua, locksim diff)");
  }
  if (backend == BackendKind::Model) {
    require_reference_scripts(pack, pack.model_variant().value_or(ModelVariant::Correct));
  }
}

bool model_stands_for(const Scenario& scenario, const ScriptPack& pack) {
  Scenario probe = scenario;
  try {
    apply_scenario_pack(&probe, pack, BackendKind::Model);
  } catch (const ScenarioError&) {
    return false;
  }
  return true;
}

ScriptPack resolve_scenario_scripts(Scenario* scenario, BackendKind backend) {
  ScriptPack pack = load_scenario_pack(*scenario);
  apply_scenario_pack(scenario, pack, backend);
  return pack;
}

TraceHeader make_trace_header(const Scenario& scenario, const std::string& backend_kind) {
  TraceHeader h;
  h.seed = scenario.seed;
  h.build = std::string(trace_build_id());
  h.backend = backend_kind;
  h.scenario = scenario_to_json(scenario);
  return h;
}

Scenario scenario_from_header(const TraceHeader& header) {
  Scenario s = scenario_from_json(header.scenario);
  if (s.seed != header.seed) throw ScenarioError("trace header: seed differs from the scenario's seed");
  if (header.version < kKeptWakeupsTraceVersion) {
    // Written by a client that dropped a wake-up reaching a waiter whose poll
    // was in flight: replayed with that client, so it reproduces.
    if (header.scenario.contains("wakeups")) {
      throw ScenarioError("scenario: field 'wakeups' in a version " + std::to_string(header.version) +
                          " trace (version " + std::to_string(kKeptWakeupsTraceVersion) + " and later)");
    }
    s.lost_wakeups = true;
  }
  return s;
}

std::string summary_line(const Scenario& scenario, const RunSummary& summary) {
  std::ostringstream out;
  out << "seed=" << scenario.seed << " clients=" << scenario.clients << " locks=" << scenario.locks
      << " lock=" << lock_kind_name(scenario.lock_kind) << " profile=" << scenario.profile.name()
      << " events=" << summary.events << " scripts=" << summary.scripts
      << " ops=" << summary.invokes << " ok=" << summary.oks << " fail=" << summary.fails
      << " info=" << summary.infos << " faults=" << summary.faults
      << " end_ms=" << summary.end_true_us / 1000;
  return out.str();
}

}  // namespace locksim
