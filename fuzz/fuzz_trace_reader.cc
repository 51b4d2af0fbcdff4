// libFuzzer target: the trace reader (traces/trace_reader.h) and the
// scenario in a trace header (sim/scenario.h) on arbitrary bytes. Any input
// must either read cleanly or throw TraceError / ScenarioError: never crash,
// overflow the stack, hang or allocate without bound. What reads cleanly
// must survive an encode/decode round trip unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "sim/scenario.h"
#include "traces/trace_format.h"
#include "traces/trace_reader.h"

namespace {

void check_round_trip(const locksim::Event& e) {
  locksim::Event back;
  std::string error;
  if (!locksim::decode_event(locksim::encode_event(e), &back, &error) || !(back == e)) {
    std::abort();  // an event we read cannot be written back as itself
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    locksim::TraceReader reader(in, "fuzz.jsonl");
    try {
      locksim::scenario_from_json(reader.header().scenario);
    } catch (const locksim::ScenarioError&) {
    }
    locksim::TraceHeader back;
    std::string error;
    if (!locksim::decode_header(locksim::encode_header(reader.header()), &back, &error)) std::abort();
    locksim::Event e;
    while (reader.next(e)) check_round_trip(e);
  } catch (const locksim::TraceError&) {
  }
  return 0;
}
