// A verdict never contradicts its own evidence (search/campaign.h
// agree_with_counterexamples): a seed's explained violation whose shrunk
// counterexample is unexplained is counted unexplained, in one line.
#include <gtest/gtest.h>

#include <string>

#include "search/campaign.h"

namespace locksim {
namespace {

Violation explained_pause() {
  Violation v;
  v.property = property::kMutualExclusion;
  v.message = "believed holds overlap";
  CauseFault pause;
  pause.kind = FaultKind::Pause;
  pause.event_id = 9;
  pause.client = 0;
  pause.duration_ms = 31'000;
  v.cause = Cause{CauseStatus::Confirmed, {pause}, 2, ""};
  return v;
}

CampaignResult one_explained_seed(SeedFailure* f, CauseStatus shrunk_status) {
  CampaignResult r;
  r.tally.explained = 1;
  r.tally.explained_by_kind["pause"] = 1;
  r.explained_seeds = 1;
  f->seed = 7;
  f->violations = {explained_pause()};
  Counterexample cx;
  cx.violation = f->violations[0];
  cx.violation.cause = Cause{shrunk_status, {}, 1, ""};
  if (shrunk_status == CauseStatus::Confirmed) cx.violation.cause = f->violations[0].cause;
  cx.events.resize(2);
  cx.trace_events = 2;
  f->shrunk = {cx};
  return r;
}

TEST(VerdictAgreement, AnExplainedSeedWhoseCounterexampleIsUnexplainedIsUnexplained) {
  SeedFailure f;
  CampaignResult r = one_explained_seed(&f, CauseStatus::Persists);
  agree_with_counterexamples(&r, &f);
  EXPECT_FALSE(f.violations[0].explained());
  EXPECT_EQ(r.tally.explained, 0u);
  EXPECT_EQ(r.tally.unexplained, 1u);
  EXPECT_TRUE(r.tally.explained_by_kind.empty());
  EXPECT_EQ(r.unexplained_seeds, 1);
  EXPECT_EQ(r.explained_seeds, 0);
  const std::string line = f.violations[0].to_string();
  EXPECT_NE(line.find("cause: unexplained"), std::string::npos) << line;
  EXPECT_NE(line.find("its shrunk counterexample (2 trace events) is unexplained"), std::string::npos) << line;
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
}

TEST(VerdictAgreement, AnExplainedCounterexampleChangesNothing) {
  for (CauseStatus status : {CauseStatus::Confirmed, CauseStatus::NotSearched}) {
    SeedFailure f;
    CampaignResult r = one_explained_seed(&f, status);
    const Violation before = f.violations[0];
    agree_with_counterexamples(&r, &f);
    EXPECT_EQ(f.violations[0], before);
    EXPECT_EQ(r.tally.explained, 1u);
    EXPECT_EQ(r.tally.unexplained, 0u);
    EXPECT_EQ(r.explained_seeds, 1);
  }
}

}  // namespace
}  // namespace locksim
