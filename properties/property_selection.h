// PropertySelection: which properties the checkers check (--properties
// P,... and --skip-property P, parsed once at the command line into this
// type). Default: every property. A reviewer narrows it to reach the
// consequence of a violation that would otherwise mask it (liveness behind
// a fifo violation: --skip-property fifo_fairness); an unselected checker
// does not run at all, and its property fails nothing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace locksim {

class PropertySelection {
 public:
  // Every property.
  PropertySelection();

  // The --properties lists (each comma-separated; "all" names every
  // property; none given: every property) minus the --skip-property lists.
  // Throws std::invalid_argument "--properties: unknown property 'x'
  // (exclusive_ownership, ..., all)" (or --skip-property), and when nothing
  // is left to check.
  static PropertySelection parse(const std::vector<std::string>& only, const std::vector<std::string>& skip);

  bool has(std::string_view property) const;
  bool is_all() const;
  // The selected properties, in checker order.
  std::vector<std::string> names() const;
  // "" for every property, else " --properties a,b" or " --skip-property
  // c", whichever is shorter (for a command line).
  std::string flag() const;
  bool operator==(const PropertySelection&) const = default;

 private:
  uint32_t mask_ = 0;  // bit i: all_properties()[i]
};

}  // namespace locksim
