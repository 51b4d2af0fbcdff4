#include "tools/cli/violation_choice.h"

#include <algorithm>

#include "tools/cli/commands.h"

namespace locksim::cli {

namespace {

std::string property_list() {
  std::string list;
  for (const std::string& n : all_properties()) list += (list.empty() ? "" : ", ") + n;
  return list;
}

bool known_property(const std::string& name) {
  const std::vector<std::string> names = all_properties();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

CLI::Validator property_name() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.empty()) return "expected a property's name, got '' (one of: " + property_list() + ")";
        if (!known_property(text)) return "unknown property '" + text + "' (one of: " + property_list() + ")";
        return "";
      },
      "PROPERTY");
}

ViolationChoice validate_violation_choice(const std::string& property, int64_t nth) {
  if (!property.empty() && !known_property(property)) {
    throw UsageError("--property: unknown property '" + property + "' (one of: " + property_list() + ")");
  }
  if (nth < 0) throw UsageError("--violation: expected N >= 1, got " + std::to_string(nth));
  return ViolationChoice{property, nth};
}

std::vector<Violation> of_interest(const std::vector<Violation>& all, const ViolationChoice& choice) {
  std::vector<Violation> out;
  for (const Violation& v : all) {
    const bool wanted = choice.property.empty() ? !is_advisory_property(v.property) : v.property == choice.property;
    if (wanted) out.push_back(v);
  }
  return out;
}

std::string choice_text(const ViolationChoice& choice) {
  std::string out = "--violation " + std::to_string(std::max<int64_t>(1, choice.nth));
  if (!choice.property.empty()) out += " --property " + choice.property;
  return out;
}

std::string ordinal_text(const ViolationChoice& choice) {
  return "violation " + std::to_string(std::max<int64_t>(1, choice.nth)) +
         (choice.property.empty() ? "" : " of " + choice.property);
}

Violation chosen(const std::vector<Violation>& all, const ViolationChoice& choice, const std::string& trace) {
  const std::vector<Violation> wanted = of_interest(all, choice);
  const uint64_t n = static_cast<uint64_t>(std::max<int64_t>(1, choice.nth));
  const std::string what = choice.property.empty() ? "violation" : choice.property + " violation";
  if (wanted.empty()) {
    std::string found;
    for (const Violation& v : all)
      if (found.find(v.property) == std::string::npos) found += (found.empty() ? "" : ", ") + v.property;
    throw UsageError(trace + ": the checkers find no " + what + " (" + choice_text(choice) + ")" +
                     (found.empty() ? "" : "; they find: " + found));
  }
  if (n > wanted.size()) {
    throw UsageError(trace + ": " + choice_text(choice) + " but the checkers find only " +
                     std::to_string(wanted.size()) + " " + what + "(s)");
  }
  return wanted[n - 1];
}

}  // namespace locksim::cli
