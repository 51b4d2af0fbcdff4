// Profiles: named fault-plan generators.
//  none     nothing goes wrong: short delays, exact clocks.
//  safe     every fault bounded so that the lock's guarantees must hold:
//           network delay well under lease/3, rare loss (retries cover it),
//           pauses under 300 ms (< lease/3 of the shortest explicit lease),
//           clock jumps of a few ms, small drift, crashes with or without
//           restart.
//  pauses   process pauses longer than the lease; nothing else.
//  skew     client clocks offset by seconds; nothing else.
//  hostile  everything, unbounded: long tails, loss, partitions, long pauses,
//           clock jumps of seconds, crashes, Redis restarts losing data.
//  restarts      server restarts (about one per server every two minutes);
//                what they keep and how long the server stays down is the
//                scenario's persistence and restart delay.
//  failover      every server has one asynchronous replica, lag drawn per
//                server (20-2 000 ms); failovers promote it (about one per
//                server every two minutes, at most one per server).
//  server-clock  server clocks jump forward or backward by up to a minute
//                (about one jump per server per minute).
// Profiles combine with '+' ("pauses+restarts"): the union of their faults;
// each part draws exactly what it draws alone. The link is the part's with
// the longest delays; clocks and replicas come from the parts that set them.
// Only server-clock moves a server clock backward.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/fault_plan.h"
#include "sim/rng.h"

namespace locksim {

// The single profiles (not their combinations).
const std::vector<std::string>& profile_names();
// A single profile or a '+' combination of distinct ones.
bool is_profile(const std::string& name);
// "none, safe, ...": the single profiles, for messages naming them.
std::string profile_names_text();

// A profile, read from its name once (the command line, a trace header): a
// single profile or a '+' combination of distinct ones, kept as written,
// since the name seeds the random streams of its fault plan.
class Profile {
 public:
  Profile() = default;  // none
  // Nothing for a name that is no profile.
  static std::optional<Profile> from_name(const std::string& name);
  // A profile the program names itself ("safe"); std::invalid_argument when
  // it is none (a programming error, never input).
  static Profile named(const std::string& name);
  const std::string& name() const { return name_; }
  bool operator==(const Profile&) const = default;

 private:
  explicit Profile(std::string name) : name_(std::move(name)) {}
  std::string name_ = "none";
};

FaultPlan make_fault_plan(const Profile& profile, int clients, int servers, int64_t duration_us, const Rng& rng);

// One client fault of kind `kind` (Crash, Pause or ClientClockJump) sized as
// the profile sizes it (a pause's length, a jump's size, a crash's restart
// delay), from `rng`; its target and time are the caller's (a focused run's
// nemesis, sim/targeted_nemesis.h). Nothing when no part of the profile
// draws that kind. fault_outside_profile() accepts what it returns.
std::optional<FaultAction> draw_profile_fault(const Profile& profile, FaultKind kind, Rng& rng);

// What a profile permits of a plan's fault actions: every action of a kind
// and size one of its parts draws, on an existing client or server, at a
// time within the run's operations [0, duration_us), at most one failover
// per server. "" when it could have drawn them all (two of a client's
// pauses may overlap: its arrivals are independent of their lengths),
// else the first that it could not, in words.
std::string fault_outside_profile(const Profile& profile, const std::vector<FaultAction>& actions, int clients,
                                  int servers, int64_t duration_us);

}  // namespace locksim
