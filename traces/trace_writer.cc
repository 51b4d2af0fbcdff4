#include "traces/trace_writer.h"

#include <cassert>

namespace locksim {

TraceWriter::TraceWriter(std::ostream& out, const TraceHeader& header, std::string name)
    : out_(&out), name_(std::move(name)) {
  write_line(encode_header(header));
}

TraceWriter::TraceWriter(const std::string& path, const TraceHeader& header) : name_(path) {
  try {
    file_ = std::make_unique<OutputFile>(path);
  } catch (const OutputSystemError& e) {
    throw TraceWriteError(std::string(e.what()) + " (cannot create trace file)");
  } catch (const OutputError& e) {
    throw TraceError(std::string(e.what()) + " (cannot create trace file)");
  }
  write_line(encode_header(header));
}

TraceWriter::~TraceWriter() {
  if (file_) return;  // not closed: the OutputFile discards the partial trace
  try {
    close();
  } catch (const TraceError&) {
    // Destructors must not throw; call close() to see write errors.
  }
}

void TraceWriter::write_line(const std::string& line) {
  assert(!closed_);
  if (file_) {
    try {
      file_->write(line);
      file_->write("\n");
    } catch (const OutputSystemError& e) {
      throw TraceWriteError(e.what());
    } catch (const OutputError& e) {
      throw TraceError(e.what());
    }
    return;
  }
  out_->write(line.data(), static_cast<std::streamsize>(line.size()));
  out_->put('\n');
}

void TraceWriter::write(const Event& event) {
  assert(!last_id_ || event.id > *last_id_);  // history order
  last_id_ = event.id;
  line_.clear();
  encode_event_to(&line_, event, lines_.repeats(event));
  write_line(line_);
  ++events_written_;
}

void TraceWriter::close() {
  if (closed_) return;
  closed_ = true;
  if (file_) {
    try {
      file_->commit();
    } catch (const OutputSystemError& e) {
      throw TraceWriteError(std::string(e.what()) + " (error writing trace)");
    } catch (const OutputError& e) {
      throw TraceError(std::string(e.what()) + " (error writing trace)");
    }
    return;
  }
  out_->flush();
  if (!*out_) throw TraceWriteError(name_ + ": error writing trace");
}

}  // namespace locksim
