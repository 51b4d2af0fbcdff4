// ViolationChoice: which violation of a trace a command is about, as
// `--property P` and `--violation N` say (timeline, shrink; check and
// replay list the violations of --property P only).
//
// Contract:
//  - validate_violation_choice(): the flags as typed into a choice; an
//    unknown property is a UsageError naming the properties there are.
//  - of_interest(): the violations a choice counts, in the checkers' order:
//    those of its property when one is named (an advisory one, busy_poll,
//    only so), else every violation of a property that is not advisory.
//    `--violation N` counts these, never an advisory report it did not ask
//    for.
//  - chosen(): the N-th of them (1: the first), or a UsageError saying how
//    many there are, naming the trace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "properties/violation.h"

namespace locksim::cli {

struct ViolationChoice {
  std::string property;  // empty: any property that is not advisory
  int64_t nth = 0;       // 1-based; 0: not given
};

ViolationChoice validate_violation_choice(const std::string& property, int64_t nth);

// The --property option's check (CLI11): a property's name, never empty or
// unknown (one line, exit 2, naming the properties there are).
CLI::Validator property_name();

std::vector<Violation> of_interest(const std::vector<Violation>& all, const ViolationChoice& choice);

// `nth` 0 counts as 1.
Violation chosen(const std::vector<Violation>& all, const ViolationChoice& choice, const std::string& trace);

// "--violation 2 --property fifo_fairness" (what was asked, for messages).
std::string choice_text(const ViolationChoice& choice);
// "violation 2", "violation 2 of fifo_fairness" (for titles).
std::string ordinal_text(const ViolationChoice& choice);

}  // namespace locksim::cli
