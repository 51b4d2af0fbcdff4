// ViolationFacts (properties/violation.h): what a violation's sentences say
// that code reads is carried beside them as data, and the data says what the
// sentences say. Over runs of every profile and lock kind and of the script
// and client mutants, each violation's named_ids and blamed_ids are exactly
// the "#<id>" its message and blamed fault write, in their order, and the
// figures a report draws (a liveness bound, the lock shown free since, a
// busy poll's count, rate and head) are the ones its message writes. The
// reading of sentences below lives here only, to check the checkers.
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "impl/client_mutant.h"
#include "model/variant.h"
#include "properties/scenario_check.h"
#include "sim/profiles.h"

namespace locksim {
namespace {

// The ids written "#123" in a text, in order.
std::vector<uint64_t> ids_in(const std::string& text) {
  std::vector<uint64_t> out;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] != '#' || !std::isdigit(static_cast<unsigned char>(text[i + 1]))) continue;
    uint64_t id = 0;
    size_t j = i + 1;
    for (; j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])); ++j) id = id * 10 + (text[j] - '0');
    out.push_back(id);
    i = j - 1;
  }
  return out;
}

// The number right after `key` ("(bound 33 000 ms" -> 33000: digit groups
// joined by single spaces), if the text has `key`.
std::optional<int64_t> number_after(const std::string& text, const std::string& key) {
  const size_t at = text.find(key);
  if (at == std::string::npos) return std::nullopt;
  int64_t n = 0;
  bool any = false;
  for (size_t i = at + key.size(); i < text.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      n = n * 10 + (text[i] - '0');
      any = true;
    } else if (!(text[i] == ' ' && any && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
      break;
    }
  }
  return any ? std::optional<int64_t>(n) : std::nullopt;
}

// Counts of what was checked, so that the test shows it saw each kind of fact.
struct Seen {
  int violations = 0;
  int named = 0;
  int blamed = 0;
  int bounds = 0;
  int free_locks = 0;
  int storms = 0;
  int heads = 0;
};

void check_facts(const Violation& v, Seen* seen) {
  ++seen->violations;
  const ViolationFacts& f = v.facts;
  EXPECT_EQ(f.named_ids, ids_in(v.message)) << v.to_string();
  EXPECT_EQ(f.blamed_ids, ids_in(v.blamed_fault)) << v.to_string();
  seen->named += !f.named_ids.empty();
  seen->blamed += !f.blamed_ids.empty();
  const bool liveness = v.property == property::kLiveness;
  const bool busy = v.property == property::kBusyPoll;
  if (liveness) {
    EXPECT_EQ(f.bound_ms, number_after(v.message, "(bound ").value_or(-1)) << v.to_string();
    const bool free = v.message.find("shows free since") != std::string::npos;
    EXPECT_EQ(f.free_since_event != 0, free) << v.to_string();
    if (free) {
      ASSERT_GE(v.event_ids.size(), 2u) << v.to_string();
      EXPECT_EQ(f.free_since_event, v.event_ids[1]) << v.to_string();
    }
    seen->bounds += f.bound_ms >= 0;
    seen->free_locks += free;
  } else {
    EXPECT_EQ(f.bound_ms, -1) << v.to_string();
    EXPECT_EQ(f.free_since_event, 0u) << v.to_string();
  }
  if (busy) {
    EXPECT_GT(f.polls, 0) << v.to_string();
    if (auto polls = number_after(v.message, "polled the lock ")) {
      EXPECT_EQ(f.polls, *polls) << v.to_string();
    }
    const size_t rate_at = v.message.find(" polls/s");
    ASSERT_NE(rate_at, std::string::npos) << v.to_string();
    size_t from = rate_at;
    while (from > 0 && std::isdigit(static_cast<unsigned char>(v.message[from - 1]))) --from;
    EXPECT_EQ(f.polls_per_s, std::stoll(v.message.substr(from, rate_at - from))) << v.to_string();
    std::string head;
    if (const size_t behind = v.message.find(", behind "); behind != std::string::npos) {
      const size_t at = behind + 9;
      head = v.message.substr(at, v.message.find(' ', at) - at);
    }
    EXPECT_EQ(f.line_head, head) << v.to_string();
    ++seen->storms;
    seen->heads += !head.empty();
  } else {
    EXPECT_EQ(f.polls, -1) << v.to_string();
    EXPECT_EQ(f.polls_per_s, -1) << v.to_string();
    EXPECT_EQ(f.line_head, "") << v.to_string();
  }
}

void check_runs_of(Scenario s, Seen* seen) {
  for (uint64_t seed : {1, 2, 3}) {
    s.seed = seed;
    ScenarioVerdict verdict;
    try {
      verdict = check_scenario(s);
    } catch (const ScenarioError&) {
      return;  // a mutant of another lock kind
    }
    for (const Violation& v : verdict.violations) check_facts(v, seen);
  }
}

Scenario base(ScenarioLockKind kind) {
  Scenario s;
  s.clients = 4;
  s.lock_kind = kind;
  s.servers = is_group_kind(kind) ? 3 : 1;
  s.duration_ms = 40'000;
  return s;
}

TEST(ViolationFacts, TheDataSaysWhatTheSentencesSay) {
  Seen seen;
  for (ScenarioLockKind kind : all_lock_kinds()) {
    for (const std::string& profile : profile_names()) {
      Scenario s = base(kind);
      s.profile = Profile::named(profile);
      check_runs_of(s, &seen);
    }
  }
  for (ScenarioLockKind kind : {ScenarioLockKind::Rlock, ScenarioLockKind::Fair}) {
    for (ModelVariant variant : mutant_variants()) {
      Scenario s = base(kind);
      s.model_variant = variant;
      s.profile = Profile::named("safe");
      check_runs_of(s, &seen);
    }
    for (ClientMutant mutant : all_client_mutants()) {
      if (mutant == ClientMutant::None) continue;
      Scenario s = base(kind);
      s.mutant = mutant;
      s.profile = Profile::named("safe");
      check_runs_of(s, &seen);
    }
  }
  // A liveness waiter on a lock the server shows free (as `locksim run --seed
  // 286 --profile hostile --lock fair` writes it).
  {
    Scenario s;
    s.lock_kind = ScenarioLockKind::Fair;
    s.profile = Profile::named("hostile");
    s.seed = 286;
    for (const Violation& v : check_scenario(s).violations) check_facts(v, &seen);
  }
  // Each kind of fact was met (else the runs above check too little).
  EXPECT_GT(seen.violations, 100) << seen.violations;
  EXPECT_GT(seen.named, 50);
  EXPECT_GT(seen.blamed, 0);
  EXPECT_GT(seen.bounds, 0);
  EXPECT_GT(seen.free_locks, 0);
  EXPECT_GT(seen.storms, 0);
  EXPECT_GT(seen.heads, 0);
  std::cout << "violations " << seen.violations << ", naming events " << seen.named << ", blaming events "
            << seen.blamed << ", liveness bounds " << seen.bounds << " (free lock " << seen.free_locks
            << "), busy polls " << seen.storms << " (behind a head " << seen.heads << ")\n";
}

}  // namespace
}  // namespace locksim
