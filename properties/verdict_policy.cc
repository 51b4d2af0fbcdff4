#include "properties/verdict_policy.h"

#include <algorithm>
#include <stdexcept>

namespace locksim {

std::optional<std::string> add_fail_on(VerdictPolicy* policy, const std::string& list) {
  const std::vector<std::string> known = all_properties();
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    const std::string name = list.substr(start, comma - start);
    if (name == "all") {
      policy->fail_on.insert(known.begin(), known.end());
    } else if (std::find(known.begin(), known.end(), name) != known.end()) {
      policy->fail_on.insert(name);
    } else {
      return name;
    }
    start = comma + 1;
  }
  return std::nullopt;
}

void apply_fail_on(VerdictPolicy* policy, const std::vector<std::string>& lists) {
  for (const std::string& list : lists) {
    if (auto bad = add_fail_on(policy, list)) {
      std::string names;
      for (const std::string& p : all_properties()) names += p + ", ";
      throw std::invalid_argument("--fail-on: unknown property '" + *bad + "' (" + names + "all)");
    }
  }
}

void restrict_fail_on(VerdictPolicy* policy, const PropertySelection& checked,
                      const std::vector<std::string>& fail_on_lists) {
  for (const std::string& list : fail_on_lists) {
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = list.find(',', start);
      if (comma == std::string::npos) comma = list.size();
      const std::string name = list.substr(start, comma - start);
      if (name != "all" && !checked.has(name))
        throw std::invalid_argument("--fail-on " + name + ": that property is not checked (--properties, --skip-property)");
      start = comma + 1;
    }
  }
  std::erase_if(policy->fail_on, [&checked](const std::string& p) { return !checked.has(p); });
}

std::vector<Violation> failing_violations(const std::vector<Violation>& all, const VerdictPolicy& policy) {
  std::vector<Violation> out;
  for (const Violation& v : all)
    if (policy.fails(v)) out.push_back(v);
  return out;
}

}  // namespace locksim
