// The detail of an event ("d" in a trace): the one text field whose words
// carry facts. In memory those facts are typed (traces/event.h): why an
// operation ended (EndReason), a tryLock() without wait (once), an error
// reply the pack declares (error_declared), what a restart kept
// (persistence), which message a link lost (lost); Event::detail keeps
// only the rest, a note for people that no code compares. This is the one
// place that turns them into the trace's words and back.
//
// Contract: detail_text(e) is
//   Invoke         "once" when e.once
//   Fail, Info     "timeout", "crashed", "illegal monitor state" (e.reason)
//   Script         kDeclaredReplyDetail when e.error_declared
//   Fault          redis_restart: "persistence always" when e.persistence
//                  is Always; lost, delayed: e.lost.text()
// followed by e.detail (a space between the two when both are there; a
// lost message takes no note). read_detail_text(detail_text(e), &e2), with
// e2's kind and op those of e, gives e2 the same facts and note, and
// detail_text of what read_detail_text reads is the text it read, byte for
// byte, for every text (a text that is no fact's words is all note).
#pragma once

#include <string>
#include <string_view>

#include "traces/event.h"

namespace locksim {

std::string_view end_reason_text(EndReason reason);

// Appends the detail text of `e` to *out (see the contract).
void append_detail_text(const Event& e, std::string* out);
std::string detail_text(const Event& e);
// Whether `e` has any detail text; whether any of it is a typed fact's
// (else it is e.detail alone).
bool has_detail_text(const Event& e);
bool has_detail_fact(const Event& e);

// Sets the facts and the note of *e from a trace's detail `text`; e->kind
// and e->op must be set already. The facts are cleared first.
void read_detail_text(std::string_view text, Event* e);

}  // namespace locksim
