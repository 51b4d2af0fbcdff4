// VerdictPolicy: which violations make a campaign or `locksim check` fail.
//  - fail_on: the properties that fail (default: every property that is not
//    advisory; --fail-on adds more, e.g. busy_poll).
//  - unexplained_only: ignore explained violations: those whose cause re-runs
//    confirmed (properties/cause_search.h: without a fault the property
//    permits, such as a pause longer than the lease, a skewed clock or a lost
//    reply, the same plan no longer violates), so a campaign goes on to the
//    violations no fault explains: real bugs. The checker's sentence
//    (blamed_fault) alone explains nothing.
// Parsed once at the edge (CLI): property names are checked there.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "properties/property_selection.h"
#include "properties/violation.h"

namespace locksim {

struct VerdictPolicy {
  std::set<std::string> fail_on = default_fail_on();
  bool unexplained_only = false;
  // A campaign in which no operation ever succeeded checked nothing: it
  // fails unless this is false (--allow-vacuous).
  bool fail_vacuous = true;

  bool fails(const Violation& v) const {
    if (fail_on.count(v.property) == 0) return false;
    return !(unexplained_only && v.explained());
  }
  static std::set<std::string> default_fail_on() {
    std::set<std::string> out;
    for (const std::string& p : all_properties())
      if (!is_advisory_property(p)) out.insert(p);
    return out;
  }
};

// Adds the comma-separated property names in `list` ("all" = every property)
// to policy->fail_on; returns the first unknown name, if any.
std::optional<std::string> add_fail_on(VerdictPolicy* policy, const std::string& list);

// Adds every --fail-on list to policy->fail_on; throws std::invalid_argument
// "--fail-on: unknown property 'x' (exclusive_ownership, ..., all)".
void apply_fail_on(VerdictPolicy* policy, const std::vector<std::string>& lists);

// Drops from policy->fail_on the properties `checked` leaves out (they are
// not checked, so they fail nothing); throws std::invalid_argument when a
// --fail-on list names one of them ("all" names the checked ones).
void restrict_fail_on(VerdictPolicy* policy, const PropertySelection& checked,
                      const std::vector<std::string>& fail_on_lists);

// The violations `policy` fails on, in order.
std::vector<Violation> failing_violations(const std::vector<Violation>& all, const VerdictPolicy& policy);

}  // namespace locksim
