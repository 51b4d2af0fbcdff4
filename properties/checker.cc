#include "properties/checker.h"

#include <algorithm>

namespace locksim {

bool names_contain(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool holders_contain(const Event& e, const std::string& owner) { return names_contain(e.holders_after, owner); }

}  // namespace locksim
