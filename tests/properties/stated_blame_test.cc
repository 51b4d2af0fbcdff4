// One violation, one sentence (properties/violation.h stated_blame): the
// checker's guess is printed only where the re-runs leave it standing, and
// always kept in JSON as "hypothesis".
#include <gtest/gtest.h>

#include <string>

#include "properties/violation.h"

namespace locksim {
namespace {

Violation guessed_pause_at(uint64_t event_id) {
  Violation v;
  v.property = property::kMutualExclusion;
  v.message = "believed holds overlap";
  v.set_blame({"client 2 paused 41 000 ms at event #" + std::to_string(event_id), {event_id}});
  return v;
}

CauseFault fault_at(FaultKind kind, uint64_t event_id) {
  CauseFault f;
  f.kind = kind;
  f.event_id = event_id;
  f.client = 2;
  return f;
}

TEST(StatedBlame, AGuessStandsUntilTheReRunsSpeak) {
  Violation v = guessed_pause_at(17);
  EXPECT_EQ(v.stated_blame(), v.blamed_fault);  // not searched
  v.cause.status = CauseStatus::Unconfirmed;
  EXPECT_EQ(v.stated_blame(), v.blamed_fault);
  EXPECT_NE(v.to_string().find("; blamed: client 2 paused"), std::string::npos) << v.to_string();
}

TEST(StatedBlame, AProofOfTheGuessedFaultKeepsIt) {
  Violation v = guessed_pause_at(17);
  v.cause.status = CauseStatus::Confirmed;
  v.cause.faults = {fault_at(FaultKind::Pause, 17)};
  EXPECT_EQ(v.stated_blame(), v.blamed_fault);
  EXPECT_NE(v.to_string().find("; blamed: "), std::string::npos);
}

TEST(StatedBlame, AProofOfAnotherFaultSilencesTheGuess) {
  Violation v = guessed_pause_at(17);
  v.cause.status = CauseStatus::Confirmed;
  v.cause.faults = {fault_at(FaultKind::LostReply, 40)};
  EXPECT_EQ(v.stated_blame(), "");
  const std::string text = v.to_string();
  EXPECT_EQ(text.find("blamed"), std::string::npos) << text;
  EXPECT_EQ(text.find("paused"), std::string::npos) << text;
  const nlohmann::json j = violation_to_json(v);
  EXPECT_EQ(j["blamed_fault"], "");
  EXPECT_EQ(j["hypothesis"], v.blamed_fault);
}

TEST(StatedBlame, AViolationNoPermittedFaultExplainsBlamesNone) {
  Violation v = guessed_pause_at(17);
  v.cause.status = CauseStatus::Persists;
  EXPECT_EQ(v.stated_blame(), "");
  const std::string text = v.to_string();
  EXPECT_EQ(text.find("blamed"), std::string::npos) << text;
  EXPECT_NE(text.find("unexplained"), std::string::npos) << text;
}

// A clock the guess blames stands beside a proven clock setup only.
TEST(StatedBlame, ABlamedClockNeedsAProvenClock) {
  Violation v;
  v.property = property::kFifoFairness;
  v.set_blame({"client 2's clock is 1 450 ms behind", {}});
  v.facts.blames_clock_setup = true;
  v.cause.status = CauseStatus::Confirmed;
  v.cause.faults = {fault_at(FaultKind::ClientClockSkew, 0)};
  EXPECT_EQ(v.stated_blame(), v.blamed_fault);
  v.cause.faults = {fault_at(FaultKind::LostReply, 37)};
  EXPECT_EQ(v.stated_blame(), "");
  EXPECT_EQ(v.to_string().find("clock"), std::string::npos) << v.to_string();
}

// A guess carries the fault events it blames, written in its sentence or
// not: beside a proof of another fault it is not printed; beside a proof of
// that fault it is.
TEST(StatedBlame, AGuessStandsOnlyBesideAProofOfTheFaultItBlames) {
  Violation v;
  v.property = property::kMutualExclusion;
  v.set_blame({"client 1 paused 38 044 ms > lease 30 000 ms", {}, {12}});
  EXPECT_EQ(v.facts.blamed_ids, std::vector<uint64_t>{});
  EXPECT_EQ(v.facts.blamed_fault_ids, std::vector<uint64_t>{12});
  v.cause.status = CauseStatus::Confirmed;
  v.cause.faults = {fault_at(FaultKind::Pause, 40)};  // another pause
  EXPECT_EQ(v.stated_blame(), "");
  EXPECT_EQ(v.to_string().find("38 044"), std::string::npos) << v.to_string();
  v.cause.faults = {fault_at(FaultKind::Pause, 12)};
  EXPECT_EQ(v.stated_blame(), v.blamed_fault);
}

// A guess that blames no fault event (a hold past its explicit lease) is not
// printed beside any proof.
TEST(StatedBlame, AGuessBlamingNoFaultEventIsNotPrintedBesideAProof) {
  Violation v;
  v.property = property::kMutualExclusion;
  v.set_blame({"client 1 kept a hold with explicit lease 3 000 ms for 9 000 ms"});
  v.cause.status = CauseStatus::NotSearched;
  EXPECT_EQ(v.stated_blame(), v.blamed_fault);
  v.cause.status = CauseStatus::Confirmed;
  v.cause.faults = {fault_at(FaultKind::LostReply, 37)};
  EXPECT_EQ(v.stated_blame(), "");
}

}  // namespace
}  // namespace locksim
