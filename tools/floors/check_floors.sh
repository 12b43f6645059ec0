#!/usr/bin/env bash
# check_floors.sh ROOT [RULES]: checks every project #include under ROOT
# against the floors in RULES (default tools/floors/rooms.txt under ROOT):
# an include may reach only the rooms its file's room may use, and the
# packages (folders holding a BUILD file) must not include each other in a
# cycle (a package is a folder with a BUILD file). Prints one line per violation and exits 1 if there is any; exits 2
# on bad usage. Reads the files git tracks where ROOT is a checkout, else
# every source file under ROOT.
set -euo pipefail
usage() { echo "usage: check_floors.sh ROOT [RULES]" >&2; exit 2; }
(( $# >= 1 && $# <= 2 )) || usage
root=$1
rules=${2:-${root}/tools/floors/rooms.txt}
[[ -d ${root} ]] || { echo "check_floors.sh: no folder ${root}" >&2; exit 2; }
[[ -f ${rules} ]] || { echo "check_floors.sh: no rules file ${rules}" >&2; exit 2; }
rules=$(cd "$(dirname "${rules}")" && pwd)/$(basename "${rules}")
cd "${root}"

list_sources() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -co --exclude-standard '*.cc' '*.h' '*.cu' '*.cuh'
  else
    find -L . -type f \( -name '*.cc' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sed 's|^\./||'
  fi
}

# "file include" pairs for includes of project paths (the first path word
# names a top-level folder of ROOT).
pairs=$(mktemp)
trap 'rm -f "${pairs}"' EXIT
list_sources | { grep -v -E '(^|/)(testdata|third_party)/|^analysis/reference/' || true; } |
  while IFS= read -r file; do
    [[ -f ${file} ]] || continue
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "${file}" |
      while IFS= read -r inc; do
        top=${inc%%/*}
        if [[ ${inc} == */* && -d ${top} ]]; then printf '%s %s\n' "${file}" "${inc}"; fi
      done
  done >"${pairs}"

awk -v rules="${rules}" '
  BEGIN {
    while ((getline line < rules) > 0) {
      sub(/#.*/, "", line); n = split(line, w, /[ \t]+/)
      if (n == 0 || w[1] == "") continue
      if (w[1] == "room") for (i = 3; i <= n; i++) prefix[w[i]] = w[2]
      else if (w[1] == "may") for (i = 3; i <= n; i++) may[w[2] SUBSEP w[i]] = 1
    }
  }
  function room_of(path,   p, best) {
    best = ""
    for (p in prefix) if (index(path, p) == 1 && length(p) > length(best)) best = p
    return best == "" ? "" : prefix[best]
  }
  {
    from = room_of($1); to = room_of($2)
    if (from == "" || to == "") next
    if ((from SUBSEP to) in may) next
    if (to == "testing" && $1 ~ /_test(_util)?\.(cc|h)$/) next
    printf "%s includes %s: room %s may not use room %s\n", $1, $2, from, to
    bad = 1
  }
  END { exit bad }
' "${pairs}" || status=1

# Package cycles: each file's package is its nearest folder holding the
# rules file's package marker (a line "package_marker NAME"; default BUILD).
marker=$(sed -n 's/^package_marker[[:space:]]\{1,\}\([^[:space:]]*\).*/\1/p' "${rules}")
marker=${marker:-BUILD}
package_of() {
  local d
  d=$(dirname "$1")
  while [[ ${d} != . && ! -f ${d}/${marker} ]]; do d=$(dirname "${d}"); done
  echo "${d}"
}
edges=$(while read -r file inc; do
  a=$(package_of "${file}"); b=$(package_of "${inc}")
  if [[ ${a} != "${b}" ]]; then echo "${a} ${b}"; fi
done <"${pairs}" | sort -u)
if [[ -n ${edges} ]] && ! cycle=$(tsort <<<"${edges}" 2>&1 >/dev/null; exit 0) ; then :; fi
if [[ -n ${cycle:-} ]]; then
  echo "package cycle among: $(sed -n 's/^tsort: //p' <<<"${cycle}" | grep -v 'input contains a loop' | sort -u | tr '\n' ' ')"
  status=1
fi
exit "${status:-0}"
