// The faster multi-lock's group hash (lock-semantics.md section 4b), by its
// field names. One hash per group holds, for each value (one lock of the
// group) an owner has taken:
//   "<value>"                       -> the owner
//   "<value>:<owner>:expire_time"   -> the owner's deadline, in the caller's clock
//   "<value>:<owner>:lock_count"    -> the owner's re-entries
// Values are the group's lock names as the client passes them; ours are the
// value indexes "0", "1", ... A value never contains ':' or ',' (the
// `values` parameter is comma-separated); owners may contain ':'.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace locksim {

// "0,2" -> {"0", "2"}; "" -> {}. Empty items are kept as empty values (a
// script given them fails the same way on every backend).
std::vector<std::string> split_values(std::string_view values);
// The `values` parameter of value indexes: {0, 2} -> "0,2".
std::string values_text(const std::vector<int>& values);

std::string value_expire_field(std::string_view value, std::string_view owner);
std::string value_count_field(std::string_view value, std::string_view owner);

// The owners that have a deadline or a count for `value` among the hash's
// `fields` (field names only), sorted, without repeats.
std::vector<std::string> value_owners(const std::vector<std::string>& fields, std::string_view value);

}  // namespace locksim
