// SpooledInput: an input file that a command reads more than once (e.g.
// timeline --violation reads a trace once to find the violation, then again
// to draw it). A regular file is simply opened again for every pass. Anything
// else (/dev/stdin, a pipe, a FIFO) can be read only once, so its bytes are
// first copied into an unnamed temporary file (O_TMPFILE under $TMPDIR or
// /tmp: it disappears with the process, however it ends), and every pass
// reads that copy from its start. "-" is standard input. Errors keep the
// name the user gave.
#pragma once

#include <istream>
#include <memory>
#include <string>

namespace locksim::cli {

class SpooledInput {
 public:
  // Throws UsageError (naming `path`) when it cannot be read or spooled.
  explicit SpooledInput(std::string path);
  ~SpooledInput();
  SpooledInput(const SpooledInput&) = delete;
  SpooledInput& operator=(const SpooledInput&) = delete;

  const std::string& name() const { return path_; }
  // A new stream positioned at the first byte; throws UsageError.
  std::unique_ptr<std::istream> open() const;

 private:
  std::string path_;
  int spool_fd_ = -1;  // the copy of a stream, or -1 for a regular file
};

}  // namespace locksim::cli
