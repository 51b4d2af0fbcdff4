// Numbers as Redis 7.0 reads and writes them, byte for byte:
//  - redis_string_to_int64: Redis's string2ll. A plain decimal integer that
//    fits int64: an optional '-', no '+', no spaces, no leading zeros ("0"
//    is fine, "-0" and "007" are not).
//  - redis_string_to_double: Redis's getDoubleFromObject on a string: strtod
//    of the whole text, not empty, no leading space, no NaN, no overflow
//    (nor an underflow to zero); "inf", "-inf" and "0x1p4" are accepted.
//  - redis_double_text: Redis 7.0's d2string, the text of ZSCORE, ZINCRBY
//    and ZRANGE WITHSCORES: "inf" / "-inf", "0" (or "-0"), a plain integer
//    when |v| < 2^52 and integral, else "%.17g".
//  - lua_number_arg_text: how redis.call passes a Lua number: "%.17g".
//  - lua_number_to_reply_int: a Lua number returned by a script as an
//    integer reply: truncated toward zero; NaN and anything outside int64
//    give INT64_MIN, as the x86-64 conversion Redis does gives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace locksim {

bool redis_string_to_int64(std::string_view text, int64_t* out);
bool redis_string_to_double(std::string_view text, double* out);
std::string redis_double_text(double value);
// The same into buf (at least kDoubleTextSize bytes), without allocating;
// returns the length.
inline constexpr size_t kDoubleTextSize = 40;
size_t redis_double_text(double value, char* buf);
// "%.17g" of `value` into buf (at least 32 bytes); returns the length.
size_t lua_number_arg_text(double value, char* buf, size_t size);
int64_t lua_number_to_reply_int(double value);

}  // namespace locksim
