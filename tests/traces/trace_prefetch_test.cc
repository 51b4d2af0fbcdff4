// TracePrefetch hands out exactly the events TraceReader::next gives, in
// order, whatever the batch size; a bad line's error comes after every
// event before it; a consumer that stops early is not kept waiting.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "traces/trace_prefetch.h"
#include "traces/trace_reader.h"

namespace locksim {
namespace {

const std::string kHeader =
    R"({"format":"locksim-trace","version":3,"seed":1,"build":"b","backend":"model","scenario":{}})";

// n events; fair scripts every third one, their line repeated ("lr") every other time.
std::string trace_text(int n) {
  std::string text = kHeader + "\n";
  for (int i = 0; i < n; ++i) {
    std::string line = R"({"id":)" + std::to_string(i) + R"(,"t":)" + std::to_string(1000 * i) +
                       R"(,"k":"script","c":1,"s":0,"o":"owner-)" + std::to_string(i % 5) +
                       R"(","l":"L","sc":"fair_acquire","r":"nil")";
    if (i % 3 == 0) line += (i % 6 == 0) ? R"(,"ln":[["w)" + std::to_string(i) + R"(",12.5]])" : R"(,"lr":1)";
    text += line + "}\n";
  }
  return text;
}

std::vector<Event> read_serially(const std::string& text) {
  std::istringstream in(text);
  TraceReader reader(in, "t.jsonl");
  std::vector<Event> events;
  Event e;
  while (reader.next(e)) events.push_back(e);
  return events;
}

struct Prefetched {
  std::vector<Event> events;
  std::string error;  // the TraceError's text, if one was thrown
  size_t events_before_error = 0;
};

Prefetched read_prefetched(const std::string& text, size_t batch_events, size_t batches) {
  std::istringstream in(text);
  Prefetched out;
  try {
    TracePrefetch prefetch(std::make_unique<TraceReader>(in, "t.jsonl"), batch_events, batches);
    for (auto batch = prefetch.next_batch(); !batch.empty(); batch = prefetch.next_batch())
      out.events.insert(out.events.end(), batch.begin(), batch.end());
    EXPECT_TRUE(prefetch.next_batch().empty());  // the end stays the end
  } catch (const TraceError& e) {
    out.error = e.what();
    out.events_before_error = out.events.size();
  }
  return out;
}

TEST(TracePrefetch, GivesTheReadersEventsInOrderForAnyBatching) {
  const std::string text = trace_text(1000);
  const std::vector<Event> serial = read_serially(text);
  ASSERT_EQ(serial.size(), 1000u);
  for (size_t batch_events : {1u, 7u, 256u, 1000u, 5000u}) {
    for (size_t batches : {1u, 3u}) {
      const Prefetched p = read_prefetched(text, batch_events, batches);
      EXPECT_EQ(p.error, "");
      EXPECT_EQ(p.events, serial) << batch_events << " x " << batches;
    }
  }
}

TEST(TracePrefetch, AnEmptyTraceIsAnEmptyBatch) {
  const Prefetched p = read_prefetched(kHeader + "\n", 16, 2);
  EXPECT_EQ(p.error, "");
  EXPECT_TRUE(p.events.empty());
}

TEST(TracePrefetch, AnErrorComesAfterEveryEventBeforeIt) {
  std::string text = trace_text(100);
  text += "{not json\n";
  text += trace_text(3).substr(kHeader.size() + 1);  // more events the reader never reaches
  std::string serial_error;
  try {
    read_serially(text);
  } catch (const TraceError& e) {
    serial_error = e.what();
  }
  ASSERT_NE(serial_error, "");
  for (size_t batch_events : {1u, 10u, 100u, 64u, 4096u}) {
    const Prefetched p = read_prefetched(text, batch_events, 2);
    EXPECT_EQ(p.error, serial_error) << batch_events;
    EXPECT_EQ(p.events_before_error, 100u) << batch_events;
  }
}

TEST(TracePrefetch, StreamEventsGivesTheSameEventsAndErrorsOnOneThreadOrTwo) {
  std::string text = trace_text(700);
  const std::vector<Event> serial = read_serially(text);
  text += "{\"id\":1000}\n";  // no kind: an error after 700 events
  for (bool second_thread : {false, true}) {
    std::istringstream in(text);
    std::vector<Event> seen;
    std::string error;
    try {
      stream_events(
          std::make_unique<TraceReader>(in, "t.jsonl"),
          [&seen](std::span<const Event> batch) { seen.insert(seen.end(), batch.begin(), batch.end()); },
          second_thread);
    } catch (const TraceError& e) {
      error = e.what();
    }
    EXPECT_EQ(seen, serial) << second_thread;
    EXPECT_EQ(error, "t.jsonl:702: event has no string field \"k\" (kind)") << second_thread;
  }
  std::istringstream in(trace_text(50));
  EXPECT_EQ(stream_events(std::make_unique<TraceReader>(in, "t.jsonl"), [](std::span<const Event>) {}, true), 50u);
}

TEST(TracePrefetch, AConsumerMayStopEarly) {
  const std::string text = trace_text(5000);
  std::istringstream in(text);
  {
    TracePrefetch prefetch(std::make_unique<TraceReader>(in, "t.jsonl"), 16, 2);
    EXPECT_EQ(prefetch.next_batch().size(), 16u);
  }  // the reader thread is stopped and joined here, with most of the trace unread
  SUCCEED();
}

}  // namespace
}  // namespace locksim
