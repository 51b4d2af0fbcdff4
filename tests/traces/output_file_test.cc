// OutputFile: a file appears under its name complete or not at all; nothing
// is left behind when it is not committed; an output that is an input (same
// file by any path) is refused. TraceWriter by path follows the same rule.
#include <gtest/gtest.h>
#include <stdlib.h>
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
