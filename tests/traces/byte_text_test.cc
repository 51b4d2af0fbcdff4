// Byte strings in traces and text outputs (hardening, round 2, item 7): any
// bytes a server answers (NUL, control characters, bytes that are not
// UTF-8) survive a trace round trip exactly (the reader and the fast decoder
// both), and become visible, valid UTF-8 text with no control character in
// everything people read.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "traces/byte_text.h"
#include "traces/fast_event_decoder.h"
#include "traces/trace_format.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace locksim {
namespace {

TEST(ByteText, Utf8Validity) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x92"));
  EXPECT_TRUE(is_valid_utf8(std::string("nul\0inside", 10)));
  EXPECT_FALSE(is_valid_utf8("\xff"));
  EXPECT_FALSE(is_valid_utf8("\xc3"));                // cut short
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));            // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));        // a surrogate
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));    // past U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xe2\x82"));
}

TEST(ByteText, VisibleTextEscapesWhatCannotBeShown) {
  EXPECT_EQ(visible_text("ok \xc3\xa9\t<&>\"'"), "ok \xc3\xa9\t<&>\"'");
  EXPECT_EQ(visible_text(std::string("a\0b\x1b[31m\x7f\n", 10)), "a\\x00b\\x1b[31m\\x7f\\x0a");
  EXPECT_EQ(visible_text("\xff\xfe\xc3"), "\\xff\\xfe\\xc3");
}

TEST(ByteText, HexRoundTrip) {
  std::string back;
  EXPECT_EQ(to_hex(std::string("\x00\xff\x10", 3)), "00ff10");
  EXPECT_TRUE(from_hex("00ff10", &back));
  EXPECT_EQ(back, std::string("\x00\xff\x10", 3));
  EXPECT_FALSE(from_hex("0", &back));
  EXPECT_FALSE(from_hex("zz", &back));
  EXPECT_FALSE(from_hex("FF", &back));  // lower case only: one spelling per byte string
}

// Bytes of every value (RapidCheck's strings are mostly printable, its
// small integers mostly small: the high bit is flipped for every other one).
std::string bytes_of(const std::vector<uint8_t>& v) {
  std::string out(v.begin(), v.end());
  for (size_t i = 0; i < out.size(); i += 2) out[i] = static_cast<char>(out[i] ^ 0x80);
  return out;
}

RC_GTEST_PROP(ByteTextProperty, VisibleTextIsValidUtf8WithoutControls, (std::vector<uint8_t> raw)) {
  const std::string shown = visible_text(bytes_of(raw));
  RC_ASSERT(is_valid_utf8(shown));
  for (char c : shown) RC_ASSERT(static_cast<unsigned char>(c) >= 0x20 || c == '\t');
  RC_ASSERT(shown.find('\x7f') == std::string::npos);
}

// Any bytes in every string a server fills: the reply, published messages,
// holders and the fair line's owners; written, then read back by the trace
// reader (fast decoder or not), equal.
RC_GTEST_PROP(ByteTextProperty, TraceStringsRoundTripExactly,
              (std::vector<uint8_t> reply_bytes, std::vector<uint8_t> payload_bytes, std::vector<uint8_t> holder_bytes,
               std::vector<uint8_t> waiter_bytes, std::vector<uint8_t> detail_bytes)) {
  const std::string reply = bytes_of(reply_bytes), payload = bytes_of(payload_bytes), holder = bytes_of(holder_bytes),
                    waiter = bytes_of(waiter_bytes), detail = bytes_of(detail_bytes);
  RC_CLASSIFY(!is_valid_utf8(reply), "reply not UTF-8");
  Event e;
  e.id = 0;
  e.kind = EventKind::Script;
  e.client = 1;
  e.server = 0;
  e.owner.assign("o:1");
  e.lock.assign("L");
  e.script = "fair_acquire";
  e.reply = EventReply::parse(reply);
  e.detail = detail;
  e.published = {payload};
  e.holders_after = {holder};
  e.line_known = true;
  e.line_after.assign(std::vector<LineEntry>{LineEntry{waiter, 12.5}});
  const std::string line = encode_event(e);
  RC_ASSERT(line.find('\n') == std::string::npos);
  RC_ASSERT(is_valid_utf8(line));
  Event back;
  std::string error;
  RC_ASSERT(decode_event(line, &back, &error));
  RC_ASSERT(back == e);
  // Through a whole trace (the reader decides which decoder runs).
  std::ostringstream out;
  TraceHeader header;
  header.build = "b";
  header.backend = "live";
  TraceWriter writer(out, header);
  writer.write(e);
  writer.close();
  std::istringstream in(out.str());
  TraceReader reader(in, "t.jsonl");
  Event read;
  RC_ASSERT(reader.next(read));
  RC_ASSERT(read == e);
}

TEST(ByteText, ATraceLineWithHexIsReadByTheReader) {
  const std::string bytes("bad\0nul \xff\xfe ctl\x01\x1b[31m", 17);
  Event e;
  e.kind = EventKind::Script;
  e.reply = EventReply::parse(bytes);
  const std::string line = encode_event(e);
  EXPECT_NE(line.find("\"r\":{\"hex\":\"6261640"), std::string::npos) << line;
  Event back;
  std::string error;
  ASSERT_TRUE(decode_event(line, &back, &error)) << error;
  EXPECT_EQ(back.reply.to_text(), bytes);
  // A malformed hex object is an error, not a silent string.
  std::string bad = line;
  bad.replace(bad.find("{\"hex\":\"") + 8, 2, "zz");
  EXPECT_FALSE(decode_event(bad, &back, &error));
}

}  // namespace
}  // namespace locksim
