#!/bin/bash
# //analysis:dashboard's command line: --help, bad input (one line on
# stderr, exit 2), a history folder and a history database (built with
# //analysis:ingest) both giving pages, and gnuplot missing (exit 1, said on
# the page, no broken link).
set -euo pipefail

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

runfile() {
  local path="$1"
  for root in "${TEST_SRCDIR:-}/${TEST_WORKSPACE:-dissect}" "${RUNFILES_DIR:-}/${TEST_WORKSPACE:-dissect}" .; do
    if [[ -e "${root}/${path}" ]]; then
      echo "${root}/${path}"
      return
    fi
  done
  fail "runfile ${path} not found"
}

DASHBOARD="$(runfile analysis/dashboard)"
INGEST="$(runfile analysis/ingest)"
HISTORY="$(dirname "$(runfile analysis/testdata/history/run_h100_night1/manifest.json)")/.."
WORK="${TEST_TMPDIR}/dashboard_cli"
rm -rf "${WORK}"
mkdir -p "${WORK}"

# expect_usage_error WHAT ARGS...: exit 2 and exactly one line on stderr.
expect_usage_error() {
  local what="$1"
  shift
  local rc=0
  "${DASHBOARD}" "$@" >"${WORK}/out" 2>"${WORK}/err" || rc=$?
  [[ "${rc}" == 2 ]] || fail "${what}: exit status ${rc}, expected 2 ($(cat "${WORK}/err"))"
  [[ "$(wc -l <"${WORK}/err")" == 1 ]] || fail "${what}: expected one line on stderr, got: $(cat "${WORK}/err")"
  grep -q '^dashboard: ' "${WORK}/err" || fail "${what}: the line does not start with 'dashboard: '"
}

"${DASHBOARD}" --help >"${WORK}/help" || fail "--help exited with status $?"
grep -q 'usage: dashboard' "${WORK}/help" || fail "--help prints no usage"

expect_usage_error "no arguments"
expect_usage_error "one argument" "${HISTORY}"
expect_usage_error "unknown flag" --frobnicate "${HISTORY}" "${WORK}/site"
expect_usage_error "bad --nights" --nights=0 "${HISTORY}" "${WORK}/site"
expect_usage_error "bad --nights" --nights=7x "${HISTORY}" "${WORK}/site"
expect_usage_error "missing history" "${WORK}/no_such.db" "${WORK}/site"
[[ ! -e "${WORK}/no_such.db" ]] || fail "a missing history database was created"
echo "not a database" >"${WORK}/notes.txt"
expect_usage_error "foreign file" "${WORK}/notes.txt" "${WORK}/site"
mkdir -p "${WORK}/empty"
expect_usage_error "no runs" "${WORK}/empty" "${WORK}/site"

# A folder of run folders: pages written, the corrupt result file named on
# stderr and on the page; its timed-out and never-finished entries make the
# night broken: exit 1.
rc=0
"${DASHBOARD}" "${HISTORY}" "${WORK}/site" >"${WORK}/out" 2>"${WORK}/err" || rc=$?
[[ "${rc}" == 1 ]] || fail "history folder with a broken night: exit status ${rc}, expected 1: $(cat "${WORK}/err")"
grep -q 'relu_bandwidth.json' "${WORK}/err" || fail "the corrupt result file is not named on stderr"
grep -q '^dashboard: 2026-11-23: 3 entries not measured (1 timeout, 1 pending, 1 unreadable)' "${WORK}/err" ||
  fail "the broken night is not named on stderr: $(cat "${WORK}/err")"
night="${WORK}/site/2026-11-23/index.html"
[[ -f "${WORK}/site/index.html" && -f "${night}" ]] || fail "no pages: $(cat "${WORK}/out")"
grep -q '<td class="status">unreadable</td><td>[^<]*relu_bandwidth.json' "${night}" ||
  fail "the corrupt result file is not on the night page"
grep -q '<h2>shared_latency</h2>' "${night}" || fail "the night page has no shared_latency table"
grep -q '<code>run_h100_night1/shared_latency.json</code>' "${night}" ||
  fail "result files are not named relative to the history folder"

# Nights the sweep runner really wrote without a GPU: every entry failed
# (smoke), a crash and a timeout (selftest), a truncated result file. Each
# exits 1 with the night named on stderr and its entries on the pages.
NIGHTS="$(dirname "$(dirname "$(runfile analysis/testdata/nights/smoke_no_gpu/manifest.json)")")"
# expect_broken_night FOLDER STDERR_PATTERN PAGE_PATTERN...
expect_broken_night() {
  local folder="$1" stderr_pattern="$2"
  shift 2
  local site="${WORK}/site_${folder}" rc=0
  "${DASHBOARD}" "${NIGHTS}/${folder}" "${site}" >"${WORK}/out" 2>"${WORK}/err" || rc=$?
  [[ "${rc}" == 1 ]] || fail "${folder}: exit status ${rc}, expected 1: $(cat "${WORK}/err")"
  grep -q "^dashboard: .*${stderr_pattern}" "${WORK}/err" ||
    fail "${folder}: stderr lacks '${stderr_pattern}': $(cat "${WORK}/err")"
  local page
  page="$(ls "${site}"/*/index.html | head -1)"
  for pattern in "$@"; do
    grep -q -- "${pattern}" "${page}" || fail "${folder}: the night page lacks '${pattern}'"
    grep -q -- "${pattern}" "${site}/index.html" || fail "${folder}: the index lacks '${pattern}'"
  done
  if grep -q '<p class="ok">no regressions' "${page}"; then fail "${folder}: the page says 'no regressions' in green"; fi
}
expect_broken_night smoke_no_gpu 'nothing measured: 10 entries not measured (10 failed)' \
  '<section id="failures" class="failed">' '<td class="status">failed</td>' 'no CUDA device'
