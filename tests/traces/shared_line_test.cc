// SharedLine: behaves as a value (a RapidCheck model test against a plain
// vector per copy), shares storage on copy, copies on write, and reuses its
// own storage when no other copy is left.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "traces/event.h"
#include "traces/shared_line.h"

namespace locksim {
namespace {

LineEntry entry(int i) {
  return LineEntry{"owner-with-a-long-uuid-0000000000-" + std::to_string(i),
                   i % 3 == 0 ? std::nullopt : std::optional<double>(1000.0 * i)};
}

TEST(SharedLine, ACopySharesAndAWriteCopiesFirst) {
  SharedLine a{entry(1), entry(2)};
  SharedLine b = a;
  EXPECT_TRUE(a.same_storage(b));
  EXPECT_FALSE(a.unique());
  b.push_back(entry(3));
  EXPECT_FALSE(a.same_storage(b));
  EXPECT_EQ(a.size(), 2u);  // a unchanged
  EXPECT_EQ(b.size(), 3u);
  EXPECT_TRUE(a.unique());
  EXPECT_TRUE(b.unique());
}

TEST(SharedLine, OwnStorageIsReusedWhenNoCopyIsLeft) {
  SharedLine a{entry(1), entry(2)};
  const LineEntry* storage = a.entries().data();
  {
    SharedLine b = a;
    EXPECT_NE(&b.overwrite(), &a.entries());  // shared: overwrite gets new entries
  }
  std::vector<LineEntry>& same = a.overwrite();  // the copy is gone: in place
  EXPECT_EQ(same.data(), storage);
  EXPECT_EQ(&a.edit(), &same);
}

TEST(SharedLine, EqualityIsByEntries) {
  SharedLine a{entry(1)};
  SharedLine b{entry(1)};
  EXPECT_FALSE(a.same_storage(b));
  EXPECT_EQ(a, b);
  b.push_back(entry(2));
  EXPECT_NE(a, b);
  SharedLine empty;
  SharedLine emptied{entry(1)};
  emptied.edit().clear();  // empty but holding storage
  EXPECT_EQ(empty, emptied);
  EXPECT_TRUE(emptied.empty());
}

TEST(SharedLine, EventsCompareTheirLinesByValue) {
  Event a;
  a.line_after = {entry(1), entry(2)};
  Event b = a;
  EXPECT_TRUE(a.line_after.same_storage(b.line_after));
  EXPECT_EQ(a, b);
  b.line_after = std::vector<LineEntry>{entry(1), entry(2)};
  EXPECT_FALSE(a.line_after.same_storage(b.line_after));
  EXPECT_EQ(a, b);
  b.line_after.edit()[1].deadline_ms = 5.0;
  EXPECT_NE(a, b);
  EXPECT_EQ(a.line_after[1], entry(2));
}

// Any sequence of copies and writes on a few SharedLines reads as the same
// sequence on plain vectors.
RC_GTEST_PROP(SharedLine, BehavesAsAValue, ()) {
  constexpr int kLines = 4;
  std::vector<SharedLine> shared(kLines);
  std::vector<std::vector<LineEntry>> plain(kLines);
  const int steps = *rc::gen::inRange(1, 60);
  for (int step = 0; step < steps; ++step) {
    const int i = *rc::gen::inRange(0, kLines);
    const int j = *rc::gen::inRange(0, kLines);
    switch (*rc::gen::inRange(0, 6)) {
      case 0:  // copy
        shared[i] = shared[j];
        plain[i] = plain[j];
        break;
      case 1: {  // append
        const int k = *rc::gen::inRange(0, 50);
        shared[i].push_back(entry(k));
        plain[i].push_back(entry(k));
        break;
      }
      case 2: {  // change an entry in place
        if (plain[i].empty()) break;
        const size_t at = static_cast<size_t>(*rc::gen::inRange<int>(0, static_cast<int>(plain[i].size())));
        shared[i].edit()[at].deadline_ms = 7.0 * step;
        plain[i][at].deadline_ms = 7.0 * step;
        break;
      }
      case 3: {  // overwrite whole
        const int n = *rc::gen::inRange(0, 5);
        std::vector<LineEntry>& out = shared[i].overwrite();
        out.resize(static_cast<size_t>(n));
        plain[i].resize(static_cast<size_t>(n));
        for (int k = 0; k < n; ++k) out[static_cast<size_t>(k)] = plain[i][static_cast<size_t>(k)] = entry(k + step);
        break;
      }
      case 4:  // clear
        shared[i].clear();
        plain[i].clear();
        break;
      default: {  // assign a vector
        std::vector<LineEntry> next{entry(step), entry(step + 1)};
        plain[i] = next;
        shared[i] = std::move(next);
        break;
      }
    }
    for (int k = 0; k < kLines; ++k) RC_ASSERT(shared[k].entries() == plain[k]);
  }
}

// A line read and dropped on another thread while the owner waits for it to
// be unique, then overwrites it in place (the trace reader's case; run it
// under -DLOCKSIM_TSAN=ON to check the fence).
TEST(SharedLine, AnotherThreadsLastCopyMakesItUnique) {
  SharedLine line{entry(1), entry(2), entry(3)};
  SharedLine copy = line;
  size_t seen = 0;
  std::thread reader([copy = std::move(copy), &seen]() mutable {
    for (const LineEntry& e : copy) seen += e.owner.size();
    copy.clear();
  });
  while (!line.unique()) std::this_thread::yield();
  line.overwrite()[0].owner = "changed";
  reader.join();
  EXPECT_EQ(seen, 3 * entry(1).owner.size());
  EXPECT_EQ(line[0].owner, "changed");
}

}  // namespace
}  // namespace locksim
