// FastEventDecoder: takes every line the writer produces and gives exactly
// decode_event's Event; declines (leaving the verdict and the error text to
// decode_event) every line outside the writer's plain shape.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "traces/fast_event_decoder.h"
#include "traces/trace_format.h"
#include "traces/event_detail.h"

namespace locksim {
namespace {

std::string ascii(std::string s) {
  for (char& c : s) c = static_cast<char>(0x20 + (static_cast<unsigned char>(c) % 0x5f));  // printable
  return s;
}

// An Event with no field at its default and longer vectors than most lines.
Event dirty_event() {
  Event d;
  d.id = 99;
  d.true_us = 98;
  d.kind = EventKind::Fault;
  d.client = 7;
  d.server = 6;
  d.owner.assign("a-long-owner-id-past-the-small-string-buffer:1");
  d.lock.assign("some-lock-name-long-enough-to-allocate");
  d.op = Op::Partition;
  d.op_id = 5;
  d.local_ms = 4;
  d.wait_ms = 3;
  d.lease_ms = 2;
  d.value = 1;
  d.detail = "detail";
  d.script = "rlock_release";
  d.request_id = "request";
  d.reply = EventReply::other("reply");
  d.server_ms = 11;
  d.holders_after = {"h1", "h2", "h3", "h4"};
  d.published = {"p1", "p2", "p3"};
  d.line_known = true;
  for (int i = 0; i < 5; ++i) d.line_after.push_back(LineEntry{"waiter-with-a-long-owner-id:" + std::to_string(i), 7.5});
  d.duration_ms = 12;
  d.target = 13;
  return d;
}

RC_GTEST_PROP(FastEventDecoderProperty, AgreesWithDecodeEventOnEveryWrittenLine,
              (uint64_t id, int64_t t, int64_t lms, int64_t v, int64_t sms, int client, int server, int target,
               uint64_t op_id, std::string owner, std::string lock, std::string detail, std::string reply,
               std::vector<std::string> holders, std::vector<std::pair<std::string, int64_t>> line,
               bool line_known, bool inf_deadline, bool fractional)) {
  Event e;
  e.id = id;
  // The writer never writes a time before 0 or an index below -1 ("none",
  // left out); the decoders refuse both. Fold the generated values into range.
  const auto index = [](int x) { return x < -1 ? ~x : x; };
  e.true_us = t < 0 ? ~t : t;
  e.kind = *rc::gen::element(EventKind::Invoke, EventKind::Ok, EventKind::Script, EventKind::Fault,
                             EventKind::Deliver, EventKind::Verdict);
  e.client = index(client);
  e.server = index(server);
  e.target = index(target);
  e.op_id = op_id;
  e.local_ms = lms;
  e.value = v;
  e.server_ms = sms;
  e.wait_ms = *rc::gen::inRange<int64_t>(-1, 100'000);
  e.lease_ms = *rc::gen::inRange<int64_t>(-1, 100'000);
  e.duration_ms = *rc::gen::inRange<int64_t>(-5'000, 5'000);
  e.owner.assign(ascii(owner));
  e.lock.assign(ascii(lock));
  e.op = Op::Lock;
  read_detail_text(ascii(detail), &e);  // its facts, as a reader reads the text
  e.reply = EventReply::parse(ascii(reply));
  e.script = "fair_acquire";
  e.request_id = "r1";
  for (auto& h : holders) e.holders_after.push_back(ascii(h));
  e.published = {"lsim:ch:L0", ascii(owner)};
  e.line_known = line_known;
  if (line_known) {
    for (size_t i = 0; i < line.size(); ++i) {
      LineEntry entry;
      entry.owner = ascii(line[i].first);
      if (i % 3 == 1) entry.deadline_ms = static_cast<double>(line[i].second) + (fractional ? 0.25 : 0.0);
      if (i % 3 == 2) entry.deadline_ms = inf_deadline ? INFINITY : -INFINITY;
      e.line_after.push_back(entry);
    }
  }
  const std::string text = encode_event(e);
  Event slow;
  std::string error;
  RC_ASSERT(decode_event(text, &slow, &error));
  FastEventDecoder fast;
  Event quick;
  RC_ASSERT(fast.decode(text, &quick));
  RC_ASSERT(quick == slow);
  RC_ASSERT(quick == e);
  // Decoding in place over an Event that holds another event's every field
  // (as TraceReader::next does) gives the same Event.
  Event reused = dirty_event();
  RC_ASSERT(fast.decode(text, &reused));
  RC_ASSERT(reused == slow);
}

// Lines outside the writer's shape: the fast path declines each; whether
// the line is an error, and its wording, stay decode_event's.
TEST(FastEventDecoder, DeclinesEverythingOutsideTheWritersShape) {
  const char* const lines[] = {
      R"({"id":1,"t":2,"k":"ok","id":3})",               // duplicate key (decode_event: last wins)
      R"({"id":1,"t":2.5,"k":"ok"})",                    // float where an integer goes
      R"({"id":1,"t":1e400,"k":"ok"})",                  // out of range for a double
      R"({"id":-1,"t":2,"k":"ok"})",                     // negative id
      R"({"id":1,"t":9223372036854775808,"k":"ok"})",    // beyond int64
      R"({"id":1,"t":2,"k":"ok","c":4294967296})",       // beyond int
      R"({"id":1,"t":2,"k":"ok","zz":1})",               // unknown key
      R"({"id":1,"t":2,"k":"bogus"})",                   // unknown kind
      R"({"id":1,"t":2})",                               // no kind
      R"({"id":1,"t":2,"k":"ok","o":{"a":1}})",          // nesting where a string goes
      R"({"id":1,"t":2,"k":"ok","o":"\u00e9"})",         // \u escapes: left to decode_event
      R"({"id":1,"t":2,"k":"ok","h":["a",1]})",          // array of strings with a number
      R"({"id":1,"t":2,"k":"script","ln":[["a",1,2]]})",  // a line entry of three
      R"({"id":1,"t":2,"k":"script","ln":[["a","soon"]]})",
      R"({"id":1,"t":2,"k":"ok"} {})",                   // two values
      R"({"id":1,"t":2,"k":"ok")",                       // cut short
      R"([1,2])",
      "",
  };
  FastEventDecoder fast;
  for (const char* line : lines) {
    Event e;
    EXPECT_FALSE(fast.decode(line, &e)) << line;
  }
  // decode_event still words the errors the user sees.
  Event e;
  std::string error;
  EXPECT_FALSE(decode_event(R"({"id":1,"t":2.5,"k":"ok"})", &e, &error));
  EXPECT_EQ(error, "field \"t\" must be an integer");
}

// JSON's -0 where a non-negative integer goes: both decoders read it as 0
// (the fuzz target fuzz_trace_reader found decode_event refusing a line
// the fast decoder took); -1 both refuse.
TEST(FastEventDecoder, NegativeZeroIsZeroToBothDecoders) {
  const std::string line = R"({"id":-0,"t":5,"k":"invoke","c":3,"l":"L","op":"lock","opid":-0,"lease":9})";
  FastEventDecoder fast;
  Event quick;
  ASSERT_TRUE(fast.decode(line, &quick));
  Event slow;
  std::string error;
  ASSERT_TRUE(decode_event(line, &slow, &error)) << error;
  EXPECT_EQ(slow, quick);
  EXPECT_EQ(slow.id, 0u);
  EXPECT_EQ(slow.op_id, 0u);
  const std::string negative = R"({"id":1,"t":5,"k":"invoke","c":3,"l":"L","op":"lock","opid":-1})";
  EXPECT_FALSE(fast.decode(negative, &quick));
  EXPECT_FALSE(decode_event(negative, &slow, &error));
  EXPECT_EQ(error, "field \"opid\" must be a non-negative integer");
}

TEST(FastEventDecoder, DecodingOverAFullEventKeepsNothingOfIt) {
  FastEventDecoder fast;
  for (const char* line : {R"({"id":2,"t":3,"k":"ok"})", R"({"id":3,"t":4,"k":"script","h":["A:1"],"ln":[]})",
                           R"({"id":4,"t":5,"k":"script","ln":[["B:1"],["C:1",2.5]]})"}) {
    Event reused = dirty_event();
    ASSERT_TRUE(fast.decode(line, &reused)) << line;
    Event expected;
    std::string error;
    ASSERT_TRUE(decode_event(line, &expected, &error)) << error;
    EXPECT_EQ(reused, expected) << line;
  }
}

TEST(FastEventDecoder, ReusedAcrossLinesKeepsNothingFromTheLastOne) {
  FastEventDecoder fast;
  Event first;
  ASSERT_TRUE(fast.decode(R"({"id":1,"t":2,"k":"script","o":"A:1","h":["A:1"],"ln":[["B:1",5]]})", &first));
  Event second;
  ASSERT_TRUE(fast.decode(R"({"id":2,"t":3,"k":"ok"})", &second));
  Event expected;
  expected.id = 2;
  expected.true_us = 3;
  expected.kind = EventKind::Ok;
  EXPECT_EQ(second, expected);
  EXPECT_EQ(first.owner, "A:1");
  ASSERT_EQ(first.line_after.size(), 1u);
  EXPECT_EQ(first.line_after[0].deadline_ms, 5.0);
}

// One Event decoded over and over, lines long and short, absent and
// repeated, as TraceReader does: each decoding is decode_event's, whatever
// line storage the decoder kept from earlier events.
TEST(FastEventDecoder, LineStorageKeptAcrossEventsNeverLeaks) {
  const std::vector<std::string> lines = {
      R"({"id":1,"t":1,"k":"script","l":"L","ln":[["A:1",5],["B:1",6],["C:1",7]]})",
      R"({"id":2,"t":2,"k":"deliver","p":["ch m"]})",
      R"({"id":3,"t":3,"k":"script","l":"L","ln":[["D:1"]]})",
      R"({"id":4,"t":4,"k":"ok","o":"A:1"})",
      R"({"id":5,"t":5,"k":"script","l":"L","ln":[]})",
      R"({"id":6,"t":6,"k":"script","l":"L","ln":[["E:1",1],["F:1",2],["G:1",3],["H:1",4]]})",
      R"({"id":7,"t":7,"k":"invoke"})",
      R"({"id":8,"t":8,"k":"script","l":"L","lr":1})",
      R"({"id":9,"t":9,"k":"script","l":"L","ln":[["I:1",9]]})",
  };
  FastEventDecoder fast;
  Event reused;
  for (const std::string& line : lines) {
    bool repeated = false;
    ASSERT_TRUE(fast.decode(line, &reused, &repeated)) << line;
    Event expected;
    std::string error;
    bool expected_repeated = false;
    ASSERT_TRUE(decode_event(line, &expected, &error, &expected_repeated)) << error;
    ASSERT_EQ(repeated, expected_repeated) << line;
    if (repeated) {
      // Only the line's entries are the caller's to overwrite.
      reused.line_after.clear();
      expected.line_after.clear();
    }
    EXPECT_EQ(reused, expected) << line;
  }
}

// The same over several Event slots reused in any order (TracePrefetch's
// batches), with lines of any length: the line storage the decoder keeps
// moves between slots and never shows through.
RC_GTEST_PROP(FastEventDecoder, LineStorageMovedBetweenSlotsNeverLeaks, ()) {
  const auto steps = *rc::gen::container<std::vector<std::pair<int, int>>>(
      rc::gen::pair(rc::gen::inRange(0, 3), rc::gen::inRange(-2, 7)));
  FastEventDecoder fast;
  std::vector<Event> slots(3);
  uint64_t id = 0;
  for (const auto& [slot, kind] : steps) {
    ++id;
    std::string line = R"({"id":)" + std::to_string(id) + R"(,"t":)" + std::to_string(id);
    if (kind == -2) {
      line += R"(,"k":"ok","o":"A:1"})";
    } else if (kind == -1) {
      line += R"(,"k":"script","l":"L","h":["A:1"]})";
    } else {
      line += R"(,"k":"script","l":"L","ln":[)";
      for (int i = 0; i < kind; ++i)
        line += (i > 0 ? "," : "") + std::string(R"([")") + std::to_string(id) + "-" + std::to_string(i) + R"(:1",)" +
                std::to_string(i) + "]";
      line += "]}";
    }
    RC_ASSERT(fast.decode(line, &slots[slot]));
    Event expected;
    std::string error;
    RC_ASSERT(decode_event(line, &expected, &error));
    RC_ASSERT(slots[slot] == expected);
  }
}

}  // namespace
}  // namespace locksim
