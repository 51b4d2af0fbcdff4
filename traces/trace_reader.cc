#include "traces/trace_reader.h"

#include <sys/stat.h>

#include <cassert>

namespace locksim {

namespace {

enum class LineRead { Line, End, TooLong };

// Reads up to the next '\n' (not stored) or the end of the stream, but never
// more than `max_bytes` bytes: memory stays bounded whatever the input (a
// file of NULs with no newline, /dev/zero). On TooLong the rest of the line
// is left unread.
LineRead read_bounded_line(std::istream& in, std::string* line, size_t max_bytes) {
  line->clear();
  std::streambuf* buf = in.rdbuf();
  bool any = false;
  for (;;) {
    const int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return any ? LineRead::Line : LineRead::End;
    }
    any = true;
    if (c == '\n') return LineRead::Line;
    if (line->size() >= max_bytes) return LineRead::TooLong;
    line->push_back(static_cast<char>(c));
  }
}

}  // namespace

TraceReader::TraceReader(std::istream& in, std::string name) : in_(&in), name_(std::move(name)) {
  read_header();
}

TraceReader::TraceReader(const std::string& path) : name_(path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw TraceError(path + ": cannot open trace file");
  }
  if (S_ISDIR(st.st_mode)) throw TraceError(path + ": is a directory, not a trace file");
  file_ = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*file_) throw TraceError(path + ": cannot open trace file");
  in_ = file_.get();
  read_header();
}

void TraceReader::fail(const std::string& what) const {
  throw TraceError(name_ + ":" + std::to_string(line_number_) + ": " + what);
}

void TraceReader::read_header() {
  const LineRead r = read_bounded_line(*in_, &line_, kMaxHeaderBytes);
  if (r == LineRead::End) {
    if (in_->bad()) throw TraceError(name_ + ": read error");
    throw TraceError(name_ + ": empty file (expected a locksim trace header on line 1)");
  }
  line_number_ = 1;
  if (r == LineRead::TooLong) {
    fail("header line longer than " + std::to_string(kMaxHeaderBytes) +
         " bytes (a trace header is one short JSON object; is this a locksim trace?)");
  }
  std::string error;
  if (!decode_header(line_, &header_, &error)) fail(error);
}

bool TraceReader::next(Event& out) {
  const LineRead r = read_bounded_line(*in_, &line_, kMaxEventBytes);
  if (r == LineRead::End) {
    if (in_->bad()) fail("read error");
    return false;
  }
  ++line_number_;
  if (r == LineRead::TooLong) {
    fail("line longer than " + std::to_string(kMaxEventBytes) + " bytes (one event is one short JSON object)");
  }
  if (line_.empty()) fail("empty line (expected one event per line)");
  std::string error;
  Event event;
  bool repeated = false;
  if (!fast_.decode(line_, &event, &repeated) && !decode_event(line_, &event, &error, &repeated)) fail(error);
  if (repeated) {
    if (header_.version < 3) fail("field \"lr\" in a version " + std::to_string(header_.version) + " trace (version 3 and later)");
    const std::vector<LineEntry>* line = lines_.last(event);
    if (line == nullptr) {
      fail("field \"lr\" repeats the fair line of lock \"" + event.lock + "\" on server " +
           std::to_string(event.server) + ", but no earlier event gives one");
    }
    event.line_after = *line;
  } else {
    lines_.remember(event);
  }
  if (last_id_ && event.id <= *last_id_) {
    fail("event id " + std::to_string(event.id) + " does not follow " + std::to_string(*last_id_) +
         " (ids must increase)");
  }
  last_id_ = event.id;
  ++events_read_;
  out = std::move(event);
  return true;
}

std::optional<TraceDifference> first_difference(TraceReader& a, TraceReader& b) {
  for (uint64_t index = 0;; ++index) {
    Event ea;
    Event eb;
    const bool has_a = a.next(ea);
    const bool has_b = b.next(eb);
    if (!has_a && !has_b) return std::nullopt;
    if (has_a && has_b && ea == eb) continue;
    TraceDifference d;
    d.index = index;
    if (has_a) {
      d.a = std::move(ea);
      d.line_a = a.last_line();
      d.line_number_a = a.line_number();
    } else {
      d.line_a = "<end of trace>";
    }
    if (has_b) {
      d.b = std::move(eb);
      d.line_b = b.last_line();
      d.line_number_b = b.line_number();
    } else {
      d.line_b = "<end of trace>";
    }
    return d;
  }
}

}  // namespace locksim
