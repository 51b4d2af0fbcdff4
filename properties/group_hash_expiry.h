// GroupHashExpiry: the expiry a faster multi-lock's value takes from its
// group's one hash (lock-semantics.md section 4b). A history records each
// value as a lock of its own, "<group>@<value>", but the values of a group
// live in one key and expire together, by the server's clock:
//  - a grant or a still-held release of any value raises the hash's expiry
//    to server_ms + lease when that is later (the scripts PEXPIRE only a
//    hash whose PTTL is lower), a renewal sets it to server_ms + lease;
//  - once the server clock passes it, or every value the history named is
//    free (the hash deleted), the group has no expiry until a value is taken.
// Restarts and failovers: forget_server() drops that server's groups.
// Memory: one entry per (server, group) and value named.
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "properties/event_facts.h"
#include "traces/event.h"

namespace locksim {

class GroupHashExpiry {
 public:
  // Whether `facts` are of a faster multi-lock's script (the events this reads).
  static bool applies(const EventFacts& facts) { return facts.script && is_faster_multi_script(*facts.script); }

  // The expiry (server ms) of the hash of e's group just before e, after the
  // server clock passed an earlier one; INT64_MAX when none is known;
  // INT64_MIN when the hash was gone (expired or emptied) since e's value's
  // last script: the value was freed meanwhile.
  int64_t before(const Event& e);
  // e's effect: `refreshed` when e set its value's lease (a grant, a renewal
  // answering 1, a release answering 0 on its first execution). Returns the
  // group's expiry after e (INT64_MAX when none is known).
  int64_t after(const Event& e, bool refreshed, bool renewal);
  void forget_server(int server);

 private:
  struct Group {
    int64_t expire_at_ms = INT64_MAX;  // INT64_MAX: no expiry known
    std::map<std::string, bool, std::less<>> held;  // value lock name -> held after its last script
    uint64_t generation = 0;           // one more each time the hash is gone
    std::map<std::string, uint64_t, std::less<>> seen;  // value lock name -> generation at its last script
    void reset() {
      expire_at_ms = INT64_MAX;
      held.clear();
      ++generation;
    }
  };
  Group& group_of(const Event& e);

  std::map<std::pair<int, std::string>, Group, std::less<>> groups_;
};

}  // namespace locksim
