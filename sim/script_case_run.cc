#include "sim/script_case_run.h"

#include <cassert>
#include <string>
#include <vector>

namespace locksim {

namespace {

std::string keys_text(const std::vector<KeyState>& keys) {
  if (keys.empty()) return " (no keys)";
  std::string out;
  for (const KeyState& k : keys) {
    out += " [" + k.key + " " + k.type + " {" + k.value + "} pttl " + std::to_string(k.pttl_ms) + "]";
  }
  return out;
}

std::string published_text(const std::vector<Published>& published) {
  if (published.empty()) return "nothing";
  std::string out;
  for (const Published& p : published) out += (out.empty() ? "" : ", ") + p.channel + " '" + p.payload + "'";
  return out;
}

}  // namespace

std::optional<CaseMiss> run_script_case(Backend& backend, const std::function<void()>& wipe,
                                        const cases::ScriptCase& c, const CaseRunOptions& options) {
  assert(!c.steps.empty());
  wipe();
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const cases::CaseStep& s = c.steps[i];
    const ExecResult r = backend.execute(0, s.call, s.server_now_ms * 1000);
    if (!cases::reply_matches(s.expected, r.reply)) {
      return CaseMiss{i + 1, s.call.kind, "reply " + r.reply.to_string() + ", expected " + s.expected.to_string()};
    }
    if (options.compare_published && r.published != s.published) {
      return CaseMiss{i + 1, s.call.kind,
                      "published " + published_text(r.published) + ", expected " + published_text(s.published)};
    }
  }
  if (c.final_state && options.compare_state) {
    const std::vector<KeyState> state = backend.snapshot(0, c.final_state->server_now_ms * 1000);
    if (state != c.final_state->keys) {
      return CaseMiss{0, c.steps.back().call.kind,
                      "keys" + keys_text(state) + ", expected" + keys_text(c.final_state->keys)};
    }
  }
  return std::nullopt;
}

std::string describe_case_miss(const CaseMiss& miss) {
  const std::string where = miss.step == 0 ? std::string("final state")
                                           : "step " + std::to_string(miss.step) + " (" +
                                                 std::string(script_name(miss.kind)) + ")";
  return where + ": " + miss.text;
}

}  // namespace locksim
