#include "tools/cli/scenario_flags.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "impl/mutant.h"
#include "sim/scenario.h"
#include "sim/server_faults.h"
#include "tools/cli/commands.h"
#include "tools/cli/number_option.h"

namespace locksim::cli {

void add_scenario_flags(CLI::App* cmd, ScenarioFlags* f) {
  cmd->add_option("--clients", f->clients, "Client processes per scenario")
      ->capture_default_str()->transform(integer_in(1, kMaxClients));
  cmd->add_option("--locks", f->locks, "Locks per scenario")->capture_default_str()->transform(integer_in(1, kMaxLocks));
  cmd->add_option("--servers", f->servers,
                  "Redis servers per scenario (lock i lives on server i % servers; a multi/redlock group has one "
                  "member on each)")
      ->capture_default_str()->transform(integer_in(1, kMaxServers));
  cmd->add_option("--lock", f->lock,
                  "Lock kind: rlock, fair, mixed, multi (multi-lock: one member per server, all needed) or "
                  "redlock (RedLock: a majority of the servers)")
      ->capture_default_str();
  cmd->add_option("--profile", f->profile,
                  "Fault profile: none, safe, pauses, skew, hostile, restarts, failover, server-clock, or a '+' "
                  "combination (pauses+restarts)")
      ->capture_default_str();
  CLI::Option* ms = cmd->add_option("--duration-ms", f->duration_ms, "Virtual milliseconds of new operations")
                        ->capture_default_str()->transform(integer_in(int64_t{0}, kMaxDurationMs));
  CLI::Option* s = cmd->add_option("--duration-s", f->duration_s, "The same in seconds (instead of --duration-ms)")
                       ->check(decimal_in(0, static_cast<double>(kMaxDurationMs) / 1000));
  ms->excludes(s);
  cmd->add_option("--persistence", f->persistence,
                  "What a server restart keeps: none (all data lost) or always (append-only, fsync on every "
                  "write: all kept)")
      ->capture_default_str();
  cmd->add_option("--restart-delay-ms", f->restart_delay_ms,
                  "A restarted server stays down this long (requests meanwhile are refused)")
      ->capture_default_str()->transform(integer_in(int64_t{0}, kMaxRestartDelayMs));
  cmd->add_option("--fair-slot-ms", f->fair_slot_ms,
                  "Fair lock: every slot this long whatever the caller's wait (older versions: 5000); 0: the wait. "
                  "Default: the pack's \"settings\": {\"fair_slot_ms\": S} in its manifest, else 0")
      ->transform(integer_in(int64_t{0}, kMaxFairSlotMs));
  cmd->add_flag("--validity", f->validity,
                "RedLock: check the validity (lease - elapsed - drift) and believe the hold only until it ends");
  cmd->add_option("--scripts", f->scripts,
                  std::string(kScriptsHelp) + "; on the model its model_variant stands for it, lua and live run its "
                                              "own Lua");
  cmd->add_option("--mutant", f->mutant, "Client or script mutant to run (see locksim mutants --list)")
      ->capture_default_str();
}

ScenarioLockKind lock_kind_option(const std::string& name) {
  if (auto k = lock_kind_from_name(name)) return *k;
  throw UsageError("--lock: unknown lock kind '" + name + "' (" + lock_kind_names_text() + ")");
}

Mutant mutant_option(const std::string& name) {
  try {
    return parse_mutant(name);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--mutant: ") + e.what());
  }
}

Persistence persistence_option(const std::string& name) {
  if (auto p = persistence_from_name(name)) return *p;
  throw UsageError("--persistence: unknown value '" + name + "' (none, always)");
}

void ScenarioFlags::apply(CampaignOptions* o) const {
  o->clients = clients;
  o->locks = locks;
  o->servers = servers;
  o->lock_kind = lock_kind_option(lock);
  if (auto p = Profile::from_name(profile)) {
    o->profile = *p;
  } else {
    throw UsageError("--profile: unknown profile '" + profile + "' (" + profile_names_text() +
                     "; or several joined by +)");
  }
  o->duration_ms = duration_s >= 0 ? static_cast<int64_t>(std::llround(duration_s * 1000)) : duration_ms;
  o->persistence = persistence_option(persistence);
  o->restart_delay_ms = restart_delay_ms;
  o->fair_slot_ms = fair_slot_ms;
  o->validity = validity;
  o->scripts = scripts;
  o->mutant = mutant_option(mutant);
}

std::string shell_word(const std::string& text) {
  const bool plain = !text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789_-+=.,/:@%") == std::string::npos;
  if (plain) return text;
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string scenario_command_text(const CampaignOptions& o) {
  const CampaignOptions defaults;
  std::string c = "--profile " + shell_word(o.profile.name()) + " --lock " + std::string(lock_kind_name(o.lock_kind));
  if (o.clients != defaults.clients) c += " --clients " + std::to_string(o.clients);
  if (o.locks != defaults.locks) c += " --locks " + std::to_string(o.locks);
  if (o.servers != defaults.servers) c += " --servers " + std::to_string(o.servers);
  if (o.duration_ms != defaults.duration_ms) c += " --duration-ms " + std::to_string(o.duration_ms);
  if (o.persistence != Persistence::None) c += " --persistence " + std::string(persistence_name(o.persistence));
  if (o.restart_delay_ms != 0) c += " --restart-delay-ms " + std::to_string(o.restart_delay_ms);
  if (o.fair_slot_ms >= 0) c += " --fair-slot-ms " + std::to_string(o.fair_slot_ms);
  if (o.validity) c += " --validity";
  if (!o.scripts.empty()) c += " --scripts " + shell_word(o.scripts);
  if (!o.mutant.none()) c += " --mutant " + shell_word(o.mutant.name());
  return c;
}

}  // namespace locksim::cli
