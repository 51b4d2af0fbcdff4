#include "properties/checker.h"

#include <algorithm>

namespace locksim {

bool holders_contain(const Event& e, const std::string& owner) {
  return std::find(e.holders_after.begin(), e.holders_after.end(), owner) != e.holders_after.end();
}

}  // namespace locksim
