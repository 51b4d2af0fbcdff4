// The malloc this process runs on, in words, for `locksim bench`: figures
// taken with jemalloc and with glibc's malloc differ (the checkers allocate
// per operation), so every report names the one it was measured with. Read
// at run time from what is actually loaded (jemalloc answers mallctl), not
// from how the build was configured.
#pragma once

#include <string>

namespace locksim {

// "jemalloc <version>" when jemalloc serves malloc, else "glibc malloc".
std::string allocator_in_use();

}  // namespace locksim
