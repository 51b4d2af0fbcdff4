#include "search/explore_setup.h"

#include <stdexcept>

#include "sim/explicit_plan.h"

namespace locksim {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

int64_t number(const std::string& text, const std::string& word, int64_t min, int64_t max) {
  if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos) {
    throw std::invalid_argument("operation '" + word + "': '" + text + "' is not a whole number of ms");
  }
  const int64_t value = std::stoll(text);
  if (value < min || value > max) {
    throw std::invalid_argument("operation '" + word + "': " + text + " is outside [" + std::to_string(min) + ", " +
                                std::to_string(max) + "]");
  }
  return value;
}

// The lock an "@" names, by its index among the scenario's locks: a digit
// string in [0, locks). Anything else (a lock's name such as L9, a sign) is
// an index out of range, said with the range there is.
int lock_index(const std::string& text, const std::string& word, int locks) {
  const std::string range = locks == 1 ? "only 0, with one lock" : "0 to " + std::to_string(locks - 1) +
                                                                     " with --locks " + std::to_string(locks);
  const bool digits = !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoll(text) >= locks) {
    throw std::invalid_argument("operation '" + word + "': lock index '" + text + "' is out of range: '@' names a " +
                                "lock by its index (" + range + ", e.g. " + word.substr(0, word.find('@')) + "@0)");
  }
  return static_cast<int>(std::stoll(text));
}

}  // namespace

std::vector<ExplicitOp> parse_explore_ops(const std::string& list, int locks, int64_t hold_ms) {
  const int64_t kMaxMs = kMaxDurationMs;
  std::vector<ExplicitOp> ops;
  int64_t sleep_us = 0;  // sleep:MS words before the next operation
  for (const std::string& word : split(list, ',')) {
    if (word.empty()) throw std::invalid_argument("an empty operation in '" + list + "'");
    if (word.rfind("sleep:", 0) == 0) {
      sleep_us += number(word.substr(6), word, 0, kMaxMs) * 1000;
      continue;
    }
    std::string body = word;
    ExplicitOp op;
    if (const size_t at = body.find('@'); at != std::string::npos) {
      op.lock = lock_index(body.substr(at + 1), word, locks);
      body = body.substr(0, at);
    }
    const std::vector<std::string> parts = split(body, ':');
    const std::string& name = parts[0];
    auto lease = [&](size_t i) { return parts.size() > i ? number(parts[i], word, 1, kMaxMs) : int64_t{-1}; };
    if (name == "lock" && parts.size() <= 2) {
      op.kind = ExplicitOp::Kind::Lock;
      op.lease_ms = lease(1);
    } else if (name == "trylock" && parts.size() >= 2 && parts.size() <= 3) {
      op.kind = ExplicitOp::Kind::TryLock;
      op.wait_ms = number(parts[1], word, 0, kMaxMs);
      op.lease_ms = lease(2);
    } else if (name == "tryonce" && parts.size() <= 2) {
      op.kind = ExplicitOp::Kind::TryOnce;
      op.lease_ms = lease(1);
    } else if (name == "unlock" && parts.size() == 1) {
      op.kind = ExplicitOp::Kind::Unlock;
    } else if (name == "forceunlock" && parts.size() == 1) {
      op.kind = ExplicitOp::Kind::ForceUnlock;
    } else {
      throw std::invalid_argument("unknown operation '" + word +
                                  "' (lock[:LEASE], trylock:WAIT[:LEASE], tryonce[:LEASE], unlock, forceunlock, "
                                  "each with an optional @LOCK)");
    }
    op.delay_us = (ops.empty() ? 0 : hold_ms * 1000) + sleep_us;
    sleep_us = 0;
    ops.push_back(op);
    if (static_cast<int>(ops.size()) > kMaxExploreOps) {
      throw std::invalid_argument("more than " + std::to_string(kMaxExploreOps) + " operations for one client");
    }
  }
  if (sleep_us != 0) throw std::invalid_argument("'" + list + "' ends with a sleep (it must come before an operation)");
  if (ops.empty()) throw std::invalid_argument("no operation in '" + list + "'");
  return ops;
}

namespace {

// explore_plan's plan, its scenario valid.
ExplicitPlan plan_with_ops(const Scenario& scenario, const std::string& ops, int64_t hold_ms, int64_t latency_us,
                           int64_t drain_ms) {
  if (ops.empty()) throw std::invalid_argument("no operations");
  const std::vector<std::string> lists = split(ops, ';');
  if (lists.size() != 1 && static_cast<int>(lists.size()) != scenario.clients) {
    throw std::invalid_argument(std::to_string(lists.size()) + " lists for " + std::to_string(scenario.clients) +
                                " clients (give one for all, or one per client)");
  }
  ExplicitPlan plan;
  plan.scenario = scenario;
  plan.faults = scenario_fault_plan(scenario, scenario.servers);
  plan.faults.actions.clear();
  plan.drain_ms = drain_ms;
  plan.schedule = Schedule{};
  plan.schedule->latency_us = latency_us;
  plan.faults.link = LinkProfile{latency_us, latency_us, 0.0, 0, 0.0};
  for (int c = 0; c < scenario.clients; ++c) {
    const std::string& list = lists.size() == 1 ? lists[0] : lists[static_cast<size_t>(c)];
    const std::vector<std::string> tasks = split(list, '/');
    if (static_cast<int>(tasks.size()) > kMaxExploreTasks) {
      throw std::invalid_argument("more than " + std::to_string(kMaxExploreTasks) + " tasks for one client");
    }
    for (size_t t = 0; t < tasks.size(); ++t) {
      plan.tasks.push_back(ExplicitTask{c, 0, static_cast<int>(t), parse_explore_ops(tasks[t], scenario.locks, hold_ms)});
    }
  }
  return plan;
}

}  // namespace

ExplicitPlan explore_plan(const Scenario& scenario, const std::string& ops, int64_t hold_ms, int64_t latency_us,
                          int64_t drain_ms) {
  validate_scenario(scenario);
  try {
    return plan_with_ops(scenario, ops, hold_ms, latency_us, drain_ms);
  } catch (const ScenarioError&) {
    throw;
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--ops: ") + e.what());
  }
}

}  // namespace locksim
