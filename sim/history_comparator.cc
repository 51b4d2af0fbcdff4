#include "sim/history_comparator.h"

#include <utility>

#include "traces/trace_format.h"

namespace locksim {

HistoryComparator::HistoryComparator(NextExpected next_expected, int version)
    : next_expected_(std::move(next_expected)), version_(version) {}

HistoryComparator::HistoryComparator(const std::vector<Event>& expected)
    : HistoryComparator(
          [&expected, next = size_t{0}](Event* event, std::string* line) mutable {
            if (next >= expected.size()) return false;
            *event = expected[next++];
            *line = encode_event(*event);
            return true;
          },
          kTraceVersion) {}

void HistoryComparator::mismatch_at(std::string expected_line, std::string actual_line) {
  mismatch_ = HistoryMismatch{index_, std::move(expected_line), std::move(actual_line)};
  if (sim_ != nullptr) sim_->stop();
}

void HistoryComparator::on_event(const Event& actual) {
  if (mismatch_) return;
  Event expected;
  std::string expected_line;
  if (!next_expected_(&expected, &expected_line)) {
    mismatch_at("<end of trace>", encode_event(actual));
    return;
  }
  const Event as_recorded = event_as_version(actual, version_);
  if (!(expected == as_recorded)) {
    mismatch_at(std::move(expected_line), encode_event(as_recorded));
    return;
  }
  ++index_;
}

void HistoryComparator::finish() {
  if (mismatch_) return;
  Event extra;
  std::string extra_line;
  if (next_expected_(&extra, &extra_line)) mismatch_at(std::move(extra_line), "<end of run>");
}

}  // namespace locksim
