// ScriptErrorChecker (server truth): a lock script never answers an error
// reply in normal operation (lock-semantics.md section 5, "No script
// errors"). Every script event whose reply is an error ("error: ...") is a
// violation naming the script, its caller and the error, unless the backend
// marked the reply as one the pack declares part of its conventions (the
// event's detail is kDeclaredReplyDetail: an absent script's answer, or an
// error the manifest lists under "errors"). A refused connection (a server
// restarting) is not a script event: nothing ran. Memory: none.
#pragma once

#include "properties/checker.h"

namespace locksim {

class ScriptErrorChecker : public Checker {
 public:
  using Checker::Checker;
  std::string_view name() const override { return property::kScriptError; }
  void on_event(const Event& e) override;
};

}  // namespace locksim
