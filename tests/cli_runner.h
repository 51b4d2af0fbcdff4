// Test helpers for the CLI tests: run the built `locksim` binary
// (LOCKSIM_CLI_PATH) through the shell and return its exit code and output;
// read back the files it wrote. Header-only, for tests only.
#pragma once

#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace locksim::testing {

struct CliRun {
  int exit_code = -1;  // -1: did not exit normally
  std::string out;     // stdout, plus stderr when asked
};

enum class Stderr { Discard, Merge };

// Runs `[env] locksim <args>`.
inline CliRun run_locksim(const std::string& args, Stderr err = Stderr::Merge, const std::string& env = "") {
  CliRun r;
  const std::string command = env + " " + std::string(LOCKSIM_CLI_PATH) + " " + args +
                              (err == Stderr::Merge ? " 2>&1" : " 2>/dev/null");
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// The whole content of a file the command wrote ("" if it cannot be read).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A fresh directory under the system's temporary directory, removed with
// everything in it when the object goes.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "locksim-test") {
    std::string templ = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    dir_ = ::mkdtemp(templ.data());
  }
  ~TempDir() { std::filesystem::remove_all(dir_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path path() const { return dir_; }
  // A file or directory name inside it.
  std::string path(const std::string& name) const { return (std::filesystem::path(dir_) / name).string(); }

 private:
  std::string dir_;
};

inline int line_count(const std::string& s) {
  int lines = 0;
  for (char c : s) lines += c == '\n';
  return lines;
}

}  // namespace locksim::testing
