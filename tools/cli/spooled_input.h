// SpooledInput: an input file that a command reads more than once (e.g.
// timeline --violation reads a trace once to find the violation, then again
// to draw it). A regular file is simply opened again for every pass.
// Anything else (/dev/stdin, "-" for standard input, a pipe, a FIFO) can be
// read only once: the first pass reads the stream itself and copies every
// byte it takes into an unnamed temporary file (O_TMPFILE under $TMPDIR or
// /tmp: it disappears with the process, however it ends); a later pass
// first copies whatever the earlier ones left unread, then reads the copy
// from its start. So a bad stream fails the first pass as early as a file
// would (the reader's bounds apply; /dev/zero copies nothing past them),
// and errors keep the name the user gave.
#pragma once

#include <istream>
#include <memory>
#include <streambuf>
#include <string>

namespace locksim::cli {

class SpooledInput {
 public:
  // Throws UsageError (naming `path`) when it cannot be read.
  explicit SpooledInput(std::string path);
  ~SpooledInput();
  SpooledInput(const SpooledInput&) = delete;
  SpooledInput& operator=(const SpooledInput&) = delete;

  const std::string& name() const { return path_; }
  // A new stream positioned at the first byte; throws UsageError. Only one
  // stream from open() may be in use at a time.
  std::unique_ptr<std::istream> open();

 private:
  class TeeBuf;
  // Reads the rest of the stream into the copy.
  void drain();

  std::string path_;
  int in_fd_ = -1;     // the stream, until it has been read to its end
  int spool_fd_ = -1;  // the copy of a stream, or -1 for a regular file
  bool first_pass_ = true;
};

}  // namespace locksim::cli
