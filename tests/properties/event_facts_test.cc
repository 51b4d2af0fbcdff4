// EventFacts (properties/event_facts.h) must answer what the string
// comparisons it replaced in the checkers answered, for any script and
// reply a trace may hold (an event's op is typed: tests/traces/op_test.cc): known names, near misses (a byte changed, cut or
// added), and arbitrary strings. The reference predicates below are spelled
// as the checkers spelled them before.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <charconv>
#include <string>
#include <vector>

#include "model/script_call.h"
#include "properties/event_facts.h"

namespace locksim {
namespace {

const std::vector<std::string> kKnownScripts = {
    "rlock_acquire", "rlock_release", "rlock_renew",         "rlock_force_release", "fair_acquire",
    "fair_try_once", "fair_release",  "fair_acquire_failed", "fair_force_release",  "fair_x",
    "x_acquire",     "_release",      "fair_",               ""};
const std::vector<std::string> kKnownReplies = {"nil", "0", "1", "-1", "29752", "-2", "+1", "01", "1.5", "ERR x",
                                                "9223372036854775808", "9223372036854775807",
                                                "-9223372036854775808", "-9223372036854775809",
                                                "999999999999999999", "-999999999999999999", "-", "--1", "-0",
                                                "1 ", ""};

// A known name, the same name changed by one byte (or cut, or longer), or any string.
rc::Gen<std::string> name_like(const std::vector<std::string>& known) {
  return rc::gen::oneOf(
      rc::gen::elementOf(known),
      rc::gen::map(rc::gen::tuple(rc::gen::elementOf(known), rc::gen::inRange(0, 64), rc::gen::inRange(0, 3),
                                  rc::gen::elementOf(std::string("_aflnrst01-x"))),
                   [](const std::tuple<std::string, int, int, char>& t) {
                     std::string s = std::get<0>(t);
                     const auto at = static_cast<size_t>(std::get<1>(t));
                     switch (std::get<2>(t)) {
                       case 0: if (!s.empty()) s[at % s.size()] = std::get<3>(t); break;
                       case 1: if (!s.empty()) s.erase(at % s.size(), 1); break;
                       default: s.insert(s.empty() ? 0 : at % (s.size() + 1), 1, std::get<3>(t)); break;
                     }
                     return s;
                   }),
      rc::gen::string<std::string>());
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

RC_GTEST_PROP(EventFacts, AnswerLikeTheStringComparisons, ()) {
  Event e;
  e.kind = EventKind::Script;
  e.script = *name_like(kKnownScripts);
  const std::string reply = *name_like(kKnownReplies);
  e.reply = EventReply::parse(reply);  // as the trace reader reads "r"
  const EventFacts f = facts_of(e);

  for (ScriptKind kind : all_script_kinds()) RC_ASSERT(f.script_is(kind) == (e.script == script_name(kind)));
  RC_ASSERT(f.granting_script() ==
            (e.script == "rlock_acquire" || e.script == "fair_acquire" || e.script == "fair_try_once"));
  RC_ASSERT(f.fair_poll() == (e.script == "fair_acquire" || e.script == "fair_try_once"));
  RC_ASSERT(f.release_script() == (e.script == "rlock_release" || e.script == "fair_release"));
  RC_ASSERT(f.fair_prefix == (e.script.rfind("fair_", 0) == 0));
  RC_ASSERT(f.acquire_suffix == ends_with(e.script, "_acquire"));
  RC_ASSERT(f.try_once_suffix == ends_with(e.script, "_try_once"));
  RC_ASSERT(f.renew_suffix == ends_with(e.script, "_renew"));
  RC_ASSERT(f.release_suffix == ends_with(e.script, "_release"));

  // A reply's text is an integer only in the text std::to_string writes
  // (what a Reply gives; "+1", "01" and "-0" are no integer replies).
  RC_ASSERT(f.reply_nil == (reply == "nil"));
  int64_t value = 0;
  const char* end = reply.data() + reply.size();
  const auto [ptr, ec] = std::from_chars(reply.data(), end, value);
  const bool integer = !reply.empty() && ec == std::errc() && ptr == end && std::to_string(value) == reply;
  RC_ASSERT(f.reply_integer.has_value() == integer);
  if (integer) RC_ASSERT(*f.reply_integer == value);
  RC_ASSERT(f.reply_is(0) == (integer && value == 0));
  RC_ASSERT(f.reply_is(1) == (integer && value == 1));
}

TEST(EventFacts, KnownNames) {
  Event e;
  e.script = "fair_try_once";
  e.reply = EventReply::parse("-2");
  const EventFacts f = facts_of(e);
  EXPECT_EQ(f.script, ScriptKind::FairTryOnce);
  EXPECT_TRUE(f.fair_poll());
  EXPECT_TRUE(f.fair_prefix);
  EXPECT_TRUE(f.try_once_suffix);
  EXPECT_FALSE(f.reply_nil);
  EXPECT_EQ(f.reply_integer, -2);

  e.script = "fair_x";
  e.reply = EventReply::parse("+1");
  const EventFacts g = facts_of(e);
  EXPECT_FALSE(g.script.has_value());
  EXPECT_TRUE(g.fair_prefix);
  EXPECT_FALSE(g.reply_integer.has_value());
}

}  // namespace
}  // namespace locksim
