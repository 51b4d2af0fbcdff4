// Review text: the words of the review timeline (reports/timeline_review.h)
// and their estimated widths, shared by its layout and its drawing.
//  - text_pt(): the width of a label in points, from its longest line's
//    character count (a UTF-8 sequence is one character) times a ratio of
//    the font size that is at least Helvetica's (or Liberation Sans's)
//    average, so a box sized from it always holds the text;
//  - numbers and times as the picture writes them ("1 843", "8.330 s",
//    "2nd"), lane names ("client 0", "redis 1", "line lsim:L1"), short
//    owners ("c3:1"), and the labels of recorded holds, leases and events.
// Every function is pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "properties/history_recording.h"
#include "traces/event.h"
#include "traces/owner_id.h"

namespace locksim::review {

// Helvetica averages about 0.55 of the font size per character; 0.6 keeps
// every label's box at least as wide as its text.
constexpr double kCharRatio = 0.6;
constexpr double kBoldRatio = 0.64;

double text_pt(const std::string& text, double size_pt, bool bold = false);
std::string num(double v);                       // "12.3": one decimal, for DOT
std::string grouped(int64_t n);                  // "1 843"
std::string run_s(int64_t true_us, int decimals = 3);  // "8.330 s" since the run began
std::string ordinal(size_t n);                   // "1st", "2nd", "11th", "23rd"

std::string client_lane(int c);                  // "client 3"
std::string server_lane(int s);                  // "redis 1"
std::string line_lane(const std::string& lock);  // "line lsim:L1"

// An owner id "<uuid>:<task>" as "c<client>:<task>" (its uuid's first 8
// characters when the client is unknown, -1).
std::string short_owner(const OwnerId& owner, int client);
std::string uuid_prefix(const OwnerId& owner);  // "0abd64d6…"
std::string signed_duration_ms(int64_t ms);          // "+1.5 s", "-250 ms"

// Words filled into lines of at most `width_chars` (a longer word is cut).
std::vector<std::string> wrap(const std::string& text, size_t width_chars);
// The number after `key` in a text the recording keeps (a poll's reply
// "33000"; "bound 33 000 ms" -> 33000), spaces between digit groups
// allowed; nullopt when absent. Violations' figures are Violation::facts.
std::optional<int64_t> number_after(const std::string& text, const std::string& key);

std::string hold_end_text(const RecordedHold& h);    // "unlock #12", "still held"
std::string lease_end_text(const RecordedLease& l);  // "deleted #9", "" while open
// "#81 fair_acquire c3:2 -> 2344": an event as a named mark says it.
std::string event_label(const Event& e, int64_t epoch_ms);

}  // namespace locksim::review
