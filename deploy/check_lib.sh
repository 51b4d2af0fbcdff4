# Sourced by deploy/check_*.sh (the install tests).
#
#   check_init NAME SRC BUILD CXX -> sets SRC, BUILD, CXX (absolute) and WORK,
#                                    a fresh temp dir outside both, removed at
#                                    exit after the function check_cleanup
#                                    (if the script defines one) has run
#   fail WHAT...                   -> "NAME: FAILED: WHAT", exit 1
#   build_examples PREFIX DIR      -> examples/ configured in DIR on its own
#                                     against the locksim installed under
#                                     PREFIX (find_package) and built; fails
#                                     if it found any other
#   hidden_checkout_ready          -> 0 if the checkout can be hidden here, else 1 (says why)
#   run_hidden CMD...              -> CMD's exit code; SRC and BUILD are empty
#                                     tmpfs mounts for CMD only
#
# Hiding uses a private mount namespace (unshare -m as root, else unshare
# -rm, a user namespace), so nothing outside the command sees a change: it
# proves that an installed locksim reads nothing from the checkout.

check_init() {
  CHECK_NAME=$1
  SRC=$(realpath "$2")
  BUILD=$(realpath "$3")
  CXX=$4
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/$CHECK_NAME-XXXXXX")
  trap '_check_exit' EXIT
  trap 'exit 130' INT TERM  # a ctest timeout or ^C still cleans up
  case "$WORK/" in
    "$SRC"/* | "$BUILD"/*) fail "the work dir $WORK is inside the checkout or the build dir (set TMPDIR)" ;;
  esac
}

_check_exit() {
  if declare -F check_cleanup >/dev/null; then check_cleanup || true; fi
  rm -rf "$WORK"
}

fail() {
  echo "$CHECK_NAME: FAILED: $*" >&2
  exit 1
}

build_examples() {
  local prefix=$1 dir=$2 gen=()
  if command -v ninja >/dev/null; then gen=(-G Ninja); fi
  cmake -S "$SRC/examples" -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$CXX" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON >"$dir.log" 2>&1 \
    || { cat "$dir.log"; fail "configuring examples/ against $prefix"; }
  grep -qF "locksim_DIR:PATH=$prefix/" "$dir/CMakeCache.txt" \
    || fail "find_package(locksim) found another locksim: $(grep '^locksim_DIR' "$dir/CMakeCache.txt")"
  cmake --build "$dir" >>"$dir.log" 2>&1 || { cat "$dir.log"; fail "building examples/ against $prefix"; }
}

_hidden_unshare=()

hidden_checkout_ready() {
  if unshare -m true 2>/dev/null; then
    _hidden_unshare=(unshare -m)
  elif unshare -rm true 2>/dev/null; then
    _hidden_unshare=(unshare -rm)
  else
    echo "cannot hide the checkout: neither 'unshare -m' nor 'unshare -rm' is allowed here" >&2
    return 1
  fi
}

run_hidden() {
  # Positional parameters of the inner shell: $1 SRC, $2 BUILD, then CMD.
  "${_hidden_unshare[@]}" bash -c '
    set -e
    src=$1 build=$2
    shift 2
    mount -t tmpfs locksim-hidden "$src"
    case "$build/" in "$src"/*) ;; *) mount -t tmpfs locksim-hidden "$build" ;; esac
    if [ -n "$(ls -A "$src")" ]; then echo "the checkout is still visible" >&2; exit 99; fi
    set +e
    "$@"
  ' hidden "$SRC" "$BUILD" "$@"
}
