#include "traces/trace_reader.h"

#include <cassert>

namespace locksim {

namespace {
constexpr size_t kMaxLineBytes = 64 * 1024 * 1024;  // a sanity bound on one event
}  // namespace

TraceReader::TraceReader(std::istream& in, std::string name) : in_(&in), name_(std::move(name)) {
  read_header();
}

TraceReader::TraceReader(const std::string& path)
    : file_(std::make_unique<std::ifstream>(path, std::ios::binary)), name_(path) {
  if (!*file_) throw TraceError(path + ": cannot open trace file");
  in_ = file_.get();
  read_header();
}

void TraceReader::fail(const std::string& what) const {
  throw TraceError(name_ + ":" + std::to_string(line_number_) + ": " + what);
}

void TraceReader::read_header() {
  if (!std::getline(*in_, line_)) {
    throw TraceError(name_ + ": empty file (expected a locksim trace header on line 1)");
  }
  line_number_ = 1;
  std::string error;
  if (!decode_header(line_, &header_, &error)) fail(error);
}

bool TraceReader::next(Event& out) {
  if (!std::getline(*in_, line_)) {
    if (in_->bad()) fail("read error");
    return false;
  }
  ++line_number_;
  if (line_.size() > kMaxLineBytes) fail("line longer than " + std::to_string(kMaxLineBytes) + " bytes");
  if (line_.empty()) fail("empty line (expected one event per line)");
  std::string error;
  Event event;
  if (!decode_event(line_, &event, &error)) fail(error);
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
