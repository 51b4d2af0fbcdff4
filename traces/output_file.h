// OutputFile: writes a file so that it appears under its name complete or
// not at all, and never replaces a file the command is reading.
//
// The bytes go to a temporary file in the destination's directory: an
// unnamed one (Linux O_TMPFILE) where the file system allows it, else a
// hidden ".<name>.tmp-<pid>-<n>". commit() flushes it and renames it over
// the destination in one step (rename(2) is atomic within a directory).
// Until then the destination is untouched. Destroyed without commit() (an
// exception, a failed check) it removes the temporary file; an unnamed one
// disappears with the process even on SIGKILL, so no exit path leaves a
// partial file under either name.
//
// Streams: "-" is standard output. A path that exists and is not a regular
// file is never renamed over: a character device or a FIFO (also through a
// symbolic link: /dev/stdout, /dev/null, /dev/fd/N, a named pipe) is written
// through directly (commit() then only flushes; what was written stays); a
// FIFO with no reader is an error, never a hang. Anything else that is not
// a regular file (a symbolic link to a file or directory, a dangling link,
// a block device, a socket) is refused with OutputError.
//
// Every error throws OutputError whose message names the path:
//   "out.svg: cannot create the file: Permission denied".
// When the system refused a file the command may write (a read-only or full
// file system, no permission, an I/O error: anything but a missing
// directory), it is an OutputSystemError, which carries errno: the same
// command may succeed elsewhere (the CLI's exit 3, not 2).
// Every locksim output (traces, reports, timelines) is written through it.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace locksim {

struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct OutputSystemError : OutputError {
  OutputSystemError(const std::string& what, int error_number_) : OutputError(what), error_number(error_number_) {}
  int error_number;  // errno
};

class OutputFile {
 public:
  // Creates the temporary file (or opens the stream); throws OutputError if
  // `path` is empty, is a directory or another kind of file it must not
  // replace (above), or its directory cannot hold a new file.
  explicit OutputFile(std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Appends (buffered). Throws OutputError on a write error (disk full).
  void write(std::string_view bytes);
  // Flushes and returns the temporary file's descriptor, for a child process
  // to write into (its writes land after ours). Valid until commit().
  int flushed_fd();
  // Publishes the file under its name. Throws OutputError on failure, after
  // which nothing is left behind. Calling it twice is a programming error.
  void commit();

  const std::string& path() const { return path_; }
  bool committed() const { return committed_; }
  // Whether the output is written through (standard output, a device, a FIFO).
  bool is_stream() const { return stream_; }

 private:
  void flush();
  void discard() noexcept;

  std::string path_;
  std::string dir_;
  std::string temp_name_;  // named temporary file; empty while unnamed (O_TMPFILE)
  std::string buffer_;
  int fd_ = -1;
  bool committed_ = false;
  bool stream_ = false;
};

// True if both paths exist and name the same file (same device and inode,
// after following symbolic links): a hard link, a symlink or another
// spelling of the same path.
bool same_file(const std::string& a, const std::string& b);

// Whether `path` is "-" or names the file standard output writes to (e.g.
// /dev/stdout): a command then prints its own text on standard error.
bool is_standard_output(const std::string& path);

// Throws OutputError if `output` is the same file as any of `inputs`:
//   "refusing to write t.jsonl: it is an input of this command (t.jsonl)".
void refuse_output_over_input(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace locksim
