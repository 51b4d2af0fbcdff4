// OwnerTable / OwnerName: one stored string per owner; names of one table
// are the same name exactly when they are the same pointer (is()), and ==
// compares the strings, also across tables. And the fair-line mirror names
// its waiters from the table it hands out names from, which the liveness
// checker relies on when it finds a waiter in a line by is().
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "properties/fair_line.h"
#include "properties/owner_table.h"
#include "tests/properties/history_builder.h"

namespace locksim {
namespace {

TEST(OwnerTable, InternsEachOwnerOnce) {
  OwnerTable table;
  const OwnerName a = table.intern("aaaaaaaa-0000:1");
  const OwnerName b = table.intern("bbbbbbbb-0000:1");
  const std::string again = "aaaaaaaa-0000:1";  // another buffer, same bytes
  const OwnerName a2 = table.intern(again);
  EXPECT_TRUE(a.is(a2));
  EXPECT_FALSE(a.is(b));
  EXPECT_EQ(&a.str(), &a2.str());
  EXPECT_EQ(a.str(), "aaaaaaaa-0000:1");
  EXPECT_EQ(table.size(), 2u);
  EXPECT_TRUE(a == a2);
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(a == std::string_view("aaaaaaaa-0000:1"));
  EXPECT_FALSE(a == std::string("aaaaaaaa-0000:2"));
}

TEST(OwnerTable, NamesStayPutAsTheTableGrows) {
  OwnerTable table;
  const OwnerName first = table.intern("first");
  const std::string* where = &first.str();
  for (int i = 0; i < 10000; ++i) table.intern("owner-" + std::to_string(i));
  EXPECT_EQ(&table.intern("first").str(), where);
  EXPECT_EQ(first.str(), "first");
}

TEST(OwnerTable, EqualityComparesStringsAcrossTables) {
  OwnerTable one;
  OwnerTable two;
  const OwnerName x1 = one.intern("x");
  const OwnerName x2 = two.intern("x");
  EXPECT_FALSE(x1.is(x2));  // is() is for names of one table only
  EXPECT_TRUE(x1 == x2);
  EXPECT_FALSE(x1 == two.intern("y"));
  EXPECT_TRUE(OwnerName().empty());
  EXPECT_TRUE(OwnerName() == OwnerName());
  EXPECT_TRUE(OwnerName() == one.intern(""));
}

TEST(OwnerTable, MirrorWaitersAreNamedFromTheTableItHandsOut) {
  testing::HistoryBuilder h;
  const std::string a = testing::owner_of(1);
  const std::string b = testing::owner_of(2);
  // Version 2 fair scripts: the server's line after each.
  auto with_line = [](Event& e, std::vector<LineEntry> line) {
    e.local_ms = e.true_us / 1000;
    e.line_known = true;
    e.line_after = std::move(line);
  };
  h.invoke(10, 1, "lock", 1, "L", 1000);
  with_line(h.script(11, 1, "fair_acquire", "1000", {"x:1"}, 1, 30000, 1000), {{a, 5000.0}});
  h.invoke(20, 2, "lock", 2, "L", 1000);
  with_line(h.script(21, 2, "fair_acquire", "1000", {"x:1"}, 2, 30000, 1000), {{a, 5000.0}, {b, 6000.0}});
  FairLineMirror mirror;
  for (const Event& e : h.events()) mirror.on_event(e);
  const FairLineMirror::Waiters* line = mirror.line("L");
  ASSERT_NE(line, nullptr);
  ASSERT_EQ(line->size(), 2u);
  EXPECT_TRUE((*line)[0].owner.is(mirror.owner_name(a)));
  EXPECT_TRUE((*line)[1].owner.is(mirror.owner_name(b)));
  EXPECT_FALSE((*line)[1].owner.is(mirror.owner_name(a)));
}

}  // namespace
}  // namespace locksim
