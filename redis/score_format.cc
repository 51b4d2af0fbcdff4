#include "redis/score_format.h"

#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace locksim {

namespace {
constexpr double kTwoPow53 = 9007199254740992.0;
}  // namespace

std::string format_score(double score) {
  assert(!std::isnan(score));  // Redis never stores NaN scores.
  if (std::isinf(score)) return score > 0 ? "inf" : "-inf";
  if (score == std::trunc(score) && std::fabs(score) < kTwoPow53) {
    if (score == 0) return "0";  // also -0.0: Redis prints it as 0 too.
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(score));
    return buf;
  }
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, score);
    if (std::strtod(buf, nullptr) == score) return buf;
  }
  return buf;  // %.17g always round-trips; not reached.
}

bool parse_score(std::string_view text, double* out) {
  if (text.empty() || text.size() > 64) return false;
  const std::string s(text);
  if (s == "inf" || s == "+inf") { *out = INFINITY; return true; }
  if (s == "-inf") { *out = -INFINITY; return true; }
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || std::isnan(v)) return false;
  *out = v;
  return true;
}

}  // namespace locksim
