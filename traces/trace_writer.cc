#include "traces/trace_writer.h"

#include <cassert>

namespace locksim {

TraceWriter::TraceWriter(std::ostream& out, const TraceHeader& header, std::string name)
    : out_(&out), name_(std::move(name)) {
  write_line(encode_header(header));
}

TraceWriter::TraceWriter(const std::string& path, const TraceHeader& header)
    : file_(std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc)), name_(path) {
  if (!*file_) throw TraceError(path + ": cannot create trace file");
  out_ = file_.get();
  write_line(encode_header(header));
}

TraceWriter::~TraceWriter() {
  try {
    close();
  } catch (const TraceError&) {
    // Destructors must not throw; call close() to see write errors.
  }
}

void TraceWriter::write_line(const std::string& line) {
  assert(!closed_);
  out_->write(line.data(), static_cast<std::streamsize>(line.size()));
  out_->put('\n');
}

void TraceWriter::write(const Event& event) {
  assert(!last_id_ || event.id > *last_id_);  // history order
  last_id_ = event.id;
  write_line(encode_event(event));
  ++events_written_;
}

void TraceWriter::close() {
  if (closed_) return;
  closed_ = true;
  out_->flush();
  const bool ok = static_cast<bool>(*out_);
  if (file_) file_->close();
  if (!ok || (file_ && file_->fail())) throw TraceError(name_ + ": error writing trace");
}

}  // namespace locksim
