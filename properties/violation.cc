#include "properties/violation.h"

#include <algorithm>
#include <cstdio>

#include "traces/byte_text.h"

namespace locksim {

std::vector<std::string> all_properties() {
  return {property::kExclusiveOwnership, property::kMutualExclusion, property::kFifoFairness,
          property::kGhostWaiter,        property::kWatchdogExpiry,  property::kLiveness,
          property::kReentrancy,         property::kBusyPoll,        property::kScriptError};
}

bool is_advisory_property(std::string_view name) { return name == property::kBusyPoll; }

void tally_violation(ResultTally* tally, const Violation& v, bool advisory) {
  if (advisory) {
    tally->advisory++;
  } else if (v.explained()) {
    tally->explained++;
    tally->explained_by_kind[v.cause.kind()]++;
  } else {
    tally->unexplained++;
  }
}

const std::string& Violation::stated_blame() const {
  static const std::string kNone;
  switch (cause.status) {
    case CauseStatus::NotSearched:
    case CauseStatus::NoScope:
    case CauseStatus::Unconfirmed:
      return blamed_fault;
    case CauseStatus::Persists:
      return kNone;
    case CauseStatus::Confirmed:
      break;
  }
  if (facts.blames_clock_setup) {  // a clock, which no event names
    for (const CauseFault& f : cause.faults)
      if (f.kind == FaultKind::ClientClockSkew || f.kind == FaultKind::ServerClockDrift) return blamed_fault;
    return kNone;
  }
  const std::vector<uint64_t>& named = facts.blamed_fault_ids;
  for (const CauseFault& f : cause.faults)
    if (f.event_id != 0 && std::find(named.begin(), named.end(), f.event_id) != named.end()) return blamed_fault;
  return kNone;
}

void Violation::set_blame(Blame b) {
  blamed_fault = std::move(b.text);
  facts.blamed_fault_ids = b.event_ids;
  for (uint64_t id : b.unwritten_fault_ids)
    if (std::find(b.event_ids.begin(), b.event_ids.end(), id) == b.event_ids.end()) facts.blamed_fault_ids.push_back(id);
  facts.blamed_ids = std::move(b.event_ids);
}

nlohmann::json violation_to_json(const Violation& v) {
  nlohmann::json j = {{"property", v.property},
                      {"lock", v.lock.name()},
                      {"message", visible_text(v.message)},
                      {"event_ids", v.event_ids},
                      {"true_us", v.true_us},
                      {"owners", v.owners},
                      {"blamed_fault", visible_text(v.stated_blame())},
                      {"detected_at_event", v.detected_at_event},
                      {"explained", v.explained()},
                      {"cause", cause_to_json(v.cause)},
                      {"hypothesis", visible_text(v.blamed_fault)}};
  if (v.facts.contract_break) j["contract_break"] = true;  // only when true: other reports stay as they were
  return j;
}

std::string format_ms(int64_t ms) {
  const bool negative = ms < 0;
  uint64_t magnitude = negative ? static_cast<uint64_t>(-(ms + 1)) + 1 : static_cast<uint64_t>(ms);
  std::string digits = std::to_string(magnitude);
  std::string grouped;
  const size_t n = digits.size();
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) grouped += ' ';
    grouped += digits[i];
  }
  return (negative ? "-" : "") + grouped + " ms";
}

std::string Violation::to_string() const {
  std::string out = property;
  if (!lock.empty()) out += " [" + lock.name() + "]";
  out += ": " + message;
  if (!event_ids.empty()) {
    out += " (events";
    for (size_t i = 0; i < event_ids.size(); ++i) {
      out += (i == 0 ? " #" : ", #") + std::to_string(event_ids[i]);
      if (i < true_us.size()) {
        char buf[48];
        std::snprintf(buf, sizeof buf, " @%.3fs", static_cast<double>(true_us[i]) / 1e6);
        out += buf;
      }
    }
    out += ")";
  }
  if (const std::string& blame = stated_blame(); !blame.empty()) out += "; blamed: " + blame;
  if (cause.status != CauseStatus::NotSearched || !cause.note.empty()) out += std::string(kCauseMark) + cause.text();
  return visible_text(out);  // a reply's bytes never reach a console or report raw
}

}  // namespace locksim
