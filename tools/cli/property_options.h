// The --properties P,... and --skip-property P options that campaign, check
// and run share, parsed once into a PropertySelection
// (properties/property_selection.h); a bad name is a UsageError naming it.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "properties/property_selection.h"
#include "properties/verdict_policy.h"
#include "tools/cli/commands.h"

namespace locksim::cli {

struct PropertyOptions {
  std::vector<std::string> only;  // --properties lists, as typed
  std::vector<std::string> skip;  // --skip-property lists, as typed

  // The selection; with `policy`, its fail_on narrowed to the selection (a
  // --fail-on of an unchecked property is refused).
  PropertySelection parse(VerdictPolicy* policy = nullptr, const std::vector<std::string>& fail_on = {}) const {
    try {
      const PropertySelection selection = PropertySelection::parse(only, skip);
      if (policy != nullptr) restrict_fail_on(policy, selection, fail_on);
      return selection;
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
};

inline void add_property_options(CLI::App* cmd, PropertyOptions* o) {
  cmd->add_option("--properties", o->only,
                  "check only these properties (comma-separated or repeated; all: every one); the others' checkers "
                  "do not run and fail nothing. Default: every property");
  cmd->add_option("--skip-property", o->skip,
                  "do not check this property (comma-separated or repeated), e.g. to reach a liveness failure "
                  "behind a fifo_fairness one");
}

}  // namespace locksim::cli
