// CampaignWorker: the backends one campaign worker runs its seeds on
// (sim/backend_source.h). A campaign with J workers has J of them, each used
// by one thread only (a live worker owns its redis-servers).
//   checked:   every seed runs here; its history is checked, and a failing
//              property is shrunk here.
//   reference: `--backend both` only: every seed runs here too, first, and
//              the checked history must equal this one event for event.
#pragma once

#include <memory>

#include "sim/backend_source.h"

namespace locksim {

struct CampaignWorker {
  std::unique_ptr<BackendSource> checked;
  std::unique_ptr<BackendSource> reference;  // null: no comparison
};

}  // namespace locksim
