// locksim pack check DIR: checks a script pack before any campaign.
//  1. Loads the manifest and every file (impl/script_pack.h); a problem there
//     is bad input (exit 2, one line naming the file, script and field).
//  2. --backend live (default): starts a throwaway redis-server (virtual
//     clock) and loads each Lua script with SCRIPT LOAD; checks that each
//     one-command script names a command this Redis knows (COMMAND INFO).
//     --backend lua: compiles each Lua script in the lua backend's Lua
//     (the same error text as Redis's) and checks that each one-command
//     script names a command it implements. Reports every script.
//  3. When everything loads: runs the script case table (model/script_cases.h:
//     every branch of every script, with the replies, publishes and final keys
//     the spec requires of the reference) on the pack, one case at a time on an
//     empty server. A case applies when the pack has every script it calls
//     (none "absent"); publishes are not compared for scripts with their own
//     message conventions. Then the differential's random script-call
//     sequences against the reference model, going on past differences
//     (diff --keep-going). For each script it reports how many cases and how
//     many random steps agreed and differed, with the first differing case
//     (its step and reply) and the first differing call. Steps 3 run on the
//     backend of step 2.
//  --reference PACK: both comparisons against another pack on the same kind
//     of backend (live: a throwaway server each) instead of the model: the
//     case table's calls run on both and each step's reply, publishes,
//     holders and keys are compared with each other (not with the spec's
//     answers). A pack whose design reads its holders other than as the
//     lock hash's fields has no model reference: without --reference it is
//     refused (exit 2).
// Exit: 0 every script loads and agrees on every step; 1 a script does not
// load, names an unknown command, never answers, or differs from the model;
// 2 bad input or environment (bad pack, no redis-server; on the lua backend,
// a script stopped by its budget or the memory limit, --memory-limit).
#include <cstdio>
#include <functional>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "impl/redis_conn.h"
#include "impl/script_pack.h"
#include "sim/differential.h"
#include "redis/lua_scripting.h"
#include "redis/redis_commands.h"
#include "sim/live_backend.h"
#include "sim/lua_backend.h"
#include "sim/model_backend.h"
#include "sim/script_case_run.h"
#include "model/script_cases.h"
#include "tools/cli/memory_limit_option.h"
#include "tools/cli/commands.h"
#include "tools/server/redis_server.h"

