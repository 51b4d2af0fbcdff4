// ReplyAdapter: how a script pack reads a script's raw reply as the reply the
// lock client and the model expect (manifest field "reply", impl/script_pack.h).
// Some scripts answer in another shape than ours; the adapter says how to read
// them instead of wrapping them in hand-written Lua.
//
//   "as_is"     the reply unchanged (the default)
//   "first"     a one-element list is read as its element (a renewal that
//               renews a list of locks and answers a list of 0/1)
//   "nil_as_0"  nil is read as the integer 0 (a script that answers Lua
//               false for "no")
//
// A list of names applies them in order (["first", "nil_as_0"]).
// Contract: apply_reply_adapters is pure. An error reply passes through every
// adapter unchanged; a reply that does not have the shape an adapter needs
// becomes an error reply that says so (never a silent pass-through).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "redis/reply.h"

namespace locksim {

enum class ReplyAdapter { AsIs, First, NilAsZero };

std::string_view reply_adapter_name(ReplyAdapter a);
std::optional<ReplyAdapter> reply_adapter_from_name(std::string_view name);
// "as_is, first, nil_as_0", for error messages.
std::string reply_adapter_names();

Reply apply_reply_adapter(ReplyAdapter a, Reply raw);
Reply apply_reply_adapters(const std::vector<ReplyAdapter>& adapters, Reply raw);

}  // namespace locksim
