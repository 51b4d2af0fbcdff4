// ExclusiveOwnershipChecker (server truth): after every script execution the
// lock hash has at most one owner field. Reports each time a (server, lock)
// goes from <= 1 owner to several, naming the owners and the script that did
// it. Memory: one flag per (server, lock) currently over-owned.
#pragma once

#include <set>
#include <string>
#include <utility>

#include "properties/checker.h"

namespace locksim {

class ExclusiveOwnershipChecker : public Checker {
 public:
  using Checker::Checker;
  std::string_view name() const override { return property::kExclusiveOwnership; }
  void on_event(const Event& e) override;

 private:
  std::set<std::pair<int, std::string>> over_owned_;
};

}  // namespace locksim
