// impl/mutant.h: --mutant is read once into a Mutant; every mutant comes back
// by its name, and a design variant or an unknown name is refused with a
// message that says what to do.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "impl/mutant.h"

namespace locksim {
namespace {

std::string refusal(const std::string& name) {
  try {
    parse_mutant(name);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(Mutant, EveryMutantIsReadBackByItsName) {
  EXPECT_TRUE(parse_mutant("none").none());
  EXPECT_TRUE(parse_mutant("").none());
  EXPECT_EQ(Mutant().name(), "none");
  int count = 0;
  for (ClientMutant m : all_client_mutants()) {
    if (m == ClientMutant::None) continue;
    const Mutant parsed = parse_mutant(client_mutant_name(m));
    EXPECT_EQ(parsed, Mutant::of(m));
    EXPECT_EQ(parsed.client(), m);
    EXPECT_EQ(parsed.script(), ModelVariant::Correct);
    EXPECT_FALSE(parsed.none());
    EXPECT_EQ(parsed.name(), client_mutant_name(m));
    ++count;
  }
  for (ModelVariant v : mutant_variants()) {
    const Mutant parsed = parse_mutant(variant_name(v));
    EXPECT_EQ(parsed.script(), v);
    EXPECT_EQ(parsed.client(), ClientMutant::None);
    EXPECT_EQ(parsed.name(), variant_name(v));
    ++count;
  }
  EXPECT_EQ(count, 18);  // the mutants `locksim mutants` runs (watchdog_not_cancelled on two lock kinds)
}

TEST(Mutant, DesignVariantsAndUnknownNamesAreRefused) {
  EXPECT_EQ(refusal("fair_wait_for_head"),
            "'fair_wait_for_head' is a design variant, not a mutant: run it with --scripts "
            "impl/variants/fair_wait_for_head");
  const std::string unknown = refusal("bogus");
  EXPECT_EQ(unknown.rfind("unknown mutant 'bogus' (watchdog_not_cancelled, ", 0), 0u) << unknown;
  EXPECT_NE(unknown.find("fair_ttl_from_deadline"), std::string::npos) << unknown;
  EXPECT_EQ(unknown.find("fair_wait_for_head"), std::string::npos) << unknown;
  EXPECT_EQ(refusal("correct").rfind("unknown mutant 'correct'", 0), 0u);  // the correct scripts are no mutant
}

}  // namespace
}  // namespace locksim
