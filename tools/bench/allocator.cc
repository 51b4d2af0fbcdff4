#include "tools/bench/allocator.h"

#include <dlfcn.h>

#include <cstddef>

namespace locksim {

std::string allocator_in_use() {
  // jemalloc's control interface; absent from glibc. Looked up, not linked,
  // so this builds and answers with either allocator.
  using Mallctl = int (*)(const char*, void*, size_t*, void*, size_t);
  const auto mallctl = reinterpret_cast<Mallctl>(::dlsym(RTLD_DEFAULT, "mallctl"));
  if (mallctl == nullptr) return "glibc malloc";
  const char* version = nullptr;
  size_t size = sizeof version;
  if (mallctl("version", &version, &size, nullptr, 0) != 0 || version == nullptr) return "jemalloc";
  return std::string("jemalloc ") + version;
}

}  // namespace locksim
