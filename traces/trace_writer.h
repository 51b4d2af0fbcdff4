// TraceWriter: streams a run's history into a trace (traces/trace_format.h).
// The header line is written on construction; each event is encoded and
// written at once, so memory stays bounded however long the run. Also an
// EventSink, so a run can stream into it directly.
//
// Contract: events must arrive with strictly increasing ids. close() flushes
// and throws TraceError (TraceWriteError when the system refused) if any
// write failed; it is idempotent. Writing after
// close() is a programming error.
// A file written by path goes through an OutputFile (traces/output_file.h):
// it appears under its name, complete, only on close(). A writer destroyed
// without close() (the run threw, was cut short) leaves no file, so a
// truncated trace never looks like a finished one. A stream writer's
// destructor just flushes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "traces/event.h"
#include "traces/event_sink.h"
#include "traces/line_memory.h"
#include "traces/output_file.h"
#include "traces/trace_format.h"

namespace locksim {

// The system refused the trace file (traces/output_file.h's
// OutputSystemError: a read-only or full file system, no permission): the
// same command may succeed elsewhere.
struct TraceWriteError : TraceError {
  using TraceError::TraceError;
};

class TraceWriter final : public EventSink {
 public:
  // Writes to `out`, which must outlive the writer; `name` appears in errors.
  TraceWriter(std::ostream& out, const TraceHeader& header, std::string name = "<stream>");
  // Will write the file at `path` (replacing it on close()); throws
  // TraceError if it cannot be created.
  TraceWriter(const std::string& path, const TraceHeader& header);
  ~TraceWriter() override;
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  void write(const Event& event);
  void on_event(const Event& event) override { write(event); }
  void close();

  uint64_t events_written() const { return events_written_; }

 private:
  void write_line(const std::string& line);

  std::unique_ptr<OutputFile> file_;  // set when the writer writes a file by path
  std::ostream* out_ = nullptr;
  std::string name_;
  uint64_t events_written_ = 0;
  std::optional<uint64_t> last_id_;
  bool closed_ = false;
  LineMemory lines_;  // a fair line is written only when it changed
  std::string line_;  // the event line being written (its storage is reused)
};

}  // namespace locksim