namespace locksim::cli {

namespace {

struct PackCheckArgs {
  std::string dir;
  std::string backend = "live";
  int sequences = 100;
  int length = 50;
  uint64_t seed = 1;
  bool json = false;
  bool match_variant = false;
  std::string compare = "everything";  // or "replies"
  std::string reference;               // a pack to compare with instead of the model
  MemoryLimitFlag memory_limit;
};

struct LoadCheck {
  ScriptKind kind = ScriptKind::RlockAcquire;
  std::string form;     // "lua", "command", "absent"
  std::string detail;   // file / command name
  std::string problem;  // "" if it loads
};

std::string form_name(PackForm f) {
  switch (f) {
    case PackForm::Lua: return "lua";
    case PackForm::Command: return "command";
    case PackForm::Absent: return "absent";
  }
  return "?";
}

// Every script of the pack, each Lua script's problem given by `lua_problem`
// (its source) and each command's by `command_problem` (its name); "" for none.
std::vector<LoadCheck> check_each(const ScriptPack& pack,
                                  const std::function<std::string(const std::string&)>& lua_problem,
                                  const std::function<std::string(const std::string&)>& command_problem) {
  std::vector<LoadCheck> out;
  for (ScriptKind kind : all_script_kinds()) {
    const PackScript& s = pack.script(kind);
    LoadCheck c;
    c.kind = kind;
    c.form = form_name(s.form);
    if (s.form == PackForm::Lua) {
      c.detail = std::filesystem::path(s.path).lexically_normal().string();
      c.problem = lua_problem(s.source);
    } else if (s.form == PackForm::Command) {
      c.detail = s.command;
      c.problem = command_problem(s.command);
    }
    out.push_back(std::move(c));
  }
  return out;
}

// SCRIPT LOAD of every Lua script and COMMAND INFO of every command, on `conn`.
std::vector<LoadCheck> load_each(const ScriptPack& pack, RedisConn& conn) {
  return check_each(
      pack,
      [&conn](const std::string& source) -> std::string {
        const Reply r = conn.command({"SCRIPT", "LOAD", source});
        if (r.is_error()) return "Redis rejected the script: " + r.text;
        if (r.kind != Reply::Kind::Bulk) return "unexpected SCRIPT LOAD reply " + r.to_string();
        return "";
      },
      [&conn](const std::string& command) -> std::string {
        const Reply r = conn.command({"COMMAND", "INFO", command});
        if (r.kind != Reply::Kind::Array || r.elements.size() != 1 || r.elements[0].is_nil()) {
          return "Redis does not know the command " + command;
        }
        return "";
      });
}

// Each Lua script compiled as the lua backend compiles it, and each command
// checked against the commands it implements.
std::vector<LoadCheck> load_each_lua(const ScriptPack& pack) {
  LuaScripting lua;
  return check_each(
      pack,
      [&lua](const std::string& source) -> std::string {
        try {
          lua.load(source);
        } catch (const LuaCompileError& e) {
          return std::string("Redis rejected the script: ") + e.what();
        }
        return "";
      },
      [](const std::string& command) -> std::string {
        const RedisCommand* cmd = find_redis_command(command);
        if (cmd == nullptr) return "Redis does not know the command " + command;
        if (cmd->run == nullptr) return unsupported_command_text(command);
        return "";
      });
}

// The case table on one script: cases that agree, cases that differ at one
// of its steps (the first of them kept).
struct CaseTally {
  int agreed = 0;
  int differed = 0;
  std::optional<std::string> first_case;
  std::optional<CaseMiss> first;
};

struct TableRun {
  std::vector<CaseTally> per_script = std::vector<CaseTally>(all_script_kinds().size());
  int cases_run = 0;
  int cases_differed = 0;
  std::vector<std::string> skipped;  // "CaseName (needs fair_acquire_failed, absent)"
};

bool has_own_message_conventions(const PackScript& s) { return s.message.has_value() || s.wake_channel.has_value(); }

// A case step's call as a pack of any design reads it: the table names
// owners only, and a per-owner token is the owner.
ScriptCall with_owner_token(ScriptCall call) {
  if (call.params.token.empty()) call.params.token = call.params.owner;
  return call;
}

// Counts one run case into `run`: every script it called agreed, except the
// one of the first missed step, which differed.
void tally_case(const cases::ScriptCase& c, const std::optional<CaseMiss>& miss, TableRun* run) {
  ++run->cases_run;
  std::vector<bool> seen(run->per_script.size(), false);
  for (const cases::CaseStep& st : c.steps) {
    const size_t k = static_cast<size_t>(st.call.kind);
    if (seen[k] || (miss && st.call.kind == miss->kind)) continue;
    seen[k] = true;
    ++run->per_script[k].agreed;
  }
  if (miss) {
    ++run->cases_differed;
    CaseTally& t = run->per_script[static_cast<size_t>(miss->kind)];
    ++t.differed;
    if (!t.first) {
      t.first_case = c.name;
      t.first = miss;
    }
  }
}

// The first script of the case that is absent in `pack`, if any.
std::optional<ScriptKind> absent_in(const ScriptPack& pack, const cases::ScriptCase& c) {
  for (const cases::CaseStep& st : c.steps)
    if (pack.script(st.call.kind).form == PackForm::Absent) return st.call.kind;
  return std::nullopt;
}

// --reference: every case of the table (the correct lock's: as call
// sequences, whatever their expected answers) on both packs, step by step,
// each step compared as the random sequences compare (reply, publishes,
// holders and, with everything, every key). A case that calls a script
// absent in either pack is not applicable.
TableRun run_case_table_against(const ScriptPack& pack, const DiffSide& candidate, const ScriptPack& reference_pack,
                                const DiffSide& reference, CompareScope scope) {
  TableRun run;
  for (const cases::ScriptCase& c : cases::all_cases()) {
    if (c.variant != ModelVariant::Correct) continue;
    const std::optional<ScriptKind> absent = absent_in(pack, c);
    const std::optional<ScriptKind> absent_ref = absent_in(reference_pack, c);
    if (absent || absent_ref) {
      run.skipped.push_back(c.name + " (calls " + std::string(script_name(absent ? *absent : *absent_ref)) +
                            ", absent in " + (absent ? "the pack" : "the reference pack") + ")");
      continue;
    }
    candidate.wipe();
    reference.wipe();
    std::optional<CaseMiss> miss;
    for (size_t i = 0; i < c.steps.size() && !miss; ++i) {
      const cases::CaseStep& st = c.steps[i];
      const ScriptCall call = with_owner_token(st.call);
      const int64_t at_us = st.server_now_ms * 1000;
      const ExecResult ref = reference.backend->execute(0, call, at_us);
      const ExecResult got = candidate.backend->execute(0, call, at_us);
      std::vector<KeyState> ref_state, got_state;
      if (scope == CompareScope::Everything) {
        ref_state = reference.backend->snapshot(0, at_us);
        got_state = candidate.backend->snapshot(0, at_us);
      }
      const std::string d = compare_step(ref, got, ref_state, got_state, scope);
      if (!d.empty()) miss = CaseMiss{i + 1, call.kind, d};
    }
    tally_case(c, miss, &run);
  }
  return run;
}

// The reference variant's cases of the table, run on `backend` (unprefixed
// keys), which `wipe` empties.
TableRun run_case_table(const ScriptPack& pack, Backend& backend, const std::function<void()>& wipe,
                        ModelVariant reference, CompareScope scope) {
  std::vector<cases::ScriptCase> table = cases::all_cases();
  for (cases::ScriptCase& c : cases::design_variant_cases()) table.push_back(std::move(c));
  TableRun run;
  for (const cases::ScriptCase& c : table) {
    if (c.variant != reference) continue;
    const std::optional<ScriptKind> absent = absent_in(pack, c);
    bool own_messages = false;
    for (const cases::CaseStep& st : c.steps)
      own_messages = own_messages || has_own_message_conventions(pack.script(st.call.kind));
    if (absent) {
      run.skipped.push_back(c.name + " (calls " + std::string(script_name(*absent)) + ", absent in the pack)");
      continue;
    }
    CaseRunOptions options;
    options.compare_published = !own_messages;
    options.compare_state = scope == CompareScope::Everything;
    tally_case(c, run_script_case(backend, wipe, c, options), &run);
  }
  return run;
}

// The random sequences' settings: every step reported, nothing shrunk.
DiffOptions random_options(const PackCheckArgs& args, CompareScope scope) {
  DiffOptions options;
  options.sequences = args.sequences;
  options.length = args.length;
  options.seed = args.seed;
  options.max_divergences = 0;
  options.max_shrink_runs = 0;  // a report per script, no counterexample to shrink
  options.confirm_runs = 0;
  options.scope = scope;
  return options;
}

// The flags parsed (pure).
struct PackCheckRequest {
  PackCheckArgs args;
  bool on_lua = false;
  CompareScope scope = CompareScope::Everything;
  LuaLimits lua_limits = LuaBackend::default_limits();  // --memory-limit
};

PackCheckRequest validate_pack_check(const PackCheckArgs& args) {
  if (args.sequences < 1 || args.sequences > 1'000'000) {
    throw UsageError("--sequences must be between 1 and 1000000 (got " + std::to_string(args.sequences) + ")");
  }
  if (!args.reference.empty() && args.match_variant) {
    throw UsageError("--match-variant compares with a model variant; --reference with a pack: not both");
  }
  if (args.backend != "live" && args.backend != "lua") {
    throw UsageError("--backend: expected live or lua (got '" + args.backend + "')");
  }
  if (args.compare != "everything" && args.compare != "replies") {
    throw UsageError("--compare: expected everything or replies (got '" + args.compare + "')");
  }
  PackCheckRequest q;
  q.args = args;
  q.on_lua = args.backend == "lua";
  q.scope = args.compare == "replies" ? CompareScope::Replies : CompareScope::Everything;
  q.lua_limits = validate_memory_limit(args.memory_limit);
  return q;
}

// The packs, loaded once, and what the pack is compared with.
struct PackCheckPacks {
  std::optional<ScriptPack> pack;
  std::optional<ScriptPack> reference_pack;
  ModelVariant reference_variant = ModelVariant::Correct;
  std::string reference_name;
};

PackCheckPacks load_packs(const PackCheckArgs& args) {
  PackCheckPacks out;
  try {
    out.pack = ScriptPack::load(args.dir);
  } catch (const ScriptPackError& e) {
    throw UsageError(std::string("bad script pack: ") + e.what());
  }
  const ScriptPack& pack = *out.pack;
  if (!args.reference.empty()) {
    try {
      out.reference_pack = ScriptPack::load(args.reference);
    } catch (const ScriptPackError& e) {
      throw UsageError(std::string("bad reference pack: ") + e.what());
    }
  } else if (pack.design().holders != HolderRead::HashFields) {
    throw UsageError(args.dir + " declares its holders as " + std::string(holder_read_name(pack.design().holders)) +
                     " (its manifest's \"design\"), but the model is our hash lock: it cannot be this pack's "
                     "reference; compare the pack with another of its design (--reference PACK, e.g. its released "
                     "version)");
  }
  if (args.match_variant && !pack.model_variant()) {
    throw UsageError("--match-variant: the pack " + args.dir + " names no model variant (no \"model_variant\" in its manifest), so there is nothing to match (without the flag it is compared with the correct model)");
  }
  out.reference_variant =
      args.match_variant ? pack.model_variant().value_or(ModelVariant::Correct) : ModelVariant::Correct;
  out.reference_name =
      out.reference_pack ? "pack " + args.reference : "model(" + std::string(variant_name(out.reference_variant)) + ")";
  return out;
}

// Where the pack's scripts load, and whether each does.
struct PackCheckServers {
  std::unique_ptr<RedisServer> server;
  std::unique_ptr<RedisServer> reference_server;  // --reference on live: the case table's keys are unprefixed
  std::vector<LoadCheck> loads;
};

PackCheckServers load_scripts(const PackCheckRequest& q, const PackCheckPacks& packs) {
  PackCheckServers out;
  if (q.on_lua) {
    out.loads = load_each_lua(*packs.pack);
    return out;
  }
  try {
    RedisServerOptions options;
    options.initial_clock_us = kDiffEpochUs;
    out.server = std::make_unique<RedisServer>(options);
    RedisConnOptions conn_options;
    conn_options.port = out.server->port();
    RedisConn conn = RedisConn::connect(conn_options);
    out.loads = load_each(*packs.pack, conn);
    if (packs.reference_pack) out.reference_server = std::make_unique<RedisServer>(options);
  } catch (const RedisError& e) {
    throw EnvironmentError(std::string("cannot start a throwaway redis-server: ") + e.what());
  }
  return out;
}

// The comparisons: the case table and the random sequences.
struct PackCheckOutcome {
  std::optional<DiffReport> report;
  std::optional<TableRun> table;
  std::string run_problem;  // a script that never answers, a connection lost
};

// Both packs on the same kind of backend, each on its own server.
void compare_with_reference(const PackCheckRequest& q, const PackCheckPacks& packs, PackCheckServers& servers,
                            PackCheckOutcome* out) {
  const ScriptPack& pack = *packs.pack;
  std::unique_ptr<Backend> candidate;
  std::unique_ptr<Backend> reference;
  std::function<void()> wipe;
  std::function<void()> reference_wipe;
  if (q.on_lua) {
    auto c = std::make_unique<LuaBackend>(1, pack, LuaAllocation::Malloc, q.lua_limits);
    auto r = std::make_unique<LuaBackend>(1, *packs.reference_pack, LuaAllocation::Malloc, q.lua_limits);
    wipe = [b = c.get()] { b->wipe(); };
    reference_wipe = [b = r.get()] { b->wipe(); };
    candidate = std::move(c);
    reference = std::move(r);
  } else {
    auto c = std::make_unique<LiveBackend>(std::vector<ServerControl*>{servers.server.get()}, pack, "");
    auto r = std::make_unique<LiveBackend>(std::vector<ServerControl*>{servers.reference_server.get()},
                                           *packs.reference_pack, "");
    wipe = [b = c.get()] { b->wipe(); };
    reference_wipe = [b = r.get()] { b->wipe(); };
    candidate = std::move(c);
    reference = std::move(r);
  }
  const DiffSide candidate_side{candidate.get(), wipe};
  const DiffSide reference_side{reference.get(), reference_wipe};
  out->table = run_case_table_against(pack, candidate_side, *packs.reference_pack, reference_side, q.scope);
  out->report = run_differential(random_options(q.args, q.scope), reference_side, candidate_side);
}

void compare_with_model(const PackCheckRequest& q, const PackCheckPacks& packs, PackCheckServers& servers,
                        PackCheckOutcome* out) {
  const ScriptPack& pack = *packs.pack;
  std::unique_ptr<Backend> candidate;
  std::function<void()> wipe;
  if (q.on_lua) {
    auto lua = std::make_unique<LuaBackend>(1, pack, LuaAllocation::Malloc, q.lua_limits);
    wipe = [b = lua.get()] { b->wipe(); };
    out->table = run_case_table(pack, *lua, wipe, packs.reference_variant, q.scope);
    candidate = std::move(lua);
  } else {
    {
      LiveBackend unprefixed({servers.server.get()}, pack, "");
      out->table = run_case_table(pack, unprefixed, [&unprefixed] { unprefixed.wipe(); }, packs.reference_variant, q.scope);
    }
    auto live = std::make_unique<LiveBackend>(std::vector<ServerControl*>{servers.server.get()}, pack, kDiffKeyPrefix);
    wipe = [b = live.get()] { b->wipe(); };
    candidate = std::move(live);
  }
  ModelBackend model(1, packs.reference_variant);
  out->report = run_differential(random_options(q.args, q.scope), DiffSide{&model, [&model] { model.wipe(); }},
                                 DiffSide{candidate.get(), wipe});
}

PackCheckOutcome compare(const PackCheckRequest& q, const PackCheckPacks& packs, PackCheckServers& servers) {
  PackCheckOutcome out;
  try {
    if (packs.reference_pack) {
      compare_with_reference(q, packs, servers, &out);
    } else {
      compare_with_model(q, packs, servers, &out);
    }
  } catch (const RedisError& e) {
    out.run_problem = e.what();
  } catch (const ScriptPackError& e) {
    out.run_problem = e.what();
  } catch (const LuaScriptAbort& e) {
    // The pack's Lua stopped the run (the budget, the memory limit, what
    // live Redis would crash or hang on): bad input, one line.
    throw UsageError(std::string("the lua backend stopped: ") + e.what());
  }
  return out;
}

void print_pack_json(const PackCheckRequest& q, const PackCheckPacks& packs, const std::vector<LoadCheck>& loads,
                     const PackCheckOutcome& o, bool ok) {
  const PackCheckArgs& args = q.args;
  nlohmann::ordered_json out;
  out["pack"] = args.dir;
  out["backend"] = args.backend;
  out["reference"] = packs.reference_name;
  out["compared"] = args.compare;
  nlohmann::ordered_json scripts = nlohmann::ordered_json::object();
  for (const LoadCheck& c : loads) {
    nlohmann::ordered_json s;
    s["form"] = c.form;
    if (!c.detail.empty()) s["detail"] = c.detail;
    s["loads"] = c.problem.empty();
    if (!c.problem.empty()) s["problem"] = c.problem;
    if (o.table) {
      const CaseTally& t = o.table->per_script[static_cast<size_t>(c.kind)];
      nlohmann::ordered_json cs;
      cs["agreed"] = t.agreed;
      cs["differed"] = t.differed;
      if (t.first) {
        cs["first_difference"] = {{"case", *t.first_case}, {"step", t.first->step},
                                  {"text", describe_case_miss(*t.first)}};
      }
      s["cases"] = cs;
    }
    if (o.report) {
      const ScriptTally& t = o.report->per_script[static_cast<size_t>(c.kind)];
      s["agreed"] = t.agreed;
      s["diverged"] = t.diverged;
      if (t.first) {
        s["first_divergence"] = {{"sequence", t.first->sequence}, {"step", t.first->step},
                                 {"call", t.first->call}, {"text", t.first->divergence}};
      }
    }
    scripts[std::string(script_name(c.kind))] = s;
  }
  out["scripts"] = scripts;
  out["cases_run"] = o.table ? o.table->cases_run : 0;
  out["cases_differed"] = o.table ? o.table->cases_differed : 0;
  out["cases_skipped"] = o.table ? o.table->skipped : std::vector<std::string>{};
  out["sequences"] = o.report ? o.report->sequences_run : 0;
  out["steps"] = o.report ? o.report->steps_run : 0;
  if (!o.run_problem.empty()) out["problem"] = o.run_problem;
  out["ok"] = ok;
  std::printf("%s\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
}

// One script's line of the text report.
std::string script_line(const LoadCheck& c, const PackCheckOutcome& o) {
  const std::string name(script_name(c.kind));
  std::string line = "  " + name + std::string(name.size() < 20 ? 20 - name.size() : 1, ' ') + c.form;
  if (!c.detail.empty()) line += " " + c.detail;
  if (!c.problem.empty()) return line + ": PROBLEM: " + c.problem;
  if (!o.report || !o.table) return line + ": loads";
  const CaseTally& ct = o.table->per_script[static_cast<size_t>(c.kind)];
  const ScriptTally& t = o.report->per_script[static_cast<size_t>(c.kind)];
  line += ": cases " + std::to_string(ct.agreed) + " agree, " + std::to_string(ct.differed) +
          " differ; random steps " + std::to_string(t.agreed) + " agree, " + std::to_string(t.diverged) + " differ";
  if (ct.first) line += "\n      first case: " + *ct.first_case + ": " + describe_case_miss(*ct.first);
  if (t.first) {
    line += "\n      first: sequence " + std::to_string(t.first->sequence) + " step " +
            std::to_string(t.first->step) + ": " + t.first->call + "\n      " + t.first->divergence;
  }
  return line;
}

void print_pack_text(const PackCheckRequest& q, const PackCheckPacks& packs, const std::vector<LoadCheck>& loads,
                     const PackCheckOutcome& o, bool all_load, bool all_agree) {
  std::printf("locksim pack check: %s on %s against %s%s\n", q.args.dir.c_str(), q.args.backend.c_str(),
              packs.reference_name.c_str(),
              q.scope == CompareScope::Replies ? " (replies and publishes only: holders and keys not compared)" : "");
  for (const LoadCheck& c : loads) std::printf("%s\n", script_line(c, o).c_str());
  const bool against_pack = packs.reference_pack.has_value();
  if (!all_load) {
    std::printf("not compared with the %s: a script does not load\n", against_pack ? "reference pack" : "model");
  } else if (!o.run_problem.empty()) {
    std::printf("PROBLEM while comparing with the %s: %s\n", against_pack ? "reference pack" : "model",
                o.run_problem.c_str());
  } else {
    for (const std::string& skipped : o.table->skipped) std::printf("case not applicable: %s\n", skipped.c_str());
    std::printf("%d table case(s), %d differ; ", o.table->cases_run, o.table->cases_differed);
    std::printf("%d sequence(s), %lld step(s): %s\n", o.report->sequences_run,
                static_cast<long long>(o.report->steps_run),
                all_agree ? (against_pack ? "every script agrees with the reference pack" : "every script agrees with the model")
                          : (against_pack ? "some scripts differ from the reference pack"
                                          : "some scripts differ from the model"));
  }
}

int run_pack_check(const PackCheckRequest& q) {
  const PackCheckPacks packs = load_packs(q.args);
  PackCheckServers servers = load_scripts(q, packs);
  bool all_load = true;
  for (const LoadCheck& c : servers.loads) all_load = all_load && c.problem.empty();
  PackCheckOutcome outcome;
  if (all_load) outcome = compare(q, packs, servers);
  const bool all_agree = outcome.report.has_value() && outcome.report->divergences == 0 && outcome.table.has_value() &&
                         outcome.table->cases_differed == 0;
  if (q.args.json) {
    print_pack_json(q, packs, servers.loads, outcome, all_load && all_agree);
  } else {
    print_pack_text(q, packs, servers.loads, outcome, all_load, all_agree);
  }
  return all_load && all_agree ? 0 : 1;
}

}  // namespace

void add_pack_command(CLI::App& app, CliContext* ctx) {
  CLI::App* pack = app.add_subcommand("pack", "Script pack tools (pack check DIR)");
  pack->require_subcommand(1);
  auto args = std::make_shared<PackCheckArgs>();
  CLI::App* check = pack->add_subcommand(
      "check",
      "Check a script pack: manifest and files, SCRIPT LOAD of each script on a throwaway redis-server (or, "
      "--backend lua, in the lua backend), then the script case table (every branch of every script, the "
      "replies and keys the spec requires) and random script-call sequences against the model, with a "
      "per-script agreed/differ report. Exit 0 all load and agree, 1 a script does not load or differs, 2 bad "
      "pack, 3 no redis-server could be started");
  check->add_option("DIR", args->dir,
                    "Script pack directory (holds manifest.json), or a built-in pack such as builtin:impl/lua")
      ->required();
  check->add_option("--backend", args->backend,
                    "where the pack runs: live (default: a throwaway redis-server) or lua (the pack's Lua in "
                    "process, no server)")
      ->capture_default_str();
  check->add_option("--sequences", args->sequences, "Random sequences compared with the model (default 100)")
      ->capture_default_str()->transform(integer_in(1, 1'000'000));
  check->add_option("--length", args->length, "Steps per sequence (default 50)")
      ->capture_default_str()->transform(integer_in(1, 100'000));
  check->add_option("--seed", args->seed, "PRNG seed (default 1)")->capture_default_str()->transform(non_negative_integer());
  check->add_flag("--json", args->json, "Print one JSON object on stdout");
  check->add_option("--compare", args->compare,
                    "What is compared with the model: everything (replies, publishes, holders and every key) or "
                    "replies (replies and publishes only, for a pack whose storage layout differs from ours by "
                    "design)")
      ->capture_default_str();
  check->add_option("--reference", args->reference,
                    "Compare with this script pack (a directory or builtin: name) instead of the model, on the same "
                    "backend: e.g. a changed pack against its released version, or a pack of another lock design "
                    "(a token in a string key) against one of the same design. The case table's calls run on both "
                    "and their answers are compared with each other");
  check->add_flag("--match-variant", args->match_variant,
                  "Compare against the model variant named by the pack's manifest instead of the correct model");
  add_memory_limit_option(check, &args->memory_limit);
  check->callback([args, ctx] { ctx->exit_code = run_pack_check(validate_pack_check(*args)); });
}

}  // namespace locksim::cli
