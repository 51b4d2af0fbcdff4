// Running a Scenario end to end: resolving its script pack into the model
// variant, building the trace header, and running the Simulator into a sink.
//
// Script packs: an empty `scripts` means the default pack
// (ScriptPack::default_dir(): $LOCKSIM_SCRIPTS, else the built-in impl/lua).
// A pack with "model_variant" in its manifest is modelled by that variant; a
// pack without it is modelled by the correct model if it is our scripts
// (script for script the built-in impl/lua: the built-in pack itself, the
// checkout's impl/lua, a copy of it); any other pack without it runs only its
// own Lua (the lua or live backend):
// resolve_scenario_scripts(..., "model") throws ScenarioError for it. On the
// model a pack must also be, script for script, the pack its variant was
// written from (impl/lua, impl/mutants/<name>, impl/variants/<name>, as
// built into the library: impl/builtin_packs.h): a copied pack with an
// edited script runs only on lua or live.
#pragma once

#include <string>

#include "impl/script_pack.h"
#include "sim/backend.h"
#include "sim/backend_kind.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "traces/event_sink.h"
#include "traces/trace_format.h"

namespace locksim {

// The scenario's pack, loaded once (its `scripts`, or the default pack);
// throws ScriptPackError.
ScriptPack load_scenario_pack(const Scenario& scenario);
// Sets scenario->design and model_variant from `pack` (the scenario's,
// loaded) and checks it can run on `backend` (ScenarioError otherwise: a
// lock kind the pack does not provide, a pack the model cannot stand for).
void apply_scenario_pack(Scenario* scenario, const ScriptPack& pack, BackendKind backend);
// Whether the model can stand for `pack` in `scenario` (apply_scenario_pack
// with the model would not throw).
bool model_stands_for(const Scenario& scenario, const ScriptPack& pack);
// load_scenario_pack, then apply_scenario_pack; returns the pack.
ScriptPack resolve_scenario_scripts(Scenario* scenario, BackendKind backend);

TraceHeader make_trace_header(const Scenario& scenario, const std::string& backend_kind);
// The scenario stored in a trace header (throws ScenarioError). A header
// older than kKeptWakeupsTraceVersion gives lost_wakeups: the client that
// wrote it dropped wake-ups reaching a waiter whose poll was in flight.
Scenario scenario_from_header(const TraceHeader& header);

// One line for humans: "seed=1 events=... ops=... ok=... fail=... info=... faults=... end_ms=...".
std::string summary_line(const Scenario& scenario, const RunSummary& summary);

}  // namespace locksim
