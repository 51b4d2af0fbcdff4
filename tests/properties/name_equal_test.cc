// same_name agrees with std::string's == on every kind of pair: the checkers
// use it in place of == when scanning fair lines.
#include "properties/name_equal.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace locksim {
namespace {

TEST(SameName, AgreesWithStringEquality) {
  const std::vector<std::string> names = {
      "",
      "a",
      "lsim:L0",
      "lsim:L1",
      "lsim:L10",
      "1b45ddfa-8a84-cc2c-c5aa-67a4d5b87650:3",
      "1b45ddfa-8a84-cc2c-c5aa-67a4d5b87650:4",  // same first 8 bytes, differs at the end
      "1b45ddfb-8a84-cc2c-c5aa-67a4d5b87650:3",  // differs in the first 8 bytes
      "1b45ddfa-8a84-cc2c-c5aa-67a4d5b87650:31",
      std::string("ab\0cd", 5),
      std::string("ab\0ce", 5),
  };
  for (const std::string& a : names) {
    for (const std::string& b : names) {
      EXPECT_EQ(same_name(a, b), a == b) << "'" << a << "' vs '" << b << "'";
    }
  }
}

TEST(SameName, ComparesContentNotStorage) {
  const std::string owner = "698e25b0-9b29-57c2-5395-3a548e4d66fd:3";
  const std::string copy = owner;
  EXPECT_TRUE(same_name(owner, copy));
  EXPECT_FALSE(same_name(owner, owner.substr(0, owner.size() - 1)));
}

}  // namespace
}  // namespace locksim
