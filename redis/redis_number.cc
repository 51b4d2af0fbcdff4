#include "redis/redis_number.h"

#include <cctype>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace locksim {

bool redis_string_to_int64(std::string_view text, int64_t* out) {
  const size_t n = text.size();
  if (n == 0 || n >= 21) return false;
  if (n == 1 && text[0] == '0') {
    *out = 0;
    return true;
  }
  size_t i = 0;
  const bool negative = text[0] == '-';
  if (negative && ++i == n) return false;
  if (text[i] < '1' || text[i] > '9') return false;
  uint64_t v = static_cast<uint64_t>(text[i++] - '0');
  for (; i < n; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (v > std::numeric_limits<uint64_t>::max() / 10) return false;
    v *= 10;
    if (v > std::numeric_limits<uint64_t>::max() - digit) return false;
    v += digit;
  }
  if (negative) {
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1) return false;
    *out = v == static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1
               ? std::numeric_limits<int64_t>::min()
               : -static_cast<int64_t>(v);
    return true;
  }
  if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

bool redis_string_to_double(std::string_view text, double* out) {
  if (text.empty() || text.size() > 5000) return false;
  if (std::isspace(static_cast<unsigned char>(text[0]))) return false;
  const std::string s(text);  // strtod needs a terminated string
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (static_cast<size_t>(end - s.c_str()) != s.size()) return false;
  if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || std::fpclassify(v) == FP_ZERO)) return false;
  if (std::isnan(v)) return false;
  *out = v;
  return true;
}

size_t redis_double_text(double value, char* buf) {
  auto copy = [buf](const char* text) {
    const size_t n = std::strlen(text);
    std::memcpy(buf, text, n);
    return n;
  };
  if (std::isnan(value)) return copy("nan");
  if (std::isinf(value)) return copy(value < 0 ? "-inf" : "inf");
  if (value == 0) return copy(std::signbit(value) ? "-0" : "0");
  constexpr double kMin = -4503599627370495.0;  // -(2^52 - 1)
  constexpr double kMax = 4503599627370496.0;   // 2^52
  if (value > kMin && value < kMax && value == static_cast<double>(static_cast<int64_t>(value))) {
    const auto [end, ec] = std::to_chars(buf, buf + kDoubleTextSize, static_cast<int64_t>(value));
    return static_cast<size_t>(end - buf);
  }
  const int n = std::snprintf(buf, kDoubleTextSize, "%.17g", value);
  return n < 0 ? 0 : static_cast<size_t>(n);
}

std::string redis_double_text(double value) {
  char buf[kDoubleTextSize];
  return std::string(buf, redis_double_text(value, buf));
}

size_t lua_number_arg_text(double value, char* buf, size_t size) {
  // An integral value below 1e15 prints its digits under %.17g: the same
  // text without printf (the lock scripts pass 1, -1, 0 and millisecond times).
  if (std::fabs(value) < 1e15 && value == std::trunc(value) && !(value == 0 && std::signbit(value))) {
    const auto [end, ec] = std::to_chars(buf, buf + size, static_cast<int64_t>(value));
    if (ec == std::errc()) return static_cast<size_t>(end - buf);
  }
  const int n = std::snprintf(buf, size, "%.17g", value);
  return n < 0 ? 0 : static_cast<size_t>(n);
}

int64_t lua_number_to_reply_int(double value) {
  // [-2^63, 2^63) converts; everything else (and NaN) is what cvttsd2si gives.
  if (!(value >= -9223372036854775808.0 && value < 9223372036854775808.0)) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(value);
}

}  // namespace locksim
