#!/usr/bin/env bash
# Installs the Debian packages locksim needs, only when some are missing
# (a no-op taking well under a second when everything is present).
# Usage: bash tools/setup-deps.sh   (as root, or with sudo available)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config   # toolchain
  libgtest-dev libgmock-dev                      # GoogleTest: unit tests
  librapidcheck-dev                              # RapidCheck: property tests with shrinking
  libbenchmark-dev                               # Google Benchmark: bench/
  libhiredis-dev                                 # hiredis: the live Redis backend
  redis-server                                   # the live backend's server (run under our clock shim)
  liblua5.1-0-dev                                # Lua 5.1 (as C++): the lua backend runs a pack's own scripts in process
  lua-bitop-dev lua-cjson-dev                    # Redis's bit and cjson script libraries (the versions Redis bundles)
  graphviz                                       # dot: timeline diagrams
  libjs-dygraphs                                 # Dygraphs: report.html's plots (inlined at build time)
  nlohmann-json3-dev                             # JSON: traces, manifests, reports
  libsimdjson-dev                                # simdjson: fast reading of trace event lines
  libjemalloc-dev                                # jemalloc: malloc of the locksim command and bench/
  libcli11-dev                                   # CLI11: the locksim command line
  python3-yaml                                   # YAML parser: the deploy/ manifest test (ctest DeployManifest)
  dpkg-dev file                                  # dpkg-shlibdeps (+ file): the Depends of cpack -G DEB
  mmdebstrap                                     # scratch Debian roots: deploy/docker-steps.sh (.ci/run)
  parallel                                       # GNU parallel: the one-machine shard recipe of docs/running-at-scale.md (ctest ParallelRecipe)
  clang libclang-rt-14-dev                       # clang + libFuzzer runtime: fuzz/ (ctest -L fuzz)
  chromium                                       # headless Chromium: opens report.html in its test (ctest ReportPage)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
# The Debian package may start a system redis-server; locksim never uses it
# (it starts its own on a free port), so it is left alone.
echo "setup-deps: done"
