// Hostile input to the trace reader stays bounded: deep nesting is refused
// while parsing (no stack overflow), a long or endless line is cut at its
// bound (no unbounded memory), a directory is named as one; unvalidated
// values are never dumped whole into a message.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "traces/bounded_json.h"
#include "traces/trace_reader.h"

namespace locksim {
namespace {

std::string read_error(std::istream& in) {
  try {
    TraceReader r(in, "t.jsonl");
    Event e;
    while (r.next(e)) {
    }
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

std::string read_error(const std::string& text) {
  std::istringstream in(text);
  return read_error(in);
}

std::string nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

const std::string kHeader =
    R"({"format":"locksim-trace","version":2,"seed":1,"build":"b","backend":"model","scenario":{}})";

TEST(BoundedJson, RefusesDeepNestingWithoutRecursion) {
  EXPECT_NO_THROW(parse_bounded_json(nested(kMaxJsonDepth)));
  EXPECT_THROW(parse_bounded_json(nested(kMaxJsonDepth + 1)), JsonRefused);
  EXPECT_THROW(parse_bounded_json(nested(1'000'000)), JsonRefused);
  EXPECT_THROW(parse_bounded_json("{\"a\":" + nested(200) + "}"), JsonRefused);
  EXPECT_THROW(parse_bounded_json("[[1]"), nlohmann::json::parse_error);
}

TEST(BoundedJson, DescribesWithoutDumpingContainers) {
  EXPECT_EQ(describe_json_value(nlohmann::json("abc")), "\"abc\"");
  EXPECT_EQ(describe_json_value(nlohmann::json(std::string(100, 'x'))), "\"" + std::string(40, 'x') + "...\"");
  EXPECT_EQ(describe_json_value(parse_bounded_json(nested(60))), "[...]");
  EXPECT_EQ(describe_json_value(nlohmann::json::object()), "{...}");
  EXPECT_EQ(describe_json_value(nlohmann::json(7)), "7");
}

TEST(TraceReaderBounds, DeeplyNestedHeaderIsAnError) {
  const std::string deep_scenario = R"({"format":"locksim-trace","version":1,"seed":1,"build":"0.1.0",)"
                                    R"("backend":"model","scenario":)" + nested(100'000) + "}\n";
  EXPECT_EQ(read_error(deep_scenario),
            "t.jsonl:1: bad trace header: JSON nested deeper than 64 levels (expected one flat JSON object per line)");
  const std::string deep_format = R"({"format":)" + nested(100'000) + "}\n";
  EXPECT_NE(read_error(deep_format).find("nested deeper than 64 levels"), std::string::npos);
  // Within the limit, a non-string format is described, not dumped.
  EXPECT_EQ(read_error(R"({"format":)" + nested(50) + "}\n"),
            "t.jsonl:1: not a locksim trace: format [...] (expected \"locksim-trace\")");
}

TEST(TraceReaderBounds, DeeplyNestedEventIsAnError) {
  const std::string line = R"({"id":0,"t":0,"k":"ok","h":)" + nested(100'000) + "}";
  EXPECT_EQ(read_error(kHeader + "\n" + line + "\n"),
            "t.jsonl:2: JSON nested deeper than 64 levels (expected one flat JSON object per line)");
}

// A stream of `prefix`, then `count` copies of `fill`, then `suffix`,
// produced lazily (a huge line never exists in memory at once).
class LazyBuf : public std::streambuf {
 public:
  LazyBuf(std::string prefix, char fill, size_t count, std::string suffix)
      : prefix_(std::move(prefix)), suffix_(std::move(suffix)), fill_(fill), left_(count) {
    setg(buf_, buf_, buf_);
  }
  size_t consumed() const { return consumed_; }

 protected:
  int_type underflow() override {
    size_t n = 0;
    if (!prefix_.empty()) {
      n = std::min(prefix_.size(), sizeof buf_);
      std::copy_n(prefix_.begin(), n, buf_);
      prefix_.erase(0, n);
    } else if (left_ > 0) {
      n = std::min(left_, sizeof buf_);
      std::fill_n(buf_, n, fill_);
      left_ -= n;
    } else if (!suffix_.empty()) {
      n = std::min(suffix_.size(), sizeof buf_);
      std::copy_n(suffix_.begin(), n, buf_);
      suffix_.erase(0, n);
    } else {
      return traits_type::eof();
    }
    consumed_ += n;
    setg(buf_, buf_, buf_ + n);
    return traits_type::to_int_type(buf_[0]);
  }

 private:
  char buf_[4096] = {};
  std::string prefix_;
  std::string suffix_;
  char fill_;
  size_t left_;
  size_t consumed_ = 0;
};

TEST(TraceReaderBounds, EndlessHeaderLineFailsAtItsBound) {
  LazyBuf zeros("", '\0', size_t{1} << 40, "");  // 1 TiB of NULs: must never be read whole
  std::istream in(&zeros);
  EXPECT_EQ(read_error(in), "t.jsonl:1: header line longer than 1048576 bytes (a trace header is one short JSON "
                            "object; is this a locksim trace?)");
  EXPECT_LE(zeros.consumed(), TraceReader::kMaxHeaderBytes + 8192);
}

TEST(TraceReaderBounds, LongEventLineFailsAtItsBound) {
  LazyBuf endless(kHeader + "\n", 'x', size_t{1} << 40, "\n");
  std::istream in(&endless);
  EXPECT_EQ(read_error(in), "t.jsonl:2: line longer than 67108864 bytes (one event is one short JSON object)");
  EXPECT_LE(endless.consumed(), TraceReader::kMaxEventBytes + kHeader.size() + 8192);
  // Exactly at the bound is still read (and then judged as JSON).
  LazyBuf at_bound(kHeader + "\n", 'x', TraceReader::kMaxEventBytes, "\n");
  std::istream in2(&at_bound);
  EXPECT_EQ(read_error(in2), "t.jsonl:2: malformed JSON at column 1 (expected one JSON object per line)");
}

TEST(TraceReaderBounds, DevZeroIsNotAnEmptyFile) {
  try {
    TraceReader r("/dev/zero");
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_STREQ(e.what(), "/dev/zero:1: header line longer than 1048576 bytes (a trace header is one short JSON "
                           "object; is this a locksim trace?)");
  }
}

TEST(TraceReaderBounds, DirectoryIsNamed) {
  try {
    TraceReader r("/tmp");
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_STREQ(e.what(), "/tmp: is a directory, not a trace file");
  }
}

// Found by fuzz_trace_reader: nlohmann throws out_of_range (not parse_error)
// for a number too large for a double; it escaped the reader as an uncaught
// exception.
TEST(TraceReaderBounds, NumberOverflowIsAnError) {
  EXPECT_EQ(read_error(R"({"format":"locksim-trace","version":2,"seed":1,"scenario":[8e0602]})"
                       "\n"),
            "t.jsonl:1: missing trace header: malformed JSON: a number is out of range (expected one JSON object "
            "per line)");
  EXPECT_EQ(read_error(kHeader + "\n" + R"({"id":0,"t":1e400,"k":"ok"})" + "\n"),
            "t.jsonl:2: malformed JSON: a number is out of range (expected one JSON object per line)");
}

TEST(TraceReaderBounds, LastLineWithoutNewlineIsRead) {
  std::istringstream in(kHeader + "\n" + R"({"id":0,"t":0,"k":"ok"})");
  TraceReader r(in, "t.jsonl");
  Event e;
  EXPECT_TRUE(r.next(e));
  EXPECT_FALSE(r.next(e));
}

}  // namespace
}  // namespace locksim
