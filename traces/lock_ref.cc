#include "traces/lock_ref.h"

namespace locksim {

LockRef LockRef::member_of(std::string_view group, int index) {
  std::string name(group);
  name += '@';
  name += std::to_string(index);
  return LockRef(name);
}

void LockRef::assign(std::string_view name) {
  name_.assign(name.data(), name.size());
  const size_t at = name_.rfind('@');
  group_size_ = at == std::string::npos ? kNoGroup : static_cast<uint32_t>(at);
}

}  // namespace locksim
