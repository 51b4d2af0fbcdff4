#include "reports/run_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "reports/run_summary.h"
#include "reports/summary_check.h"
#include "traces/bounded_json.h"

namespace locksim {

namespace {

// Closes a descriptor on every exit path.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int release() {
    const int out = fd;
    fd = -1;
    return out;
  }
};

std::string why_not_regular(const struct stat& st) {
  if (S_ISDIR(st.st_mode)) return "is a directory";
  if (S_ISFIFO(st.st_mode)) return "is a FIFO";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "is a device";
  if (S_ISSOCK(st.st_mode)) return "is a socket";
  return "is not a regular file";
}

}  // namespace

std::string failure_trace_file(uint64_t seed) { return "failures/" + std::to_string(seed) + ".jsonl"; }

std::string shrunk_trace_file(uint64_t seed, const std::string& property, size_t nth) {
  return "failures/" + std::to_string(seed) + (nth == 0 ? "" : "." + property) + ".shrunk.jsonl";
}

std::string timeline_file(uint64_t seed, const std::string& property, size_t nth) {
  return "timelines/" + std::to_string(seed) + (nth == 0 ? "" : "." + property) + ".svg";
}

bool is_failure_file_name(std::string_view key, std::string_view name, uint64_t seed, std::string_view property) {
  // The first violated property's names (nth 0) or a later one's (nth 1).
  const std::string p(property);
  if (key == "trace") return name == failure_trace_file(seed);
  if (key == "shrunk_trace") return name == shrunk_trace_file(seed, p, 0) || name == shrunk_trace_file(seed, p, 1);
  if (key == "timeline") return name == timeline_file(seed, p, 0) || name == timeline_file(seed, p, 1);
  if (key == "counterexample_trace") {
    return is_failure_file_name("trace", name, seed, property) || is_failure_file_name("shrunk_trace", name, seed, property);
  }
  return false;
}

int open_run_file(const std::string& dir, const std::string& relative, uint64_t max_bytes) {
  const std::string shown = dir + "/" + relative;
  if (relative.empty() || relative.front() == '/' || relative.find('\0') != std::string::npos) {
    throw RunFileError(shown + ": not a file name inside the directory");
  }
  Fd at;
  at.fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (at.fd < 0) throw RunFileError(dir + ": cannot open the directory: " + std::strerror(errno));
  size_t from = 0;
  for (;;) {
    const size_t slash = relative.find('/', from);
    const std::string part = relative.substr(from, slash == std::string::npos ? std::string::npos : slash - from);
    if (part.empty() || part == "." || part == "..") throw RunFileError(shown + ": not a file name inside the directory");
    if (slash == std::string::npos) {
      Fd file;
      file.fd = ::openat(at.fd, part.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
      if (file.fd < 0) {
        throw RunFileError(shown + ": " + (errno == ELOOP ? std::string("is a symbolic link (not followed)")
                                                          : "cannot open: " + std::string(std::strerror(errno))));
      }
      struct stat st {};
      if (::fstat(file.fd, &st) != 0) throw RunFileError(shown + ": cannot stat: " + std::strerror(errno));
      if (!S_ISREG(st.st_mode)) throw RunFileError(shown + ": " + why_not_regular(st) + " (only regular files are read)");
      if (static_cast<uint64_t>(st.st_size) > max_bytes) {
        throw RunFileError(shown + ": " + std::to_string(st.st_size) + " bytes, more than the " +
                           std::to_string(max_bytes) + " this file may have");
      }
      const int flags = ::fcntl(file.fd, F_GETFL);
      if (flags >= 0) ::fcntl(file.fd, F_SETFL, flags & ~O_NONBLOCK);
      return file.release();
    }
    Fd next;
    next.fd = ::openat(at.fd, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next.fd < 0) {
      throw RunFileError(shown + ": " + part + "/ " +
                         (errno == ELOOP || errno == ENOTDIR ? std::string("is not a directory (links are not followed)")
                                                             : "cannot be opened: " + std::string(std::strerror(errno))));
    }
    std::swap(at.fd, next.fd);
    from = slash + 1;
  }
}

std::string read_run_file(const std::string& dir, const std::string& relative, uint64_t max_bytes) {
  Fd fd;
  fd.fd = open_run_file(dir, relative, max_bytes);
  std::string out;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw RunFileError(dir + "/" + relative + ": read error: " + std::strerror(errno));
    if (n == 0) break;
    out.append(buffer, static_cast<size_t>(n));
    // The file may grow while we read it: the bound holds for what is read.
    if (out.size() > max_bytes) throw RunFileError(dir + "/" + relative + ": grew past " + std::to_string(max_bytes) + " bytes");
  }
  return out;
}

nlohmann::json read_run_summary(const std::string& dir) {
  const std::string name = dir + "/" + kSummaryFileName;
  const std::string text = read_run_file(dir, kSummaryFileName, kMaxSummaryBytes);
  nlohmann::json summary;
  try {
    summary = parse_bounded_json(text);
  } catch (const JsonRefused& e) {
    throw RunFileError(name + ": " + e.what());
  } catch (const nlohmann::json::parse_error& e) {
    // The position only: the parser's own message quotes the bytes it read.
    throw RunFileError(name + ": not valid JSON (at byte " + std::to_string(e.byte) + ")");
  } catch (const nlohmann::json::exception& e) {
    throw RunFileError(name + ": not valid JSON (a number out of range)");
  }
  try {
    check_summary_json(summary, name);
  } catch (const std::runtime_error& e) {
    throw RunFileError(e.what());
  }
  return summary;
}

}  // namespace locksim
