#include "traces/trace_reader.h"

#include <algorithm>
#include <cstring>

#include <sys/stat.h>

#include <cassert>

namespace locksim {


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

// Reads up to the next '\n' (not included) from the reader's own buffer,
// refilled in blocks of kReadBlockBytes: a memchr per block instead of a
// stream call per character. At most max_bytes are kept; a longer line is
// TooLong as soon as the bound is passed (at most one byte past it is read).
TraceReader::LineRead TraceReader::read_bounded_line(std::string* line, size_t max_bytes) {
  line->clear();
  bool any = false;
  for (;;) {
    if (buffer_pos_ == buffer_end_) {
      if (buffer_.empty()) buffer_.resize(kReadBlockBytes);
      // Never read further ahead than one byte past the bound of this line.
      const size_t want = std::min(buffer_.size(), max_bytes - line->size() + 1);
      in_->read(buffer_.data(), static_cast<std::streamsize>(want));
      buffer_pos_ = 0;
      buffer_end_ = static_cast<size_t>(in_->gcount());
      if (buffer_end_ == 0) return any ? LineRead::Line : LineRead::End;
    }
    any = true;
    const char* from = buffer_.data() + buffer_pos_;
    const size_t available = buffer_end_ - buffer_pos_;
    const void* newline = std::memchr(from, '\n', available);
    const size_t take = newline == nullptr ? available : static_cast<size_t>(static_cast<const char*>(newline) - from);
    if (line->size() + take > max_bytes) return LineRead::TooLong;
    line->append(from, take);
    buffer_pos_ += take;
    if (newline != nullptr) {
      ++buffer_pos_;  // the '\n'
      return LineRead::Line;
    }
  }
}

void TraceReader::fail(const std::string& what) const {
  throw TraceError(name_ + ":" + std::to_string(line_number_) + ": " + what);
}

void TraceReader::read_header() {
  const LineRead r = read_bounded_line(&line_, kMaxHeaderBytes);
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
  const LineRead r = read_bounded_line(&line_, kMaxEventBytes);
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
  // Decoded in place: the fast decoder reuses the strings and vectors `out`
  // already holds (no allocation per field on a long read).
  Event& event = out;
  bool repeated = false;
  if (!fast_.decode(line_, &event, &repeated) && !decode_event(line_, &event, &error, &repeated)) fail(error);
  event.line_token = LineToken{};
  if (!event.token.empty() && header_.version < 4) {
    fail("field \"tk\" in a version " + std::to_string(header_.version) + " trace (version 4 and later)");
  }
  if (repeated) {
    if (header_.version < 3) fail("field \"lr\" in a version " + std::to_string(header_.version) + " trace (version 3 and later)");
    if (!lines_.repeat_into(&event)) {
      fail("field \"lr\" repeats the fair line of lock \"" + event.lock.name() + "\" on server " +
           std::to_string(event.server) + ", but no earlier event gives one");
    }
  } else {
    lines_.remember(&event);
  }
  if (last_id_ && event.id <= *last_id_) {
    fail("event id " + std::to_string(event.id) + " does not follow " + std::to_string(*last_id_) +
         " (ids must increase)");
  }
  last_id_ = event.id;
  if (last_true_us_ && event.true_us < *last_true_us_) {
    fail("event time " + std::to_string(event.true_us) + " us is before the previous event's " +
         std::to_string(*last_true_us_) + " us (times must not go back)");
  }
  last_true_us_ = event.true_us;
  ++events_read_;
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
