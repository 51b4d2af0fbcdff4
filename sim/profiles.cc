#include "sim/profiles.h"

#include <algorithm>
#include <cassert>

namespace locksim {

namespace {

constexpr int64_t kMinuteUs = 60'000'000;

// The sizes each profile draws (ms), shared by the generator below and
// fault_outside_profile(): one statement of what a profile permits.
struct RangeMs {
  int64_t lo = 0, hi = 0;
  bool has(int64_t v) const { return v >= lo && v <= hi; }
};
constexpr RangeMs kSafePauseMs{10, 300};
constexpr RangeMs kPausesPauseMs{31'000, 60'000};
constexpr RangeMs kHostilePauseMs{1, 120'000};
constexpr double kHostilePauseMeanMs = 5'000.0;
constexpr RangeMs kSafeJumpMs{-5, 5};
constexpr RangeMs kHostileJumpMs{-5'000, 5'000};
constexpr RangeMs kPartitionMs{100, 20'000};
constexpr RangeMs kCrashRestartMs{500, 10'000};
constexpr RangeMs kHostileServerJumpMs{1, 5'000};
constexpr RangeMs kServerClockJumpMs{-60'000, 60'000};  // never 0

struct Rates {  // per client (or per server) per minute
  double crash = 0, pause = 0, client_jump = 0, server_jump = 0, partition = 0, redis_restart = 0;
};

// Poisson arrival times in [0, duration_us) at `per_minute` per minute.
template <typename Fn>
void arrivals(Rng& rng, double per_minute, int64_t duration_us, Fn&& fn) {
  if (per_minute <= 0) return;
  const double mean_us = static_cast<double>(kMinuteUs) / per_minute;
  int64_t t = 0;
  for (int i = 0; i < 100'000; ++i) {  // bound
    t += 1 + rng.exponential(mean_us);
    if (t >= duration_us) return;
    fn(t);
  }
}

}  // namespace

const std::vector<std::string>& profile_names() {
  static const std::vector<std::string> kNames = {"none",     "safe",     "pauses",      "skew",
                                                  "hostile",  "restarts", "failover", "server-clock"};
  return kNames;
}

namespace {

bool is_single_profile(const std::string& name) {
  const auto& names = profile_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// "a+b+c" -> {"a", "b", "c"}; empty when a part is unknown, empty or repeated.
std::vector<std::string> profile_parts(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t plus = name.find('+', start);
    const std::string part = name.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
    if (!is_single_profile(part) || std::find(parts.begin(), parts.end(), part) != parts.end()) return {};
    parts.push_back(part);
    if (plus == std::string::npos) return parts;
    start = plus + 1;
  }
}

bool is_server_profile(const std::string& p) { return p == "restarts" || p == "failover" || p == "server-clock"; }

// The server-side profiles: their own random streams, so that combining
// them with a client-side profile leaves its draws unchanged.
void add_server_faults(const std::string& profile, int servers, int64_t duration_us, const Rng& rng,
                       FaultPlan* plan) {
  for (int s = 0; s < servers; ++s) {
    Rng r = rng.split(profile).split(static_cast<uint64_t>(s));
    if (profile == "restarts") {
      arrivals(r, 0.5, duration_us, [&](int64_t t) {
        plan->actions.push_back(FaultAction{t, FaultKind::RedisRestart, s, 0, -1});
      });
    } else if (profile == "failover") {
      plan->replica_lag_ms.push_back(r.uniform(20, 2'000));
      bool once = false;
      arrivals(r, 0.5, duration_us, [&](int64_t t) {
        if (once) return;
        once = true;
        plan->actions.push_back(FaultAction{t, FaultKind::Failover, s, 0, -1});
      });
    } else if (profile == "server-clock") {
      arrivals(r, 1.0, duration_us, [&](int64_t t) {
        int64_t ms = r.uniform(kServerClockJumpMs.lo, kServerClockJumpMs.hi);
        if (ms == 0) ms = 1;
        plan->actions.push_back(FaultAction{t, FaultKind::ServerClockJump, s, ms, -1});
      });
    }
  }
}

}  // namespace

bool is_profile(const std::string& name) { return !profile_parts(name).empty(); }

std::string profile_names_text() {
  std::string names;
  for (const auto& n : profile_names()) names += (names.empty() ? "" : ", ") + n;
  return names;
}

std::optional<Profile> Profile::from_name(const std::string& name) {
  if (!is_profile(name)) return std::nullopt;
  return Profile(name);
}

Profile Profile::named(const std::string& name) {
  if (auto p = from_name(name)) return *p;
  throw std::invalid_argument("no profile named '" + name + "'");
}

namespace {

// The plan of the profile `profile` (a valid name: a part of a combination
// is planned on its own, with the same streams as alone).
FaultPlan plan_for_name(const std::string& profile, int clients, int servers, int64_t duration_us, const Rng& rng) {
  const std::vector<std::string> parts = profile_parts(profile);
  assert(!parts.empty() && "a profile is valid by its type");
  assert(clients >= 1 && servers >= 1 && duration_us >= 0);
  if (parts.size() > 1 || is_server_profile(profile)) {
    FaultPlan plan;
    plan.link = LinkProfile{100, 1'000, 0.0, 0, 0.0};
    plan.client_clocks.assign(clients, ClockSetup{});
    plan.server_clocks.assign(servers, ClockSetup{});
    for (const std::string& part : parts) {
      if (is_server_profile(part)) {
        add_server_faults(part, servers, duration_us, rng, &plan);
        continue;
      }
      FaultPlan one = plan_for_name(part, clients, servers, duration_us, rng);
      if (one.link.latency_max_us > plan.link.latency_max_us) plan.link = one.link;
      for (int c = 0; c < clients; ++c) {
        if (one.client_clocks[c].offset_us != 0 || one.client_clocks[c].drift_ppm != 0) plan.client_clocks[c] = one.client_clocks[c];
      }
      for (int s = 0; s < servers; ++s) {
        if (one.server_clocks[s].offset_us != 0 || one.server_clocks[s].drift_ppm != 0) plan.server_clocks[s] = one.server_clocks[s];
      }
      plan.actions.insert(plan.actions.end(), one.actions.begin(), one.actions.end());
    }
    std::stable_sort(plan.actions.begin(), plan.actions.end(),
                     [](const FaultAction& a, const FaultAction& b) { return a.at_us < b.at_us; });
    return plan;
  }
  FaultPlan plan;
  plan.link = LinkProfile{100, 1'000, 0.0, 0, 0.0};
  plan.client_clocks.assign(clients, ClockSetup{});
  plan.server_clocks.assign(servers, ClockSetup{});
  Rates rates;
  Rng clocks = rng.split("clocks");

  if (profile == "safe") {
    // Delays well under lease/3 and no loss: a lost release would be retried
    // only after the request timeout, longer than the shortest explicit lease.
    plan.link = LinkProfile{100, 3'000, 0.01, 2'000, 0.0};
    for (auto& c : plan.client_clocks) c = ClockSetup{clocks.uniform(-3'000, 3'000), clocks.uniform(-50, 50)};
    for (auto& s : plan.server_clocks) s = ClockSetup{0, clocks.uniform(-20, 20)};
    rates.crash = 0.05;
    rates.pause = 0.5;
    rates.client_jump = 0.2;
  } else if (profile == "pauses") {
    rates.pause = 0.5;
  } else if (profile == "skew") {
    for (auto& c : plan.client_clocks) c = ClockSetup{clocks.uniform(-5'000'000, 5'000'000), 0};
  } else if (profile == "hostile") {
    plan.link = LinkProfile{100, 20'000, 0.05, 50'000, 0.02};
    for (auto& c : plan.client_clocks) {
      c = ClockSetup{clocks.uniform(-2'000'000, 2'000'000), clocks.uniform(-500, 500)};
    }
    for (auto& s : plan.server_clocks) s = ClockSetup{0, clocks.uniform(-100, 100)};
    rates = Rates{0.1, 0.5, 0.2, 0.05, 0.2, 0.02};
  }

  for (int c = 0; c < clients; ++c) {
    Rng r = rng.split("client").split(static_cast<uint64_t>(c));
    arrivals(r, rates.crash, duration_us, [&](int64_t t) {
      const bool restart = profile == "safe" ? r.chance(0.9) : r.chance(0.7);
      plan.actions.push_back(
          FaultAction{t, FaultKind::Crash, c, 0, restart ? r.uniform(kCrashRestartMs.lo, kCrashRestartMs.hi) : -1});
    });
    arrivals(r, rates.pause, duration_us, [&](int64_t t) {
      int64_t ms = 0;
      if (profile == "safe") ms = r.uniform(kSafePauseMs.lo, kSafePauseMs.hi);
      else if (profile == "pauses") ms = r.uniform(kPausesPauseMs.lo, kPausesPauseMs.hi);
      else ms = std::min<int64_t>(kHostilePauseMs.lo + r.exponential(kHostilePauseMeanMs), kHostilePauseMs.hi);
      plan.actions.push_back(FaultAction{t, FaultKind::Pause, c, ms, -1});
    });
    arrivals(r, rates.client_jump, duration_us, [&](int64_t t) {
      const RangeMs jump = profile == "safe" ? kSafeJumpMs : kHostileJumpMs;
      const int64_t ms = r.uniform(jump.lo, jump.hi);
      plan.actions.push_back(FaultAction{t, FaultKind::ClientClockJump, c, ms, -1});
    });
    arrivals(r, rates.partition, duration_us, [&](int64_t t) {
      plan.actions.push_back(FaultAction{t, FaultKind::Partition, c, r.uniform(kPartitionMs.lo, kPartitionMs.hi), -1});
    });
  }
  for (int s = 0; s < servers; ++s) {
    Rng r = rng.split("server").split(static_cast<uint64_t>(s));
    arrivals(r, rates.server_jump, duration_us, [&](int64_t t) {
      plan.actions.push_back(
          FaultAction{t, FaultKind::ServerClockJump, s, r.uniform(kHostileServerJumpMs.lo, kHostileServerJumpMs.hi), -1});
    });
    arrivals(r, rates.redis_restart, duration_us, [&](int64_t t) {
      plan.actions.push_back(FaultAction{t, FaultKind::RedisRestart, s, 0, -1});
    });
  }
  std::stable_sort(plan.actions.begin(), plan.actions.end(),
                   [](const FaultAction& a, const FaultAction& b) { return a.at_us < b.at_us; });
  return plan;
}

}  // namespace

FaultPlan make_fault_plan(const Profile& profile, int clients, int servers, int64_t duration_us, const Rng& rng) {
  return plan_for_name(profile.name(), clients, servers, duration_us, rng);
}

std::optional<FaultAction> draw_profile_fault(const Profile& profile, FaultKind kind, Rng& rng) {
  for (const std::string& part : profile_parts(profile.name())) {
    const bool safe = part == "safe", hostile = part == "hostile";
    FaultAction a;
    a.kind = kind;
    switch (kind) {
      case FaultKind::Crash:
        if (!safe && !hostile) continue;
        a.restart_after_ms = (safe ? rng.chance(0.9) : rng.chance(0.7))
                                 ? rng.uniform(kCrashRestartMs.lo, kCrashRestartMs.hi)
                                 : -1;
        return a;
      case FaultKind::Pause:
        if (safe) a.duration_ms = rng.uniform(kSafePauseMs.lo, kSafePauseMs.hi);
        else if (part == "pauses") a.duration_ms = rng.uniform(kPausesPauseMs.lo, kPausesPauseMs.hi);
        else if (hostile)
          a.duration_ms = std::min<int64_t>(kHostilePauseMs.lo + rng.exponential(kHostilePauseMeanMs), kHostilePauseMs.hi);
        else continue;
        return a;
      case FaultKind::ClientClockJump: {
        if (!safe && !hostile) continue;
        const RangeMs jump = safe ? kSafeJumpMs : kHostileJumpMs;
        a.duration_ms = rng.uniform(jump.lo, jump.hi);
        return a;
      }
      default:
        return std::nullopt;  // not a focused run's (client faults only)
    }
  }
  return std::nullopt;
}

namespace {

// Whether the single profile `part` draws a fault like `a` (its kind and
// size; where and when are checked by the caller).
bool single_profile_draws(const std::string& part, const FaultAction& a) {
  const bool safe = part == "safe", hostile = part == "hostile";
  switch (a.kind) {
    case FaultKind::Crash:
      return (safe || hostile) && a.duration_ms == 0 &&
             (a.restart_after_ms == -1 || kCrashRestartMs.has(a.restart_after_ms));
    case FaultKind::Pause:
      return (safe && kSafePauseMs.has(a.duration_ms)) || (part == "pauses" && kPausesPauseMs.has(a.duration_ms)) ||
             (hostile && kHostilePauseMs.has(a.duration_ms));
    case FaultKind::ClientClockJump:
      return (safe && kSafeJumpMs.has(a.duration_ms)) || (hostile && kHostileJumpMs.has(a.duration_ms));
    case FaultKind::Partition: return hostile && kPartitionMs.has(a.duration_ms);
    case FaultKind::ServerClockJump:
      return (hostile && kHostileServerJumpMs.has(a.duration_ms)) ||
             (part == "server-clock" && a.duration_ms != 0 && kServerClockJumpMs.has(a.duration_ms));
    case FaultKind::RedisRestart: return (hostile || part == "restarts") && a.duration_ms == 0;
    case FaultKind::Failover: return part == "failover" && a.duration_ms == 0;
    case FaultKind::LostRequest:
    case FaultKind::LostReply:
    case FaultKind::LostMessage:
    case FaultKind::LostSubscribe:
    case FaultKind::RequestTimeout:
    case FaultKind::ClientClockSkew:
    case FaultKind::ServerClockDrift:
    case FaultKind::SlowLink:
      return false;  // no profile plans these
  }
  return false;
}

}  // namespace

std::string fault_outside_profile(const Profile& profile_type, const std::vector<FaultAction>& actions, int clients,
                                  int servers, int64_t duration_us) {
  const std::string& profile = profile_type.name();
  const std::vector<std::string> parts = profile_parts(profile);
  assert(!parts.empty() && "a profile is valid by its type");
  std::vector<int> failovers(static_cast<size_t>(std::max(servers, 0)), 0);
  for (size_t i = 0; i < actions.size(); ++i) {
    const FaultAction& a = actions[i];
    const auto which = [i] { return "fault action " + std::to_string(i + 1) + ": "; };
    if (a.at_us < 0 || a.at_us >= duration_us) {
      return which() + "at " + std::to_string(a.at_us) + " us, outside the run's " + std::to_string(duration_us) +
             " us of operations";
    }
    const int targets = is_client_fault(a.kind) ? clients : servers;
    if (a.target < 0 || a.target >= targets) return which() + "target " + std::to_string(a.target) + " out of range";
    if (std::none_of(parts.begin(), parts.end(), [&a](const std::string& p) { return single_profile_draws(p, a); })) {
      return which() + "profile " + profile + " never draws this kind or size (" + std::to_string(a.duration_ms) +
             " ms)";
    }
    if (a.kind == FaultKind::Failover && ++failovers[static_cast<size_t>(a.target)] > 1) {
      return which() + "a second failover of server " + std::to_string(a.target);
    }
  }
  return "";
}

}  // namespace locksim
