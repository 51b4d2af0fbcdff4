#include "sim/script_output_bound.h"

#include <string>

namespace locksim {

namespace {

uint64_t reply_bytes(const Reply& r) {
  uint64_t n = 8 + r.text.size();
  for (const Reply& e : r.elements) n += reply_bytes(e);
  return n;
}

}  // namespace

uint64_t script_output_bytes(const ExecResult& result, bool line) {
  uint64_t n = reply_bytes(result.reply);
  for (const Published& p : result.published) n += 8 + p.channel.size() + p.payload.size();
  for (const std::string& h : result.holders_after) n += 8 + h.size();
  if (line)
    for (const LineWaiter& w : result.line_after) n += 16 + w.owner.size();
  return n;
}

void ScriptOutputBudget::charge(const ExecResult& result, std::string_view script) {
  const uint64_t n = script_output_bytes(result, true);
  if (n > kMaxScriptOutputBytes) {
    throw ScriptOutputTooLarge(std::string(script) + " handed back " + std::to_string(n) +
                               " bytes (reply, messages, holders, line) in one execution; locksim records at most " +
                               std::to_string(kMaxScriptOutputBytes) +
                               " per execution (a lock script answers a few bytes): the run stops here");
  }
  used_bytes_ += script_output_bytes(result, false);
  if (used_bytes_ > kMaxRunOutputBytes) {
    throw ScriptOutputTooLarge(std::string(script) + ": the scripts of this run handed back " +
                               std::to_string(used_bytes_) + " bytes in all; locksim records at most " +
                               std::to_string(kMaxRunOutputBytes) + " per run: the run stops here");
  }
}

}  // namespace locksim
