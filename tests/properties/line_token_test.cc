// Event::line_token is a shortcut, never a verdict: a fair line named by a
// token the mirror already holds is not compared again, and a trace writer
// writes it as repeated unseen. These tests hold the producers to the
// contract (equal tokens, equal lines) and show that tokens change neither
// a checker's violations nor a trace's bytes, on a correct run and on runs
// of fair-lock mutants whose violations the mirror finds.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "model/variant.h"
#include "properties/checker_suite.h"
#include "properties/scenario_check.h"
#include "sim/model_backend.h"
#include "sim/run.h"
#include "sim/simulator.h"
#include "traces/event_sink.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace locksim {
namespace {

class KeepAll final : public EventSink {
 public:
  void on_event(const Event& e) override { events.push_back(e); }
  std::vector<Event> events;
};

Scenario fair_scenario(uint64_t seed, const std::string& profile) {
  Scenario s;
  s.seed = seed;
  s.clients = 12;
  s.locks = 2;
  s.lock_kind = ScenarioLockKind::Fair;
  s.profile = Profile::named(profile);
  s.duration_ms = 60'000;
  return s;
}

std::vector<Event> run_history(const Scenario& s, ModelVariant variant) {
  ModelBackend backend(s.servers, variant);
  KeepAll sink;
  Simulator sim(s, backend, sink);
  sim.run();
  return std::move(sink.events);
}

std::vector<Event> without_tokens(std::vector<Event> events) {
  for (Event& e : events) e.line_token = LineToken{};
  return events;
}

std::string violations_text(const std::vector<Event>& history) {
  std::string text;
  for (const Violation& v : check_history(history, default_check_config())) {
    text += v.property + " @" + std::to_string(v.detected_at_event) + ": " + v.message + " [" + v.blamed_fault + "]\n";
  }
  return text;
}

// Equal non-zero tokens name equal lines; returns how many events repeated
// a token seen before.
size_t check_token_contract(const std::vector<Event>& events) {
  std::map<uint64_t, const Event*> first_with;
  size_t repeats = 0;
  for (const Event& e : events) {
    if (e.line_token.value == 0) continue;
    EXPECT_TRUE(e.line_known) << "event #" << e.id;
    auto [it, inserted] = first_with.try_emplace(e.line_token.value, &e);
    if (inserted) continue;
    ++repeats;
    EXPECT_EQ(it->second->line_after, e.line_after) << "token " << e.line_token.value << " names two lines: events #"
                                                    << it->second->id << " and #" << e.id;
  }
  return repeats;
}

std::string trace_bytes(const Scenario& s, const std::vector<Event>& events) {
  std::ostringstream out;
  {
    TraceWriter writer(out, make_trace_header(s, "model"), "memory");
    for (const Event& e : events) writer.write(e);
    writer.close();
  }
  return out.str();
}

TEST(LineTokens, SimulatorNamesRepeatedLinesAlike) {
  const std::vector<Event> events = run_history(fair_scenario(7, "hostile"), ModelVariant::Correct);
  EXPECT_GT(check_token_contract(events), 100u);  // fair polls mostly leave the line as it was
}

TEST(LineTokens, CheckerViolationsDoNotDependOnTokens) {
  size_t mutant_violations = 0;
  for (ModelVariant variant : {ModelVariant::Correct, ModelVariant::FairNoStalePurge, ModelVariant::FairSameDeadline}) {
    for (const char* profile : {"none", "hostile"}) {
      const std::vector<Event> events = run_history(fair_scenario(28, profile), variant);
      const std::string with = violations_text(events);
      EXPECT_EQ(with, violations_text(without_tokens(events))) << variant_name(variant) << " " << profile;
      if (variant == ModelVariant::Correct && std::string(profile) == "none") {
        EXPECT_EQ(with, "");
      }
      if (variant != ModelVariant::Correct) mutant_violations += with.empty() ? 0 : 1;
    }
  }
  EXPECT_GT(mutant_violations, 0u) << "no mutant run had a violation: the comparison shows nothing";
}

TEST(LineTokens, TraceBytesDoNotDependOnTokensAndReadBackNamed) {
  const Scenario s = fair_scenario(1, "hostile");
  const std::vector<Event> events = run_history(s, ModelVariant::Correct);
  const std::string bytes = trace_bytes(s, events);
  EXPECT_EQ(bytes, trace_bytes(s, without_tokens(events)));
  EXPECT_NE(bytes.find("\"lr\":1"), std::string::npos);

  std::istringstream in(bytes);
  TraceReader reader(in, "memory");
  std::vector<Event> read;
  Event e;
  while (reader.next(e)) read.push_back(e);
  ASSERT_EQ(read.size(), events.size());
  EXPECT_EQ(read, events);  // tokens aside (they are not compared)
  EXPECT_GT(check_token_contract(read), 100u);
}

}  // namespace
}  // namespace locksim
