#!/usr/bin/env bash
# CTest InstalledPackageBuildsTheExample (label install): what a project that
# uses the lock library does. Installs the build into a fresh prefix (cmake
# --install), builds examples/ on its own against it, once with
# find_package(locksim) and once with pkg-config, and runs each build of the
# example against a redis-server of its own on a free loopback port, from a
# directory outside the checkout, with no LOCKSIM_SCRIPTS, and (where a mount
# namespace can be made) with the checkout and the build dir hidden.
# Usage: check_install.sh SOURCE_DIR BUILD_DIR CXX_COMPILER
# Exit 0 ok, 1 a check failed.
set -euo pipefail
source "$(dirname "$0")/check_lib.sh"
check_init check_install "$1" "$2" "$3"
REDIS_PID=""
check_cleanup() {
  if [ -n "$REDIS_PID" ]; then kill "$REDIS_PID" 2>/dev/null || true; wait "$REDIS_PID" 2>/dev/null || true; fi
}

PREFIX=$WORK/prefix
cmake --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log"
for f in bin/locksim include/locksim/impl/realtime/redis_lock_client.h; do
  [ -e "$PREFIX/$f" ] || fail "cmake --install did not install $f"
done
# Stripped unless LOCKSIM_INSTALL_DEBUG: no debug section in the command, the
# shim or any static library installed (deploy/install.cmake).
if ! grep -q "^LOCKSIM_INSTALL_DEBUG:BOOL=ON" "$BUILD/CMakeCache.txt"; then
  while IFS= read -r f; do
    if readelf -S --wide "$f" 2>/dev/null | grep -q '\.debug_info'; then fail "cmake --install left debug sections in $f"; fi
  done < <(find "$PREFIX" -type f \( -name locksim -o -name '*.so' -o -name '*.a' \))
fi
# The installed package files name nothing of the checkout or the build dir.
if grep -rIlF -e "$SRC" -e "$BUILD" "$PREFIX"; then fail "installed text files above name the checkout or build dir"; fi

# 1. find_package(locksim), as examples/CMakeLists.txt does on its own.
build_examples "$PREFIX" "$WORK/build"
if grep -rlF -e "-I$SRC" -e "$BUILD" "$WORK/build" --include=build.ninja --include=flags.make --include=link.txt; then
  fail "the example's build uses the checkout's headers or the build dir"
fi

# 2. pkg-config locksim.
PC_FILE=$(find "$PREFIX" -name locksim.pc | head -1)
[ -n "$PC_FILE" ] || fail "cmake --install did not install locksim.pc"
PC_FLAGS=$(PKG_CONFIG_PATH="$(dirname "$PC_FILE")" pkg-config --cflags --libs locksim) || fail "pkg-config locksim"
# shellcheck disable=SC2086
"$CXX" -std=c++20 -O1 "$SRC/examples/lock_example.cc" -o "$WORK/lock_example_pc" $PC_FLAGS \
  || fail "building the example with pkg-config's flags: $PC_FLAGS"

# A redis-server of our own on a free loopback port.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
REDIS_PID=$!
for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then break; fi
  sleep 0.05
done

run_example() {  # BINARY
  local out
  if hidden_checkout_ready; then
    out=$(cd "$WORK" && run_hidden env -u LOCKSIM_SCRIPTS "$1" 127.0.0.1 "$PORT" 2>&1) \
      || fail "$1 (checkout hidden): $out"
  else
    echo "check_install: the checkout stays visible (no mount namespace here)" >&2
    out=$(cd "$WORK" && env -u LOCKSIM_SCRIPTS "$1" 127.0.0.1 "$PORT" 2>&1) || fail "$1: $out"
  fi
  grep -qF "total = 400 (expected 400)" <<<"$out" || fail "$1 printed: $out"
  echo "$(basename "$1"): $(tail -1 <<<"$out")"
}
run_example "$WORK/build/lock_example"
run_example "$WORK/lock_example_pc"
echo "check_install: ok (installed into a fresh prefix; examples/ built with find_package and pkg-config; both ran)"
