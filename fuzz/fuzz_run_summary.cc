// libFuzzer target: a shard's summary.json as `locksim merge` and `locksim
// report` read it (reports/run_summary.h, reports/summary_merge.h) on
// arbitrary bytes. Any input must either be refused (a parse error, a
// JsonRefused, a std::runtime_error from the check, a MergeError) or pass
// the check; never crash, overflow the stack or hang. What passes the check
// names only files inside failures/ or timelines/ (never absolute, never
// ".."), and merging it alone (a campaign of one shard) gives a summary that
// passes the check too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "reports/run_summary.h"
#include "reports/summary_check.h"
#include "reports/summary_merge.h"
#include "traces/bounded_json.h"

namespace {

bool safe_name(const std::string& name) {
  if (name.rfind("failures/", 0) != 0 && name.rfind("timelines/", 0) != 0) return false;
  if (name.find("..") != std::string::npos) return false;
  return name.find('/', name.find('/') + 1) == std::string::npos;  // exactly one directory level
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nlohmann::json summary;
  try {
    summary = locksim::parse_bounded_json(std::string_view(reinterpret_cast<const char*>(data), size));
    locksim::check_summary_json(summary, "fuzz/summary.json");
  } catch (const std::exception&) {
    return 0;  // refused: fine
  }
  for (const std::string& name : locksim::summary_files(summary))
    if (!safe_name(name)) std::abort();  // a checked summary names a file outside
  nlohmann::json merged;
  try {
    merged = locksim::merge_summaries({{"fuzz", summary}});
  } catch (const locksim::MergeError&) {
    return 0;  // e.g. missing shards
  }
  try {
    locksim::check_summary_json(merged, "fuzz/merged.json");
  } catch (const std::exception&) {
    std::abort();  // merge wrote what it would refuse to read
  }
  return 0;
}
