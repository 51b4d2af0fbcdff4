// Outputs never replace what they do not own (hardening, round 2, item 3,
// and the small items on `-`): as root, `run --trace /dev/stdout` once
// renamed its temporary file over /dev/stdout. Now a character device or a
// FIFO (also behind a link) is written through, `-` is standard output, and
// any other non-regular target (a link to a file, a dangling link) is
// refused with exit 2 and left as it was; `timeline` reads a stream (/dev/stdin,
// `-`) that it needs twice by keeping a copy.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::line_count;
using locksim::testing::read_file;
using locksim::testing::run_locksim;

class OutputTargets : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("locksim-output-targets-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

bool is_symlink_to_proc_fd1(const char* path) {
  struct stat st {};
  if (::lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) return false;
  return fs::read_symlink(path) == "/proc/self/fd/1";
}

TEST_F(OutputTargets, TraceToDevStdoutIsWrittenThroughAndDevStdoutStays) {
  ASSERT_TRUE(is_symlink_to_proc_fd1("/dev/stdout")) << "this machine's /dev/stdout is not the usual link";
  const auto r = run_locksim("run --seed 1 --duration-s 1 --trace /dev/stdout", locksim::testing::Stderr::Discard);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.rfind("{\"format\":\"locksim-trace\"", 0), 0u) << r.out.substr(0, 200);
  EXPECT_EQ(r.out.find("seed=1 clients="), std::string::npos) << "the summary line goes to stderr";
  EXPECT_TRUE(is_symlink_to_proc_fd1("/dev/stdout"));
  // The same bytes as a trace written to a file.
  ASSERT_EQ(run_locksim("run --seed 1 --duration-s 1 --trace " + path("t.jsonl")).exit_code, 0);
  EXPECT_EQ(r.out, read_file(path("t.jsonl")));
  const auto dash = run_locksim("run --seed 1 --duration-s 1 --trace -", locksim::testing::Stderr::Discard);
  EXPECT_EQ(dash.out, r.out);
  EXPECT_FALSE(fs::exists("-"));
}

TEST_F(OutputTargets, DeviceNodesStayDevices) {
  fs::create_symlink("/dev/null", path("null-link"));
  for (const std::string& target : {std::string("/dev/null"), path("null-link")}) {
    const auto r = run_locksim("run --seed 1 --duration-s 1 --trace " + target);
    EXPECT_EQ(r.exit_code, 0) << target << ": " << r.out;
  }
  struct stat st {};
  ASSERT_EQ(::lstat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_TRUE(fs::is_symlink(path("null-link")));
}

TEST_F(OutputTargets, LinksToFilesAreRefusedAndUntouched) {
  std::ofstream(path("precious")) << "keep me";
  fs::permissions(path("precious"), fs::perms::owner_read);
  fs::create_symlink(path("precious"), path("link.jsonl"));
  fs::create_symlink(path("nowhere"), path("dangling.svg"));
  const auto r = run_locksim("run --seed 1 --duration-s 1 --trace " + path("link.jsonl"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(line_count(r.out), 1) << r.out;
  EXPECT_NE(r.out.find("symbolic link"), std::string::npos) << r.out;
  ASSERT_EQ(run_locksim("run --seed 1 --duration-s 1 --trace " + path("t.jsonl")).exit_code, 0);
  const auto t = run_locksim("timeline " + path("t.jsonl") + " -o " + path("dangling.svg"));
  EXPECT_EQ(t.exit_code, 2) << t.out;
  EXPECT_NE(t.out.find("points nowhere"), std::string::npos) << t.out;
  EXPECT_TRUE(fs::is_symlink(path("link.jsonl")));
  EXPECT_TRUE(fs::is_symlink(path("dangling.svg")));
  EXPECT_FALSE(fs::exists(path("nowhere")));
  EXPECT_EQ(read_file(path("precious")), "keep me");
  EXPECT_EQ(fs::status(path("precious")).permissions() & fs::perms::all, fs::perms::owner_read);
}

// timeline --violation reads its input twice: from a pipe too, and `-o -`
// writes the picture to standard output (its own line to stderr).
TEST_F(OutputTargets, TimelineReadsAStreamOnceAndWritesToStandardOutput) {
  ASSERT_EQ(run_locksim("run --seed 7 --profile pauses --trace " + path("p.jsonl")).exit_code, 1);
  // The drawing's text (--format dot: no layout) is the same, apart from
  // the title's line, which names the input.
  auto named = [](const std::string& dot, const std::string& name) {
    std::string out;
    bool titled = false;
    for (size_t at = 0; at < dot.size();) {
      const size_t end = std::min(dot.find('\n', at), dot.size());
      const std::string line = dot.substr(at, end - at);
      const bool title = line.find("label=\"" + name + ": mutual_exclusion") != std::string::npos;
      titled = titled || title;
      out += title ? std::string("TITLE") : line;
      out += '\n';
      at = end + 1;
    }
    return titled ? out : std::string("no title naming ") + name;
  };
  const auto from_file = run_locksim("timeline --violation 1 " + path("p.jsonl") + " -o " + path("f.dot"));
  ASSERT_EQ(from_file.exit_code, 0) << from_file.out;
  const std::string expected = named(read_file(path("f.dot")), path("p.jsonl"));
  ASSERT_NE(expected, read_file(path("f.dot")));
  const auto from_pipe =
      run_locksim("timeline --violation 1 /dev/stdin -o " + path("p.dot") + " < " + path("p.jsonl"));
  ASSERT_EQ(from_pipe.exit_code, 0) << from_pipe.out;
  EXPECT_TRUE(named(read_file(path("p.dot")), "/dev/stdin") == expected);
  const auto to_stdout = run_locksim("timeline --violation 1 - -o - --format dot < " + path("p.jsonl"),
                                     locksim::testing::Stderr::Discard);
  ASSERT_EQ(to_stdout.exit_code, 0);
  EXPECT_TRUE(named(to_stdout.out, "-") == expected);
  // An SVG on standard output is a whole SVG.
  const auto svg = run_locksim("timeline --violation 1 - -o - --format svg < " + path("p.jsonl"),
                               locksim::testing::Stderr::Discard);
  ASSERT_EQ(svg.exit_code, 0);
  EXPECT_EQ(svg.out.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.out.find("</svg>"), std::string::npos);
  EXPECT_FALSE(fs::exists("-"));
}

}  // namespace