expect_broken_night selftest_crash_timeout '2 entries not measured (1 failed, 1 timeout)' \
  '<td class="status">failed</td>' '<td class="status">timeout</td>' 'killed by SIGABRT' \
  'time limit of 3 s reached'
expect_broken_night selftest_truncated '1 unreadable' '<td class="status">unreadable</td>' 'ok.json'

# An older broken night stays red on the index, but the newest (healthy)
# night decides the exit status: 0, the older night still named on stderr.
REGRESSION="$(dirname "$(dirname "$(runfile analysis/testdata/regression/drop/manifest.json)")")"
mkdir -p "${WORK}/older_broken"
cp -r "${HISTORY}/run_h100_night1" "${REGRESSION}/drop" "${WORK}/older_broken/"
rc=0
"${DASHBOARD}" "${WORK}/older_broken" "${WORK}/site_older" >"${WORK}/out" 2>"${WORK}/err" || rc=$?
[[ "${rc}" == 0 ]] || fail "older broken night, newest healthy: exit status ${rc}, expected 0: $(cat "${WORK}/err")"
grep -q '^dashboard: 2026-11-23: 3 entries not measured' "${WORK}/err" ||
  fail "the older broken night is not named on stderr: $(cat "${WORK}/err")"
grep -q '<a href="2026-11-23/index.html">2026-11-23</a>: 3 entries not measured' \
  "${WORK}/site_older/index.html" || fail "the older broken night is not on the index"

# The same run folder from a history database: the same pages (the database
# keeps the result files and the entries that measured nothing), the same
# exit. (The history folder's loose files are no run folder: left out.)
"${INGEST}" "${WORK}/history.db" "${HISTORY}/run_h100_night1" >/dev/null 2>&1 || true
[[ -f "${WORK}/history.db" ]] || fail "ingest wrote no database"
rc=0
"${DASHBOARD}" "${WORK}/history.db" "${WORK}/site_db" >"${WORK}/out" 2>"${WORK}/err" || rc=$?
[[ "${rc}" == 1 ]] || fail "history database with a broken night: exit status ${rc}, expected 1"
grep -q '^dashboard: 2026-11-23: 3 entries not measured (1 timeout, 1 pending, 1 unreadable)' "${WORK}/err" ||
  fail "the database's broken night is not named on stderr: $(cat "${WORK}/err")"
for page in index.html 2026-11-23/index.html; do
  cmp -s "${WORK}/site/${page}" "${WORK}/site_db/${page}" ||
    fail "${page} from the database differs from the folder's: $(diff "${WORK}/site/${page}" "${WORK}/site_db/${page}" | head -5)"
done
grep -q '<svg xmlns="http://www.w3.org/2000/svg" class="trend"' "${WORK}/site_db/2026-11-23/index.html" ||
  fail "the database's page has no trend plot"

# Without gnuplot: exit 1, the page says why, and links no figure.
mkdir -p "${WORK}/bin"
for tool in /usr/bin/* /bin/*; do
  name="$(basename "${tool}")"
  [[ "${name}" == gnuplot* || -e "${WORK}/bin/${name}" ]] || ln -s "${tool}" "${WORK}/bin/${name}"
done
memory="$(dirname "$(runfile analysis/testdata/synthetic_memory_latency.json)")"
mkdir -p "${WORK}/loose/run"
cp "${memory}/synthetic_memory_latency.json" "${WORK}/loose/run/"
cat >"${WORK}/loose/run/manifest.json" <<'EOF'
{"format": "dissect.manifest.v1", "run_id": "loose-1", "sweep": "nightly",
 "started": "2026-11-24T02:00:00Z", "host": "node-1",
 "device": {"name": "Synthetic H100-like GPU (fixture)", "uuid": "GPU-1"},
 "entries": [{"id": "m", "status": "ok", "result_file": "synthetic_memory_latency.json"}]}
EOF
rc=0
PATH="${WORK}/bin" "${DASHBOARD}" "${WORK}/loose" "${WORK}/site_nognuplot" >"${WORK}/out" 2>"${WORK}/err" || rc=$?
[[ "${rc}" == 1 ]] || fail "without gnuplot: exit status ${rc}, expected 1"
page="${WORK}/site_nognuplot/2026-11-24/index.html"
grep -q 'latency_vs_footprint not drawn: gnuplot could not be run' "${page}" ||
  fail "the page does not say the figure could not be drawn"
if grep -q '<img' "${page}"; then fail "a figure that was not drawn is linked"; fi

echo "PASS"
