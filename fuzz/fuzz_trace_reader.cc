// libFuzzer target: the trace reader (traces/trace_reader.h) and the
// scenario in a trace header (sim/scenario.h) on arbitrary bytes. Any input
// must either read cleanly or throw TraceError / ScenarioError: never crash,
// overflow the stack, hang or allocate without bound. What reads cleanly
// must survive an encode/decode round trip unchanged. Every line the fast
// event decoder accepts, decode_event must accept as the same Event.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

#include "sim/scenario.h"
#include "traces/fast_event_decoder.h"
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

void check_fast_decoder_agrees(std::string_view input) {
  locksim::FastEventDecoder fast;
  while (!input.empty()) {
    const size_t end = input.find('\n');
    const std::string_view line = input.substr(0, end);
    locksim::Event quick;
    if (fast.decode(line, &quick)) {
      locksim::Event slow;
      std::string error;
      if (!locksim::decode_event(line, &slow, &error) || !(slow == quick)) std::abort();
    }
    if (end == std::string_view::npos) break;
    input.remove_prefix(end + 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  check_fast_decoder_agrees(std::string_view(reinterpret_cast<const char*>(data), size));
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
