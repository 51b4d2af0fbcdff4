// format_score: the canonical text of a sorted-set score (a double), used in
// KeyState renderings by both the model and the live backend (which parses
// Redis's score text back to a double first). Deterministic and lossless:
//  - an integral value with |v| < 2^53 prints as a plain integer ("1700000000000", "-5", "0");
//  - +/-infinity prints as "inf" / "-inf" (Redis's own spelling);
//  - anything else prints in the shortest "%.<p>g" form (p = 1..17) that
//    parses back to the same double.
// parse_score is the inverse for every string format_score produces (and for
// Redis's own score replies): returns false on anything else.
#pragma once

#include <string>
#include <string_view>

namespace locksim {

std::string format_score(double score);
bool parse_score(std::string_view text, double* out);

}  // namespace locksim
