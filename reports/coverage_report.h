// Coverage report: a campaign's coverage (summary.json's "coverage",
// properties/coverage.h) for people, as text (`locksim coverage DIR`) and
// as the report.html section. Both show, per category, how many of the
// universe's items were covered; every item never covered, in words; the
// rarest covered ones (fewest seeds); the distinct abstract states; and the
// curve of items and states covered over the seeds. Built from the summary
// alone, so a merged campaign reads like an unsharded one.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace locksim {

// The text view. `all`: every covered item too. A summary without
// coverage gives one line saying so.
std::string coverage_text(const nlohmann::json& summary, bool all = false);

// The text view's content as JSON: {"seeds","categories":{c:{"covered","universe","outside"}},
// "never_covered":[{"item","words"}],"rarest":[{"item","runs","first"}],"states","curve":[{"seeds","items","states"}]}
nlohmann::json coverage_view_json(const nlohmann::json& summary);

// The report.html section (an <h2> and what follows); "" without coverage.
std::string coverage_html(const nlohmann::json& summary);

}  // namespace locksim
