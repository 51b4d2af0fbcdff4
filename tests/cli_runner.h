// Test helpers for the CLI tests: run the built `locksim` binary
// (LOCKSIM_CLI_PATH) through the shell and return its exit code and output;
// read back the files it wrote. Header-only, for tests only.
#pragma once

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

// Runs `command` through the shell as a person would paste it (in `dir`
// when given), its exit code and output.
inline CliRun run_shell(const std::string& command, const std::string& dir = "", Stderr err = Stderr::Merge) {
  CliRun r;
  const std::string full = (dir.empty() ? "" : "cd '" + dir + "' && ") + command +
                           (err == Stderr::Merge ? " 2>&1" : " 2>/dev/null");
  FILE* p = ::popen(full.c_str(), "r");
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
  std::filesystem::path operator/(const std::string& name) const { return std::filesystem::path(dir_) / name; }

 private:
  std::string dir_;
};

// Runs `campaign` as shards 0/n .. n-1/n, shard i into shard_dirs[i], then
// `locksim merge` of them all into `merged`: the merge's run, or the first
// shard's that exited 2 (bad input).
inline CliRun run_shards_and_merge(const std::string& campaign, const std::vector<std::filesystem::path>& shard_dirs,
                                   const std::filesystem::path& merged) {
  std::string all;
  for (size_t i = 0; i < shard_dirs.size(); ++i) {
    const CliRun shard = run_locksim(campaign + " --shard " + std::to_string(i) + "/" +
                                     std::to_string(shard_dirs.size()) + " --out " + shard_dirs[i].string());
    if (shard.exit_code == 2) return shard;
    all += " " + shard_dirs[i].string();
  }
  return run_locksim("merge" + all + " --out " + merged.string());
}

inline int line_count(const std::string& s) {
  int lines = 0;
  for (char c : s) lines += c == '\n';
  return lines;
}

}  // namespace locksim::testing
