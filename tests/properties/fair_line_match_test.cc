// The fair-line mirror's two ways of matching a changed line (exact mode,
// FairLineMirror::LineMatching): the fast path, which recognises heads
// dropped and newcomers appended and updates the line in place, must judge
// every script exactly as the general search does. RapidCheck drives both
// mirrors with the same fair scripts, whose lines change the usual way (heads
// dropped, deadlines lowered, newcomers appended) or any way at all
// (shuffles, duplicate owners, a middle waiter leaving), and compares every
// result after every event.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "properties/fair_line.h"
#include "traces/event.h"

namespace locksim {
namespace {

// Owner ids shaped like the clients' ("<uuid>:<task>"): one length, some
// sharing their first 8 bytes, so both the quick and the full comparison run.
std::string owner_name(int n) {
  const std::string uuid = (n % 2 == 0 ? "5f0c2d1e" : "5f0c2d1f") + std::string("-9a7b-4c1d-8e2f-") +
                           std::to_string(100000000000 + n);
  return uuid + ":1";
}

using Matching = FairLineMirror::LineMatching;

void expect_same_waiter(const FairLineMirror::Waiter& a, const FairLineMirror::Waiter& b) {
  RC_ASSERT(a.owner == b.owner);
  RC_ASSERT(a.client == b.client);
  RC_ASSERT(a.enqueue_event == b.enqueue_event);
  RC_ASSERT(a.enqueue_us == b.enqueue_us);
  RC_ASSERT(a.deadline_lo_ms == b.deadline_lo_ms);
  RC_ASSERT(a.deadline_hi_ms == b.deadline_hi_ms);
  RC_ASSERT(a.op_id == b.op_id);
  RC_ASSERT(a.maybe_purged == b.maybe_purged);
  RC_ASSERT(a.maybe_phantom == b.maybe_phantom);
}

void expect_same_waiters(const std::vector<FairLineMirror::Waiter>& a, const std::vector<FairLineMirror::Waiter>& b) {
  RC_ASSERT(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) expect_same_waiter(a[i], b[i]);
}

// The next line from `line`: mostly the usual change, sometimes any.
std::vector<LineEntry> next_line(const std::vector<LineEntry>& line, int64_t now_ms) {
  std::vector<LineEntry> next = line;
  const int change = *rc::gen::inRange(0, 10);
  if (change < 7) {
    // Usual: drop up to 3 heads, maybe lower every deadline, append up to 2.
    const size_t drop = std::min(next.size(), static_cast<size_t>(*rc::gen::inRange(0, 4)));
    next.erase(next.begin(), next.begin() + static_cast<std::ptrdiff_t>(drop));
    if (*rc::gen::arbitrary<bool>()) {
      const double lower_ms = *rc::gen::inRange(0, 5000);
      for (LineEntry& entry : next)
        if (entry.deadline_ms) *entry.deadline_ms -= lower_ms;
    }
    if (*rc::gen::inRange(0, 4) == 0 && !next.empty()) next.pop_back();  // the tail leaves
  } else if (change < 9 && !next.empty()) {
    // A waiter leaves from anywhere, or the line is shuffled.
    if (*rc::gen::arbitrary<bool>()) {
      next.erase(next.begin() + *rc::gen::inRange<std::ptrdiff_t>(0, static_cast<std::ptrdiff_t>(next.size())));
    } else {
      for (size_t i = next.size(); i > 1; --i)
        std::swap(next[i - 1], next[static_cast<size_t>(*rc::gen::inRange<size_t>(0, i))]);
    }
  }
  const int newcomers = *rc::gen::inRange(0, 3);
  for (int i = 0; i < newcomers; ++i) {
    // From a small pool: a newcomer may already be in line (a duplicate).
    LineEntry entry{owner_name(*rc::gen::inRange(0, 12)), static_cast<double>(now_ms + *rc::gen::inRange(1, 60'000))};
    if (*rc::gen::inRange(0, 20) == 0) entry.deadline_ms.reset();  // a historical bug: no deadline
    next.push_back(entry);
  }
  return next;
}

RC_GTEST_PROP(FairLineMatching, FastMatchingJudgesLikeTheSearch, ()) {
  FairLineMirror fast(1000, 1000, Matching::Fast);
  FairLineMirror search(1000, 1000, Matching::Search);
  const int scripts = *rc::gen::inRange(1, 60);
  std::vector<LineEntry> line;
  int64_t now_ms = 1'000'000;
  const std::vector<std::string> kinds = {"fair_acquire", "fair_try_once", "fair_release", "fair_force_release",
                                          "fair_acquire_failed"};
  for (int i = 0; i < scripts; ++i) {
    now_ms += *rc::gen::inRange(0, 3000);
    Event e;
    e.id = static_cast<uint64_t>(i + 1);
    e.kind = EventKind::Script;
    e.true_us = now_ms * 1000;
    const int client = *rc::gen::inRange(0, 12);
    e.client = client;
    e.owner.assign(owner_name(client));
    e.lock.assign("L");
    e.op_id = static_cast<uint64_t>(100 + i);
    e.script = *rc::gen::elementOf(kinds);
    e.local_ms = now_ms + *rc::gen::inRange(-5, 5);
    e.server_ms = now_ms;
    e.wait_ms = 5000;
    e.lease_ms = 30000;
    e.reply = EventReply::parse(*rc::gen::elementOf(std::vector<std::string>{"nil", "0", "1", "2400"}));
    if (*rc::gen::arbitrary<bool>()) e.holders_after = {e.owner};
    line = next_line(line, now_ms);
    e.line_known = true;
    e.line_after = line;
    const auto grant_fast = fast.on_event(e);
    const auto grant_search = search.on_event(e);
    RC_ASSERT(grant_fast.has_value() == grant_search.has_value());
    if (grant_fast) {
      RC_ASSERT(grant_fast->owner == grant_search->owner);
      expect_same_waiters(grant_fast->skipped, grant_search->skipped);
    }
    expect_same_waiters(fast.purged(), search.purged());
    RC_ASSERT(fast.stale_head().has_value() == search.stale_head().has_value());
    if (fast.stale_head()) expect_same_waiter(*fast.stale_head(), *search.stale_head());
    RC_ASSERT(fast.rewritten().has_value() == search.rewritten().has_value());
    if (fast.rewritten()) expect_same_waiter(*fast.rewritten(), *search.rewritten());
    RC_ASSERT(fast.refused_free_lock() == search.refused_free_lock());
    RC_ASSERT(fast.owners_unique("L") == search.owners_unique("L"));
    RC_ASSERT(fast.line_version("L") == search.line_version("L"));
    RC_ASSERT(fast.line("L") != nullptr && search.line("L") != nullptr);
    expect_same_waiters(*fast.line("L"), *search.line("L"));
  }
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

// A line that names an owner twice keeps saying so when both entries move
// on from distinct places (the rebuild once saw only copies and newcomers,
// and called such a line unique: liveness then trusted a waiter's place).
TEST(FairLineMatching, ALineWithAnOwnerTwiceStaysNotUnique) {
  for (const Matching matching : {Matching::Fast, Matching::Search}) {
    FairLineMirror mirror(1000, 1000, matching);
    const std::string a = owner_name(1);
    const std::string b = owner_name(2);
    auto script = [&](uint64_t id, std::vector<LineEntry> line) {
      Event e;
      e.id = id;
      e.kind = EventKind::Script;
      e.true_us = static_cast<int64_t>(id) * 1'000'000;
      e.client = 1;
      e.owner.assign(a);
      e.lock.assign("L");
      e.script = "fair_acquire";
      e.reply = EventReply::of_int(2400);
      e.local_ms = static_cast<int64_t>(id) * 1000;
      e.wait_ms = 5000;
      e.line_known = true;
      e.line_after = std::move(line);
      mirror.on_event(e);
    };
    script(1, {{a, 9000.0}, {b, 14000.0}});
    EXPECT_TRUE(mirror.owners_unique("L"));
    script(2, {{a, 9000.0}, {b, 14000.0}, {a, 19000.0}});  // a twice: a copy
    EXPECT_FALSE(mirror.owners_unique("L"));
    script(3, {{a, 8000.0}, {b, 13000.0}, {a, 18000.0}});  // both from their own places
    EXPECT_FALSE(mirror.owners_unique("L"));
    script(4, {{b, 13000.0}, {a, 18000.0}});  // the first a left: unique again
    EXPECT_TRUE(mirror.owners_unique("L"));
  }
}

}  // namespace
}  // namespace locksim
