#include "tools/cli/scenario_flags.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "impl/builtin_packs.h"
#include "impl/mutant.h"
#include "sim/scenario.h"
#include "sim/server_faults.h"
#include "tools/cli/commands.h"
#include "tools/cli/number_option.h"
#include "tools/cli/program_name.h"

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
                  "Lock kind: rlock, fair, mixed, multi (multi-lock: one member per server, all needed), "
                  "redlock (RedLock: a majority of the servers), spin (the reentrant lock without pub/sub: "
                  "waiters back off and poll) or faster_multi (several values of a group in one hash, on one "
                  "server, their deadlines in the caller's clock)")
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
  cmd->add_option("--backoff", f->backoff,
                  "Spin lock: how a refused waiter sleeps: exponential (1 ms, doubling plus a small random "
                  "amount, up to 128 ms) or constant (64 ms plus a small random amount)")
      ->capture_default_str();
  cmd->add_option("--values", f->values,
                  "Faster multi-lock: values per group (default 3); each operation takes all but one of them")
      ->transform(integer_in(1, kMaxValues));
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

BackoffKind backoff_option(const std::string& name) {
  if (auto b = backoff_from_name(name)) return *b;
  throw UsageError("--backoff: unknown value '" + name + "' (exponential, constant)");
}

Persistence persistence_option(const std::string& name) {
  if (auto p = persistence_from_name(name)) return *p;
  throw UsageError("--persistence: unknown value '" + name + "' (none, always)");
}

void ScenarioFlags::apply(CampaignOptions* o) const {
  Scenario& s = o->scenario;
  s.clients = clients;
  s.locks = locks;
  s.servers = servers;
  s.lock_kind = lock_kind_option(lock);
  if (auto p = Profile::from_name(profile)) {
    s.profile = *p;
  } else {
    throw UsageError("--profile: unknown profile '" + profile + "' (" + profile_names_text() +
                     "; or several joined by +)");
  }
  s.duration_ms = duration_s >= 0 ? static_cast<int64_t>(std::llround(duration_s * 1000)) : duration_ms;
  s.persistence = persistence_option(persistence);
  s.restart_delay_ms = restart_delay_ms;
  o->fair_slot_given = fair_slot_ms >= 0;
  s.fair_slot_ms = std::max<int64_t>(fair_slot_ms, 0);
  s.validity = validity;
  s.backoff = backoff_option(backoff);
  if (s.lock_kind == ScenarioLockKind::FasterMulti) {
    s.values = values >= 0 ? values : kDefaultValues;
  } else if (values >= 0) {
    throw UsageError("--values is a faster multi-lock option (--lock faster_multi), not --lock " + lock);
  }
  s.scripts = scripts;
  const Mutant m = mutant_option(mutant);
  s.mutant = m.client();
  s.model_variant = m.script();
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
  const Scenario defaults = campaign_default_scenario();
  const Scenario& s = o.scenario;
  std::string c = "--profile " + shell_word(s.profile.name()) + " --lock " + std::string(lock_kind_name(s.lock_kind));
  if (s.clients != defaults.clients) c += " --clients " + std::to_string(s.clients);
  if (s.locks != defaults.locks) c += " --locks " + std::to_string(s.locks);
  if (s.servers != defaults.servers) c += " --servers " + std::to_string(s.servers);
  if (s.duration_ms != defaults.duration_ms) c += " --duration-ms " + std::to_string(s.duration_ms);
  if (s.persistence != Persistence::None) c += " --persistence " + std::string(persistence_name(s.persistence));
  if (s.restart_delay_ms != 0) c += " --restart-delay-ms " + std::to_string(s.restart_delay_ms);
  if (o.fair_slot_given) c += " --fair-slot-ms " + std::to_string(s.fair_slot_ms);
  if (s.validity) c += " --validity";
  if (s.backoff != BackoffKind::Exponential) c += " --backoff " + std::string(backoff_name(s.backoff));
  if (s.lock_kind == ScenarioLockKind::FasterMulti) c += " --values " + std::to_string(s.values);
  // A pack directory by its absolute path: the command runs from anywhere.
  if (!s.scripts.empty())
    c += " --scripts " + shell_word(is_builtin_name(s.scripts) ? s.scripts : absolute_path_text(s.scripts));
  const Mutant mutant = campaign_mutant(o);
  if (!mutant.none()) c += " --mutant " + shell_word(mutant.name());
  return c;
}

}  // namespace locksim::cli
