#include "properties/script_error.h"

namespace locksim {

void ScriptErrorChecker::on_event(const Event& e) {
  if (e.kind != EventKind::Script || !e.reply.is_error()) return;
  if (e.error_declared) return;
  Violation v;
  v.lock = e.lock;
  v.message = e.script + " by " + e.owner.str() + " on server " + std::to_string(e.server) +
              " answered an error: " + e.reply.text +
              " (a lock script never errors in normal operation; a pack may declare an error part of its "
              "conventions in its manifest)";
  v.event_ids = {e.id};
  v.true_us = {e.true_us};
  v.owners = {e.owner};
  report(Report::ScriptErrorReply, std::move(v));
}

}  // namespace locksim
