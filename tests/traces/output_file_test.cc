// OutputFile: a file appears under its name complete or not at all; nothing
// is left behind when it is not committed; an output that is an input (same
// file by any path) is refused. TraceWriter by path follows the same rule.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "traces/output_file.h"
#include "traces/trace_writer.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "locksim-output-XXXXXX").string();
    dir_ = ::mkdtemp(templ.data());
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  size_t entries() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++n;
    return n;
  }
  static std::string content(const std::string& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::string dir_;
};

TEST_F(OutputFileTest, AppearsOnlyOnCommit) {
  {
    OutputFile out(path("a.txt"));
    out.write("hello ");
    out.write(std::string(200'000, 'x'));  // past the buffer: bytes reach the disk before commit
    EXPECT_FALSE(fs::exists(path("a.txt")));
    out.commit();
    EXPECT_TRUE(out.committed());
  }
  EXPECT_EQ(content(path("a.txt")), "hello " + std::string(200'000, 'x'));
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFileTest, NotCommittedLeavesNothingAndKeepsTheOldFile) {
  std::ofstream(path("old.txt")) << "old";
  {
    OutputFile out(path("old.txt"));
    out.write(std::string(200'000, 'y'));
  }
  EXPECT_EQ(content(path("old.txt")), "old");
  EXPECT_EQ(entries(), 1u);
  {
    OutputFile out(path("new.txt"));
    out.write("partial");
  }
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFileTest, CommitReplacesAnExistingFile) {
  std::ofstream(path("r.txt")) << "old";
  OutputFile out(path("r.txt"));
  out.write("new");
  out.commit();
  EXPECT_EQ(content(path("r.txt")), "new");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFileTest, BadPathsAreNamed) {
  auto error = [](const std::string& p) -> std::string {
    try {
      OutputFile out(p);
    } catch (const OutputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error(""), "empty output file name");
  EXPECT_EQ(error(dir_), dir_ + ": is a directory (expected a file name)");
  EXPECT_EQ(error(dir_ + "/"), dir_ + "/: is a directory (expected a file name)");
  EXPECT_EQ(error(dir_ + "/missing/x.svg"), dir_ + "/missing/x.svg: cannot create the file: No such file or directory");
  EXPECT_EQ(entries(), 0u);
}

std::string error_of(const std::string& p) {
  try {
    OutputFile out(p);
  } catch (const OutputError& e) {
    return e.what();
  }
  return "";
}

// Links, devices and the like are never renamed over: a symbolic link to a
// file (the /etc/shadow case), a dangling link, a link to a directory are
// refused and stay as they were; so does what they point at.
TEST_F(OutputFileTest, LinksToFilesAreRefusedAndLeftAlone) {
  std::ofstream(path("target")) << "precious";
  fs::permissions(path("target"), fs::perms::owner_read | fs::perms::owner_write);
  fs::create_symlink(path("target"), path("link"));
  fs::create_symlink(path("nowhere"), path("dangling"));
  fs::create_directory(path("d"));
  fs::create_symlink(path("d"), path("dirlink"));
  EXPECT_EQ(error_of(path("link")), path("link") + ": is a symbolic link to a regular file; locksim never replaces it "
                                                   "(give a new file name, or - for standard output)");
  EXPECT_EQ(error_of(path("dangling")), path("dangling") + ": is a symbolic link that points nowhere; locksim never "
                                                           "replaces it (give a new file name, or - for standard output)");
  EXPECT_NE(error_of(path("dirlink")), "");
  EXPECT_TRUE(fs::is_symlink(path("link")));
  EXPECT_TRUE(fs::is_symlink(path("dangling")));
  EXPECT_TRUE(fs::is_symlink(path("dirlink")));
  EXPECT_EQ(content(path("target")), "precious");
  EXPECT_EQ(fs::status(path("target")).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(entries(), 5u);  // no temporary file either
}

// A character device is written through, never replaced: /dev/null stays a
// device, through a link too.
TEST_F(OutputFileTest, CharacterDevicesAreWrittenThrough) {
  fs::create_symlink("/dev/null", path("null"));
  for (const std::string& p : {std::string("/dev/null"), path("null")}) {
    OutputFile out(p);
    EXPECT_TRUE(out.is_stream());
    out.write(std::string(100'000, 'z'));
    out.commit();
    EXPECT_TRUE(out.committed());
  }
  struct stat st {};
  ASSERT_EQ(::lstat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_TRUE(fs::is_symlink(path("null")));
  EXPECT_EQ(entries(), 1u);
}

// A FIFO: written through while somebody reads; with no reader, an error at
// once instead of a hang.
TEST_F(OutputFileTest, FifosAreWrittenThroughOrRefusedWithoutAReader) {
  ASSERT_EQ(::mkfifo(path("pipe").c_str(), 0600), 0);
  EXPECT_EQ(error_of(path("pipe")), path("pipe") + ": cannot write through it: nobody reads the pipe");
  const int reader = ::open(path("pipe").c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  {
    OutputFile out(path("pipe"));
    out.write("through the pipe");
    out.commit();
  }
  char buffer[64] = {};
  EXPECT_EQ(::read(reader, buffer, sizeof buffer), 16);
  EXPECT_EQ(std::string(buffer), "through the pipe");
  ::close(reader);
  struct stat st {};
  ASSERT_EQ(::lstat(path("pipe").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

// "-" is standard output.
TEST_F(OutputFileTest, DashIsStandardOutput) {
  const int saved = ::dup(STDOUT_FILENO);
  ASSERT_GE(saved, 0);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  ::dup2(pipe_fds[1], STDOUT_FILENO);
  {
    OutputFile out("-");
    EXPECT_TRUE(out.is_stream());
    out.write("to stdout");
    out.commit();
  }
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  ::close(pipe_fds[1]);
  char buffer[64] = {};
  EXPECT_EQ(::read(pipe_fds[0], buffer, sizeof buffer), 9);
  ::close(pipe_fds[0]);
  EXPECT_EQ(std::string(buffer), "to stdout");
  EXPECT_EQ(entries(), 0u);
  EXPECT_FALSE(fs::exists("-"));
}

TEST_F(OutputFileTest, SameFileFollowsLinksAndSpellings) {
  std::ofstream(path("in.jsonl")) << "x";
  fs::create_symlink(path("in.jsonl"), path("sym.jsonl"));
  fs::create_hard_link(path("in.jsonl"), path("hard.jsonl"));
  EXPECT_TRUE(same_file(path("in.jsonl"), path("sym.jsonl")));
  EXPECT_TRUE(same_file(path("in.jsonl"), path("hard.jsonl")));
  EXPECT_TRUE(same_file(path("in.jsonl"), dir_ + "/./in.jsonl"));
  EXPECT_FALSE(same_file(path("in.jsonl"), path("other.jsonl")));  // does not exist
  EXPECT_THROW(refuse_output_over_input(path("sym.jsonl"), {path("a"), path("in.jsonl")}), OutputError);
  try {
    refuse_output_over_input(path("hard.jsonl"), {path("in.jsonl")});
  } catch (const OutputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "refusing to write " + path("hard.jsonl") + ": it is an input of this command (" + path("in.jsonl") + ")");
  }
  EXPECT_NO_THROW(refuse_output_over_input(path("new.jsonl"), {path("in.jsonl")}));
}

TEST_F(OutputFileTest, TraceWriterPublishesOnlyOnClose) {
  TraceHeader h;
  h.build = "b";
  h.backend = "model";
  Event e;
  {
    TraceWriter w(path("t.jsonl"), h);
    w.write(e);
    EXPECT_FALSE(fs::exists(path("t.jsonl")));
  }  // not closed: a cut-short run leaves no trace that looks finished
  EXPECT_EQ(entries(), 0u);
  {
    TraceWriter w(path("t.jsonl"), h);
    w.write(e);
    w.close();
  }
  EXPECT_EQ(std::count(std::istreambuf_iterator<char>(*std::make_unique<std::ifstream>(path("t.jsonl"))),
                       std::istreambuf_iterator<char>(), '\n'),
            2);
  EXPECT_EQ(entries(), 1u);
}

}  // namespace
}  // namespace locksim
