# Sourced by deploy/check_*.sh: runs a command where the source checkout
# (and the build dir) cannot be seen, to prove that an installed locksim
# reads nothing from them.
#
#   hidden_checkout_ready SRC BUILD   -> 0 if it can be done here, else 1 (says why)
#   run_hidden SRC BUILD CMD...        -> CMD's exit code; SRC and BUILD are
#                                        empty tmpfs mounts for CMD only
#
# It uses a private mount namespace (unshare -m as root, else unshare -rm, a
# user namespace), so nothing outside the command sees a change.

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
  local src=$1 build=$2
  shift 2
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
  ' hidden "$src" "$build" "$@"
}
