// Trace format v1: encoding, round trips, determinism, and the error messages
// a user sees for a wrong or damaged file.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "traces/fast_event_decoder.h"
#include "traces/trace_format.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"
#include "traces/event_detail.h"

namespace locksim {
namespace {

TraceHeader sample_header() {
  TraceHeader h;
  h.seed = 18446744073709551615ull;
  h.build = "0.1.0";
  h.backend = "model";
  h.scenario = nlohmann::json{{"clients", 3}, {"faults", {{"pause", true}}}, {"locks", {"L0", "L1"}}};
  return h;
}

// Every field set away from its default.
Event full_event() {
  Event e;
  e.id = 7;
  e.true_us = 12;
  e.kind = EventKind::Script;
  e.client = 2;
  e.server = 1;
  e.owner.assign("uuid-1:3");
  e.lock.assign("L0");
  e.op = Op::Unlock;
  e.op_id = 99;
  e.local_ms = 1'800'000'000'123;
  e.wait_ms = 5'000;
  e.lease_ms = 0;
  e.value = -3;
  e.detail = "quote \" backslash \\ newline \n tab \t ctrl \x01 utf8 \xc3\xa9";
  e.script = "rlock_release";
  e.request_id = "r-1";
  e.reply = EventReply::other("\"text\"");
  e.server_ms = 1'700'000'000'000;
  e.holders_after = {"a:1", "b:2"};
  e.published = {"redisson_lock__channel:{L0} 0", ""};
  e.duration_ms = -250;
  e.target = 0;
  return e;
}

TEST(EventKind, NamesRoundTrip) {
  const std::vector<std::string> want = {"invoke", "ok", "fail", "info", "script", "deliver", "fault", "verdict"};
  for (size_t i = 0; i < want.size(); ++i) {
    const auto kind = static_cast<EventKind>(i);
    EXPECT_EQ(event_kind_name(kind), want[i]);
    EventKind back = EventKind::Info;
    ASSERT_TRUE(event_kind_from_name(want[i], &back));
    EXPECT_EQ(back, kind);
  }
  EventKind k;
  EXPECT_FALSE(event_kind_from_name("Invoke", &k));
}

TEST(TraceFormat, DefaultEventWritesOnlyIdTimeKind) {
  Event e;
  e.id = 3;
  e.true_us = 1500;
  e.kind = EventKind::Invoke;
  EXPECT_EQ(encode_event(e), R"({"id":3,"t":1500,"k":"invoke"})");
}

TEST(TraceFormat, FullEventUsesFixedKeyOrder) {
  EXPECT_EQ(encode_event(full_event()),
            R"({"id":7,"t":12,"k":"script","c":2,"s":1,"o":"uuid-1:3","l":"L0","op":"unlock","opid":99,)"
            R"("lms":1800000000123,"wait":5000,"lease":0,"v":-3,)"
            R"("d":"quote \" backslash \\ newline \n tab \t ctrl \u0001 utf8 )"
            "\xc3\xa9"
            R"(","sc":"rlock_release","rid":"r-1","r":"\"text\"","sms":1700000000000,)"
            R"("h":["a:1","b:2"],"p":["redisson_lock__channel:{L0} 0",""],"dur":-250,"tg":0})");
}

TEST(TraceFormat, HeaderLine) {
  EXPECT_EQ(encode_header(sample_header()),
            R"({"format":"locksim-trace","version":5,"seed":18446744073709551615,"build":"0.1.0",)"
            R"("backend":"model","scenario":{"clients":3,"faults":{"pause":true},"locks":["L0","L1"]}})");
}

TEST(TraceFormat, EveryFieldRoundTrips) {
  const Event e = full_event();
  Event back;
  std::string error;
  ASSERT_TRUE(decode_event(encode_event(e), &back, &error)) << error;
  EXPECT_EQ(back, e);
  // And each field alone (the others at their defaults).
  const Event defaults;
  Event single;
  single.id = 1;
  const auto check = [&](const char* what) {
    Event got;
    ASSERT_TRUE(decode_event(encode_event(single), &got, &error)) << what << ": " << error;
    EXPECT_EQ(got, single) << what;
    single = defaults;
    single.id = 1;
  };
  single.client = 0; check("client");
  single.server = 0; check("server");
  single.wait_ms = 0; check("wait_ms");
  single.lease_ms = 30'000; check("lease_ms");
  single.target = 5; check("target");
  single.value = 1; check("value");
  single.kind = EventKind::Verdict; check("kind");
  single.holders_after = {""}; check("holders_after");
  single.token = "A:1#3"; check("token");
}

RC_GTEST_PROP(TraceFormatProperty, RoundTripIsExactAndEncodingDeterministic,
              (int64_t t, int64_t lms, int64_t v, int client, std::string owner, std::string detail,
               std::vector<std::string> holders)) {
  Event e;
  e.id = 42;
  e.true_us = t < 0 ? ~t : t;  // the decoders refuse a time before 0 and an index below -1
  e.local_ms = lms;
  e.value = v;
  e.client = client < -1 ? ~client : client;
  // Strings in traces are UTF-8; keep the generated ones ASCII.
  for (auto* s : {&owner, &detail}) {
    for (char& c : *s) c = static_cast<char>(static_cast<unsigned char>(c) & 0x7f);
  }
  for (auto& h : holders) {
    for (char& c : h) c = static_cast<char>(static_cast<unsigned char>(c) & 0x7f);
  }
  e.owner.assign(owner);
  read_detail_text(detail, &e);  // its facts, as a reader reads the text
  e.holders_after = holders;
  const std::string line = encode_event(e);
  RC_ASSERT(line.find('\n') == std::string::npos);
  RC_ASSERT(encode_event(e) == line);
  Event back;
  std::string error;
  RC_ASSERT(decode_event(line, &back, &error));
  RC_ASSERT(back == e);
}

std::string write_trace(const std::vector<Event>& events) {
  std::ostringstream out;
  TraceWriter w(out, sample_header());
  for (const auto& e : events) w.write(e);
  w.close();
  return out.str();
}

std::vector<Event> sample_events() {
  std::vector<Event> events;
  for (uint64_t i = 0; i < 5; ++i) {
    Event e = i == 3 ? full_event() : Event{};
    e.id = i;
    e.true_us = static_cast<int64_t>(i * 1000);
    events.push_back(e);
  }
  return events;
}

TEST(TraceWriterReader, StreamRoundTripWithHeader) {
  const auto events = sample_events();
  std::istringstream in(write_trace(events));
  TraceReader r(in, "mem.jsonl");
  EXPECT_EQ(r.header(), sample_header());
  std::vector<Event> back;
  Event e;
  while (r.next(e)) back.push_back(e);
  EXPECT_EQ(back, events);
  EXPECT_EQ(r.events_read(), events.size());
  EXPECT_FALSE(r.next(e));
}

TEST(TraceWriterReader, SameEventsSameBytes) {
  const auto events = sample_events();
  const std::string a = write_trace(events);
  EXPECT_EQ(write_trace(events), a);
  EXPECT_EQ(std::count(a.begin(), a.end(), '\n'), static_cast<long>(events.size() + 1));
  EXPECT_EQ(a.back(), '\n');
}

TEST(TraceWriterReader, FileRoundTripAndEventSink) {
  const std::string path = std::string(LOCKSIM_BINARY_DIR) + "/trace_codec_test.jsonl";
  {
    TraceWriter w(path, sample_header());
    EventSink& sink = w;
    for (const auto& e : sample_events()) sink.on_event(e);
    EXPECT_EQ(w.events_written(), 5u);
    w.close();  // the file appears only now (traces/output_file.h)
  }
  TraceReader r(path);
  Event e;
  uint64_t n = 0;
  while (r.next(e)) ++n;
  EXPECT_EQ(n, 5u);
  std::remove(path.c_str());
}

TEST(TraceWriterReader, UnopenableFilesAreReported) {
  EXPECT_THROW(TraceWriter("/nonexistent-dir/x.jsonl", sample_header()), TraceError);
  try {
    TraceReader r("/nonexistent-dir/x.jsonl");
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent-dir/x.jsonl: cannot open trace file");
  }
}

// The error message a reader gives for `text` (named trace.jsonl), reading
// to the end.
std::string read_error(const std::string& text) {
  std::istringstream in(text);
  try {
    TraceReader r(in, "trace.jsonl");
    Event e;
    while (r.next(e)) {
    }
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

const std::string kHeader = R"({"format":"locksim-trace","version":1,"seed":1,"build":"b","backend":"model","scenario":{}})";

TEST(TraceReaderErrors, UnknownVersionRejected) {
  EXPECT_EQ(read_error(R"({"format":"locksim-trace","version":7,"seed":1})"),
            "trace.jsonl:1: unsupported trace version 7 (this build reads versions 1-5)");
  EXPECT_EQ(read_error(R"({"format":"locksim-trace","version":0})"),
            "trace.jsonl:1: unsupported trace version 0 (this build reads versions 1-5)");
  EXPECT_EQ(read_error(R"({"format":"locksim-trace"})"),
            "trace.jsonl:1: trace header has no integer \"version\" (this build reads version 5)");
}

TEST(TraceReaderErrors, UnknownFormatRejected) {
  EXPECT_EQ(read_error(R"({"format":"jepsen-history","version":1})"),
            "trace.jsonl:1: not a locksim trace: format \"jepsen-history\" (expected \"locksim-trace\")");
}

TEST(TraceReaderErrors, MissingHeader) {
  EXPECT_EQ(read_error(""), "trace.jsonl: empty file (expected a locksim trace header on line 1)");
  EXPECT_EQ(read_error(R"({"id":0,"t":0,"k":"invoke"})" "\n"),
            "trace.jsonl:1: missing trace header (expected {\"format\":\"locksim-trace\",\"version\":5,...} "
            "on the first line)");
  EXPECT_EQ(read_error("hello\n"),
            "trace.jsonl:1: missing trace header: malformed JSON at column 1 (expected one JSON object per line)");
}

TEST(TraceReaderErrors, MalformedLineReportedWithItsLineNumber) {
  const std::string good = R"({"id":0,"t":0,"k":"invoke"})";
  EXPECT_EQ(read_error(kHeader + "\n" + good + "\n" + R"({"id":1,"t":5,"k":"ok")" + "\n"),
            "trace.jsonl:3: malformed JSON at column 23 (expected one JSON object per line)");
  EXPECT_EQ(read_error(kHeader + "\n" + good + "\n\n"),
            "trace.jsonl:3: empty line (expected one event per line)");
  EXPECT_EQ(read_error(kHeader + "\n[1,2]\n"), "trace.jsonl:2: expected a JSON object");
}

TEST(TraceReaderErrors, BadFieldsReportedWithItsLineNumber) {
  const auto at_line2 = [](const std::string& event) { return read_error(kHeader + "\n" + event + "\n"); };
  EXPECT_EQ(at_line2(R"({"id":0,"t":0,"k":"nope"})"), "trace.jsonl:2: unknown event kind \"nope\"");
  EXPECT_EQ(at_line2(R"({"id":0,"t":0})"), "trace.jsonl:2: event has no string field \"k\" (kind)");
  EXPECT_EQ(at_line2(R"({"id":0,"t":0,"k":"ok","zz":1})"), "trace.jsonl:2: unknown event field \"zz\"");
  EXPECT_EQ(at_line2(R"({"id":0,"t":1.5,"k":"ok"})"), "trace.jsonl:2: field \"t\" must be an integer");
  EXPECT_EQ(at_line2(R"({"id":-1,"t":0,"k":"ok"})"), "trace.jsonl:2: field \"id\" must be a non-negative integer");
  EXPECT_EQ(at_line2(R"({"id":0,"t":0,"k":"ok","c":4294967296})"), "trace.jsonl:2: field \"c\" is out of range");
  EXPECT_EQ(at_line2(R"({"id":0,"t":9223372036854775808,"k":"ok"})"),
            "trace.jsonl:2: field \"t\" is out of range");
  EXPECT_EQ(at_line2(R"({"id":0,"t":0,"k":"ok","o":3})"), "trace.jsonl:2: field \"o\" must be a string");
  EXPECT_EQ(at_line2(R"({"id":0,"t":0,"k":"ok","h":["a",1]})"),
            "trace.jsonl:2: field \"h\" must be an array of strings");
}

TEST(TraceReaderErrors, IdsMustIncrease) {
  EXPECT_EQ(read_error(kHeader + "\n" + R"({"id":4,"t":0,"k":"ok"})" + "\n" + R"({"id":4,"t":0,"k":"ok"})" + "\n"),
            "trace.jsonl:3: event id 4 does not follow 4 (ids must increase)");
}

// The checkers rely on true-time order; a trace that breaks it is refused
// where it breaks, not left to an assertion inside a checker.
TEST(TraceReaderErrors, TimesMustNotGoBack) {
  const auto two = [](const std::string& t1, const std::string& t2) {
    return read_error(kHeader + "\n" + R"({"id":1,"t":)" + t1 + R"(,"k":"ok"})" + "\n" + R"({"id":2,"t":)" + t2 +
                      R"(,"k":"ok"})" + "\n");
  };
  EXPECT_EQ(two("70740", "10"),
            "trace.jsonl:3: event time 10 us is before the previous event's 70740 us (times must not go back)");
  EXPECT_EQ(two("9223372036854775807", "5"),
            "trace.jsonl:3: event time 5 us is before the previous event's 9223372036854775807 us (times must not "
            "go back)");
  EXPECT_EQ(two("7", "7"), "");  // equal times: events of one instant
}

TEST(TraceReaderErrors, GoodTraceHasNoError) {
  EXPECT_EQ(read_error(kHeader + "\n" + R"({"id":0,"t":0,"k":"ok"})" + "\n"), "");
}

TEST(FirstDifference, IdenticalTracesHaveNone) {
  std::istringstream a(write_trace(sample_events()));
  std::istringstream b(write_trace(sample_events()));
  TraceReader ra(a, "a");
  TraceReader rb(b, "b");
  EXPECT_FALSE(first_difference(ra, rb).has_value());
}

TEST(FirstDifference, ReportsIndexAndBothLines) {
  auto other = sample_events();
  other[2].value = 1;
  std::istringstream a(write_trace(sample_events()));
  std::istringstream b(write_trace(other));
  TraceReader ra(a, "a");
  TraceReader rb(b, "b");
  const auto d = first_difference(ra, rb);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->index, 2u);
  EXPECT_EQ(d->line_a, R"({"id":2,"t":2000,"k":"info"})");
  EXPECT_EQ(d->line_b, R"({"id":2,"t":2000,"k":"info","v":1})");
  EXPECT_EQ(d->line_number_a, 4u);
  EXPECT_EQ(d->line_number_b, 4u);
}

TEST(FirstDifference, ShorterTraceEndsFirst) {
  auto shorter = sample_events();
  shorter.pop_back();
  std::istringstream a(write_trace(shorter));
  std::istringstream b(write_trace(sample_events()));
  TraceReader ra(a, "a");
  TraceReader rb(b, "b");
  const auto d = first_difference(ra, rb);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->index, 4u);
  EXPECT_FALSE(d->a.has_value());
  EXPECT_EQ(d->line_a, "<end of trace>");
  ASSERT_TRUE(d->b.has_value());
  EXPECT_EQ(d->b->id, 4u);
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

TEST(TraceFormatV2, FairLineRoundTrips) {
  Event e;
  e.id = 3;
  e.kind = EventKind::Script;
  e.script = "fair_acquire";
  e.local_ms = 1700000000123;
  e.line_known = true;
  e.line_after = {{"a:1", 1700000005000.0}, {"b:1", std::nullopt}, {"c:1", 2.5},
                  {"d:1", std::numeric_limits<double>::infinity()}};
  const std::string line = encode_event(e);
  EXPECT_NE(line.find(R"("ln":[["a:1",1700000005000],["b:1"],["c:1",2.5],["d:1","inf"]])"), std::string::npos) << line;
  Event back;
  std::string error;
  ASSERT_TRUE(decode_event(line, &back, &error)) << error;
  EXPECT_EQ(back, e);
  // An empty line is still server truth (present, empty).
  e.line_after.clear();
  ASSERT_TRUE(decode_event(encode_event(e), &back, &error)) << error;
  EXPECT_TRUE(back.line_known);
  EXPECT_TRUE(back.line_after.empty());
  EXPECT_FALSE(decode_event(R"({"id":1,"t":0,"k":"script","ln":[[1,2]]})", &back, &error));
}

TEST(TraceFormatV2, VersionOneReadsAndReplaysWithoutServerTruth) {
  TraceHeader h;
  std::string error;
  ASSERT_TRUE(decode_header(R"({"format":"locksim-trace","version":1,"seed":1,"build":"b","backend":"model"})", &h,
                            &error))
      << error;
  EXPECT_EQ(h.version, 1);
  Event e;
  e.kind = EventKind::Script;
  e.local_ms = 5;
  e.line_known = true;
  e.line_after = {{"a:1", 1.0}};
  const Event old = event_as_version(e, 1);
  EXPECT_FALSE(old.line_known);
  EXPECT_TRUE(old.line_after.empty());
  EXPECT_EQ(old.local_ms, 0);
  EXPECT_EQ(event_as_version(e, 2), e);
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

// Version 3: a fair script's line is written only when it changed, per
// (server, lock); "lr":1 stands for the previous line, which the reader fills in.
std::vector<Event> polling_events() {
  std::vector<Event> out;
  auto script = [&out](int server, const std::string& lock, std::vector<LineEntry> line) {
    Event e;
    e.id = out.size();
    e.kind = EventKind::Script;
    e.server = server;
    e.lock.assign(lock);
    e.script = "fair_acquire";
    e.line_known = true;
    e.line_after = std::move(line);
    out.push_back(e);
  };
  const std::vector<LineEntry> ab = {{"a:1", 10.0}, {"b:1", 20.0}};
  script(0, "L0", ab);
  script(0, "L0", ab);                  // same: repeated
  script(0, "L1", ab);                  // another lock: written
  script(1, "L0", ab);                  // another server: written
  script(0, "L0", {{"b:1", 20.0}});     // changed: written
  script(0, "L0", {{"b:1", 20.0}});     // repeated
  script(0, "L0", {});                  // empty: written (still server truth)
  script(0, "L0", {});                  // repeated
  Event invoke;                         // no line: never "lr"
  invoke.id = out.size();
  invoke.kind = EventKind::Invoke;
  invoke.lock.assign("L0");
  out.push_back(invoke);
  return out;
}

TEST(TraceFormatV3, UnchangedFairLinesAreWrittenAsRepeats) {
  const auto events = polling_events();
  const std::string text = write_trace(events);
  size_t repeats = 0;
  for (size_t at = text.find(R"("lr":1)"); at != std::string::npos; at = text.find(R"("lr":1)", at + 1)) ++repeats;
  EXPECT_EQ(repeats, 3u) << text;
  std::istringstream in(text);
  TraceReader r(in, "mem.jsonl");
  EXPECT_EQ(r.header().version, 5);
  std::vector<Event> back;
  Event e;
  while (r.next(e)) back.push_back(e);
  EXPECT_EQ(back, events);  // every line filled in
}

TEST(TraceFormatV3, RepeatedLineErrors) {
  const std::string v3 = R"({"format":"locksim-trace","version":3,"seed":1,"build":"b","backend":"model","scenario":{}})";
  EXPECT_EQ(read_error(v3 + "\n" + R"({"id":0,"t":0,"k":"script","s":0,"l":"L","lr":1})" + "\n"),
            "trace.jsonl:2: field \"lr\" repeats the fair line of lock \"L\" on server 0, but no earlier event gives one");
  EXPECT_EQ(read_error(v3 + "\n" + R"({"id":0,"t":0,"k":"script","s":0,"l":"L","ln":[],"lr":1})" + "\n"),
            "trace.jsonl:2: fields \"ln\" and \"lr\" together (a line is given or repeated, not both)");
  EXPECT_EQ(read_error(v3 + "\n" + R"({"id":0,"t":0,"k":"script","s":0,"l":"L","ln":[]})" + "\n" +
                       R"({"id":1,"t":0,"k":"script","s":0,"l":"L","lr":2})" + "\n"),
            "trace.jsonl:3: field \"lr\" must be 1 (the fair line repeated)");
  const std::string v2 = R"({"format":"locksim-trace","version":2,"seed":1,"build":"b","backend":"model","scenario":{}})";
  EXPECT_EQ(read_error(v2 + "\n" + R"({"id":0,"t":0,"k":"script","s":0,"l":"L","ln":[]})" + "\n" +
                       R"({"id":1,"t":0,"k":"script","s":0,"l":"L","lr":1})" + "\n"),
            "trace.jsonl:3: field \"lr\" in a version 2 trace (version 3 and later)");
  // Outside a reader there is no line to repeat.
  Event e;
  std::string error;
  EXPECT_FALSE(decode_event(R"({"id":1,"t":0,"k":"script","lr":1})", &e, &error));
  EXPECT_NE(error.find("readable only in a trace"), std::string::npos) << error;
  FastEventDecoder fast;
  EXPECT_FALSE(fast.decode(R"({"id":1,"t":0,"k":"script","lr":1})", &e));
  bool repeated = false;
  ASSERT_TRUE(fast.decode(R"({"id":1,"t":0,"k":"script","lr":1})", &e, &repeated));
  EXPECT_TRUE(repeated);
  EXPECT_TRUE(e.line_known);
}

TEST(TraceFormatV3, VersionTwoTracesStillRead) {
  // A version 2 trace writes every line in full: read as before.
  const auto events = polling_events();
  std::string text = R"({"format":"locksim-trace","version":2,"seed":1,"build":"b","backend":"model","scenario":{}})";
  text += "\n";
  for (const Event& e : events) text += encode_event(e) + "\n";
  std::istringstream in(text);
  TraceReader r(in, "v2.jsonl");
  std::vector<Event> back;
  Event e;
  while (r.next(e)) back.push_back(e);
  EXPECT_EQ(back, events);
}

// Version 4's "tk": an acquire's token under a design with fresh tokens.
// Written only when set, read by both decoders, refused in older versions.
TEST(TraceFormatV4, TokenRoundTripsAndIsRefusedBeforeVersion4) {
  Event e;
  e.id = 0;
  e.kind = EventKind::Ok;
  e.op = Op::Lock;
  e.owner.assign("A:1");
  e.token = "A:1#7";
  EXPECT_NE(encode_event(e).find(R"("tk":"A:1#7")"), std::string::npos) << encode_event(e);
  const std::string text = write_trace({e});
  std::istringstream in(text);
  TraceReader r(in, "mem.jsonl");
  Event back;
  ASSERT_TRUE(r.next(back));
  EXPECT_EQ(back.token, "A:1#7");
  const std::string v3 = R"({"format":"locksim-trace","version":3,"seed":1,"build":"b","backend":"model","scenario":{}})";
  EXPECT_EQ(read_error(v3 + "\n" + R"({"id":0,"t":0,"k":"ok","tk":"A:1#7"})" + "\n"),
            "trace.jsonl:2: field \"tk\" in a version 3 trace (version 4 and later)");
  EXPECT_EQ(read_error(v3 + "\n" + R"({"id":0,"t":0,"k":"ok","o":"A:1"})" + "\n"), "");  // v3 reads as before
}

}  // namespace
}  // namespace locksim

TEST(TraceFormat, NegativeTimeAndIndicesAreRefusedByBothDecoders) {
  for (const char* line : {R"({"id":1,"t":-5,"k":"invoke"})", R"({"id":1,"t":5,"k":"invoke","c":-1})",
                           R"({"id":1,"t":5,"k":"fault","s":-2})", R"({"id":1,"t":5,"k":"fault","tg":-1})"}) {
    locksim::Event e;
    std::string error;
    EXPECT_FALSE(locksim::decode_event(line, &e, &error)) << line;
    EXPECT_NE(error.find("negative"), std::string::npos) << line << ": " << error;
    locksim::FastEventDecoder fast;
    EXPECT_FALSE(fast.decode(line, &e)) << line;
  }
}
