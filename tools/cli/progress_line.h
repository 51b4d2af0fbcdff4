// ProgressLine: a long command's progress on stderr (campaign, explore): on
// a terminal one line, rewritten in place at most every 0.2 s; otherwise
// (a log, a pipe) a plain line every kPlainLineS seconds, so a short run
// prints none. end() closes the terminal line before anything else is
// printed.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace locksim::cli {

class ProgressLine {
 public:
  static constexpr double kPlainLineS = 10.0;
  ProgressLine() : tty_(::isatty(STDERR_FILENO) != 0), started_(std::chrono::steady_clock::now()) {}

  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }
  // Whether a line is due now (on a terminal, always for the `last` one).
  bool due(bool last = false) const {
    const double since_s = elapsed_s() - printed_s_;
    return tty_ ? (since_s >= 0.2 || last) : since_s >= kPlainLineS;
  }
  void print(const std::string& line) {
    printed_s_ = elapsed_s();
    if (tty_) {
      std::fprintf(stderr, "\r%s\033[K", line.c_str());  // \033[K: clear the rest of the old line
      open_ = true;
    } else {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stderr);
  }
  void end() {
    if (open_) std::fprintf(stderr, "\n");
    open_ = false;
  }

 private:
  bool tty_;
  std::chrono::steady_clock::time_point started_;
  double printed_s_ = 0;
  bool open_ = false;
};

}  // namespace locksim::cli
