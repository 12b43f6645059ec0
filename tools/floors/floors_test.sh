#!/usr/bin/env bash
# The floors check over this workspace's own sources. Bazel hands the test
# the workspace's files as links into the source tree; the test follows the
# link of README.md back to the tree and checks every tracked source there.
# Tagged external (never cached: the sources it reads are not its declared
# inputs) and local (it reads the source tree outside the sandbox).
set -euo pipefail
script=$1 readme=$2
root=$(dirname "$(readlink -f "${readme}")")
[[ -f ${root}/tools/floors/rooms.txt ]] || { echo "floors_test: no source tree at ${root}" >&2; exit 2; }
if out=$("${script}" "${root}" 2>&1); then
  echo "the floors hold in ${root}"
else
  echo "${out}"
  echo "FAIL: includes climb a floor or packages form a cycle (tools/floors/rooms.txt, ARCHITECTURE.md)"
  exit 1
fi
