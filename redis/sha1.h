// SHA-1 (FIPS 180-4) of a byte string, as 40 lower-case hex digits: the name
// Redis gives a script (EVALSHA, "script: <sha>" in error replies) and what
// redis.sha1hex() answers.
#pragma once

#include <string>
#include <string_view>

namespace locksim {

std::string sha1_hex(std::string_view data);

}  // namespace locksim
