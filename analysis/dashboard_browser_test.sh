#!/bin/bash
# The dashboard in a real headless browser (Debian's chromium): builds a
# small synthetic history of run folders (three nights, two cards) from the
# analysis test data, runs //analysis:dashboard on it (real gnuplot), renders
# the index and a night page (and the night page of the same history
# ingested into a database) with `chromium --headless --dump-dom` and
# `--screenshot`, and checks that the DOM has the findings block, the
# tables, the figures and the trend SVGs, and that no src/href/data
# attribute points at a local file that does not exist. Then two broken
# nights (analysis/testdata/nights): their entries that measured nothing in
# a visible red section above the regressions, with the reasons.
#
# Installs chromium with apt-get when it is missing (as root). If it cannot
# be installed the test fails under CI=true and is skipped, with the reason,
# elsewhere.
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

skip_or_fail() {
  if [[ "${CI:-}" == "true" ]]; then
    fail "$* (CI=true: a browser test that cannot run is a failure)"
  fi
  echo "SKIPPED: $*" >&2
  # Bazel has no skipped state for sh_test: say so in the test's XML too.
  if [[ -n "${XML_OUTPUT_FILE:-}" ]]; then
    cat >"${XML_OUTPUT_FILE}" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="dashboard_browser_test" tests="1" skipped="1">
<testcase name="render" classname="dashboard_browser_test"><skipped message="$*"/></testcase>
</testsuite></testsuites>
EOF
  fi
  exit 0
}

find_chromium() {
  for name in chromium chromium-browser; do
    if command -v "${name}" >/dev/null 2>&1; then
      command -v "${name}"
      return
    fi
  done
}

CHROMIUM="$(find_chromium || true)"
if [[ -z "${CHROMIUM}" ]]; then
  if [[ "$(id -u)" != "0" ]]; then
    skip_or_fail "chromium is not installed and this is not root (apt-get install chromium)"
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    skip_or_fail "chromium is not installed and there is no apt-get"
  fi
  echo "installing chromium with apt-get (Debian package chromium) ..." >&2
  log="${TEST_TMPDIR}/apt.log"
  if ! (timeout 600 apt-get update -q -o DPkg::Lock::Timeout=300 && DEBIAN_FRONTEND=noninteractive \
        timeout 1500 apt-get install -y -q -o DPkg::Lock::Timeout=300 --no-install-recommends \
        chromium fonts-dejavu-core) \
        >"${log}" 2>&1; then
    tail -n 5 "${log}" >&2
    skip_or_fail "chromium is not installed and apt-get could not install it (apt unreachable?)"
  fi
  CHROMIUM="$(find_chromium || true)"
  [[ -n "${CHROMIUM}" ]] || skip_or_fail "apt-get installed chromium but no chromium binary is on PATH"
fi
command -v gnuplot >/dev/null 2>&1 || fail "gnuplot is not on PATH (./bazelw installs gnuplot-nox)"

DASHBOARD="$(runfile analysis/dashboard)"
INGEST="$(runfile analysis/ingest)"
DATA="$(dirname "$(runfile analysis/testdata/synthetic_memory_latency.json)")"
WORK="${TEST_TMPDIR}/dashboard_browser"
rm -rf "${WORK}"
HISTORY="${WORK}/history"
OUT="${WORK}/site"

# One run folder: a manifest and copies of result files.
# make_run NAME STARTED UUID SERIAL DRIVER COMMIT FILE...
make_run() {
  local name="$1" started="$2" uuid="$3" serial="$4" driver="$5" commit="$6"
  shift 6
  local dir="${HISTORY}/${name}"
  mkdir -p "${dir}"
  local entries=""
  for file in "$@"; do
    local base
    base="$(basename "${file}" .json)"
    cp "${DATA}/${file}" "${dir}/${base}.json"
    entries="${entries}${entries:+,}
    {\"id\": \"${base}\", \"status\": \"ok\", \"result_file\": \"${base}.json\"}"
  done
  cat >"${dir}/manifest.json" <<EOF
{
  "format": "dissect.manifest.v1",
  "run_id": "${name}",
  "sweep": "nightly",
  "host": "node-${serial}",
  "started": "${started}",
  "git_commit": "${commit}",
  "device": {"index": 0, "name": "Synthetic H100-like GPU (fixture)", "uuid": "${uuid}",
             "serial": "${serial}", "driver_version": "${driver}"},
  "entries": [${entries}
  ]
}
EOF
}

FILES=(synthetic_memory_latency.json synthetic_memory_bandwidth.json synthetic_relu.json)
make_run n1-a 2026-11-20T02:00:00Z GPU-aaaa 1001 580.65.06 c0ffee0000000000000000000000000000000001 "${FILES[@]}"
make_run n1-b 2026-11-20T02:03:00Z GPU-bbbb 1002 580.65.06 c0ffee0000000000000000000000000000000001 "${FILES[@]}"
make_run n2-a 2026-11-21T02:00:00Z GPU-aaaa 1001 580.65.06 c0ffee0000000000000000000000000000000002 "${FILES[@]}"
make_run n3-a 2026-11-22T02:00:00Z GPU-aaaa 1001 590.10.01 c0ffee0000000000000000000000000000000002 "${FILES[@]}"
make_run n3-b 2026-11-22T02:04:00Z GPU-bbbb 1002 590.10.01 c0ffee0000000000000000000000000000000002 "${FILES[@]}"

timeout 300 "${DASHBOARD}" "${HISTORY}" "${OUT}" >"${WORK}/dashboard.out" 2>"${WORK}/dashboard.err" ||
  { cat "${WORK}/dashboard.err" >&2; fail "dashboard exited with status $?"; }
NIGHT="${OUT}/2026-11-22/index.html"
[[ -f "${OUT}/index.html" && -f "${NIGHT}" ]] || fail "dashboard wrote no ${NIGHT}"

# Headless chromium, bounded; its profile in the test's temporary folder.
render() {
  local page="$1" out="$2"
  timeout 120 "${CHROMIUM}" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --no-first-run --user-data-dir="${WORK}/profile" --allow-file-access-from-files \
    --virtual-time-budget=5000 --dump-dom "file://${page}" >"${out}" 2>"${out}.err" ||
    { tail -n 20 "${out}.err" >&2; fail "chromium --dump-dom ${page} exited with status $?"; }
  [[ -s "${out}" ]] || { tail -n 20 "${out}.err" >&2; fail "chromium rendered nothing for ${page}"; }
}

render "${OUT}/index.html" "${WORK}/index.dom"
render "${NIGHT}" "${WORK}/night.dom"
timeout 120 "${CHROMIUM}" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
  --no-first-run --user-data-dir="${WORK}/profile" --window-size=1280,2000 \
  --screenshot="${WORK}/night.png" "file://${NIGHT}" >/dev/null 2>"${WORK}/screenshot.err" ||
  { tail -n 20 "${WORK}/screenshot.err" >&2; fail "chromium --screenshot exited with status $?"; }
# A PNG of some size (an empty white page compresses to a few KiB).
[[ "$(head -c 8 "${WORK}/night.png" | od -An -tx1 | tr -d ' \n')" == "89504e470d0a1a0a" ]] ||
  fail "the screenshot is not a PNG"
[[ "$(stat -c %s "${WORK}/night.png")" -gt 20000 ]] || fail "the screenshot is suspiciously small"
if [[ -n "${TEST_UNDECLARED_OUTPUTS_DIR:-}" ]]; then
  cp "${WORK}/night.png" "${WORK}/night.dom" "${TEST_UNDECLARED_OUTPUTS_DIR}/"
fi

count() { { grep -o -- "$1" "$2" || true; } | wc -l; }
expect_at_least() {  # expect_at_least N PATTERN FILE WHAT
  local n
  n="$(count "$2" "$3")"
  [[ "${n}" -ge "$1" ]] || fail "$4: expected at least $1 of '$2' in the rendered DOM of $3, found ${n}"
}

# The index: a link per night, newest first.
expect_at_least 3 '<a href="[0-9-]*/index.html">' "${WORK}/index.dom" "index links"
first_night="$({ grep -o '<a href="[0-9-]*/index.html">' "${WORK}/index.dom" || true; } | head -1)"
[[ "${first_night}" == '<a href="2026-11-22/index.html">' ]] ||
  fail "index: the newest night is not first (${first_night})"

# The night page: findings block on top, tables, figures, trends.
DOM="${WORK}/night.dom"
expect_at_least 1 '<section id="findings">' "${DOM}" "findings block"
grep -q 'regression check not available\|<h3>Regressions (' "${DOM}" ||
  fail "the findings block says neither the findings nor why they are not available"
findings_at="$({ grep -bo '<section id="findings">' "${DOM}" || true; } | head -1 | cut -d: -f1)"
tables_at="$({ grep -bo '<section id="tables">' "${DOM}" || true; } | head -1 | cut -d: -f1)"
[[ -n "${tables_at}" && "${findings_at}" -lt "${tables_at}" ]] || fail "the findings are not above the tables"
expect_at_least 3 '<table>' "${DOM}" "characterization tables"
expect_at_least 1 '<h2>memory_latency</h2>' "${DOM}" "memory_latency section"
expect_at_least 1 '<td class="num">' "${DOM}" "numeric table cells"
expect_at_least 2 '<img src="figures/[^"]*\.svg"' "${DOM}" "figures"
expect_at_least 2 '<svg xmlns="http://www.w3.org/2000/svg" class="trend"' "${DOM}" "trend plots"
expect_at_least 2 '<polyline class="value"' "${DOM}" "trend lines"
expect_at_least 1 '<line class="change"' "${DOM}" "driver/commit change marks"
if grep -qi '<script' "${OUT}/index.html" "${NIGHT}"; then fail "a page has JavaScript"; fi

# No broken local links in the rendered DOMs.
check_links() {
  local dom="$1" dir="$2" n=0
  while IFS= read -r ref; do
    ref="${ref#*=\"}"
    ref="${ref%\"}"
    ref="${ref//&amp;/&}"
    case "${ref}" in
      '#'* | http:* | https:* | mailto:* | data:*) continue ;;
      file://*) ref="${ref#file://}" ;;
    esac
    ref="${ref%%#*}"
    ref="${ref%%\?*}"
    local path="${ref}"
    [[ "${path}" == /* ]] || path="${dir}/${ref}"
    [[ -e "${path}" ]] || fail "broken local link in ${dom}: ${ref} (${path})"
    n=$((n + 1))
  done < <(grep -oE '(src|href|data)="[^"]*"' "${dom}" || true)
  echo "${dom}: ${n} local links, none broken" >&2
}
check_links "${WORK}/index.dom" "${OUT}"
check_links "${DOM}" "$(dirname "${NIGHT}")"

# The same history from the database (//analysis:ingest): tables rebuilt
# from the stored values, trends, findings, no broken links.
"${INGEST}" "${WORK}/history.db" "${HISTORY}" >"${WORK}/ingest.out" 2>&1 ||
  { cat "${WORK}/ingest.out" >&2; fail "ingest exited with status $?"; }
timeout 300 "${DASHBOARD}" "${WORK}/history.db" "${WORK}/site_db" >"${WORK}/dashboard_db.out" \
  2>"${WORK}/dashboard_db.err" ||
  { cat "${WORK}/dashboard_db.err" >&2; fail "dashboard on the database exited with status $?"; }
DB_NIGHT="${WORK}/site_db/2026-11-22/index.html"
render "${DB_NIGHT}" "${WORK}/night_db.dom"
expect_at_least 1 '<section id="findings">' "${WORK}/night_db.dom" "database page: findings block"
expect_at_least 3 '<table>' "${WORK}/night_db.dom" "database page: tables"
expect_at_least 2 '<svg xmlns="http://www.w3.org/2000/svg" class="trend"' "${WORK}/night_db.dom" \
  "database page: trend plots"
check_links "${WORK}/night_db.dom" "$(dirname "${DB_NIGHT}")"

# Every linked figure is an SVG the browser can parse.
for svg in $({ grep -oE '<img src="[^"]*"' "${DOM}" || true; } | sed 's/<img src="//; s/"$//'); do
  render "$(dirname "${NIGHT}")/${svg}" "${WORK}/figure.dom"
  if grep -q 'parsererror\|This page contains the following errors' "${WORK}/figure.dom"; then
    fail "figure ${svg} does not parse as SVG"
  fi
  grep -q '<svg' "${WORK}/figure.dom" || fail "figure ${svg} did not render as SVG"
done

# Broken nights, as the sweep runner wrote them on a machine without a GPU
# (analysis/testdata/nights): every smoke entry failed; a selftest night with
# a crash and a timeout. Each exits 1, and its night page and the index show
# the entries in a visible red section above the regressions (the night page)
# or the table of nights (the index), with the words and the reasons.
NIGHTS="$(dirname "$(dirname "$(runfile analysis/testdata/nights/smoke_no_gpu/manifest.json)")")"

# probe_failures PAGE BELOW_SELECTOR: the computed style of #failures in a
# copy of PAGE (beside it, so its links resolve) with a script appended (the
# dashboard's pages have none); prints "display|visibility|color|
# border-left-color|height|above BELOW_SELECTOR".
probe_failures() {
  local page="$1" below="$2" probe
  probe="$(dirname "${page}")/probe_$(basename "${page}")"
  sed 's#</body>##; s#</html>##' "${page}" >"${probe}"
  cat >>"${probe}" <<EOF
<script>
const s = document.getElementById('failures');
const b = document.querySelector('${below}');
const cs = s ? getComputedStyle(s) : null;
document.body.setAttribute('data-probe', s && b ? [cs.display, cs.visibility, cs.color,
    cs.borderLeftColor, Math.round(s.getBoundingClientRect().height),
    s.getBoundingClientRect().bottom <= b.getBoundingClientRect().top].join('|') : 'missing');
</script>
</body>
</html>
EOF
  render "${probe}" "${WORK}/probe.dom"
  sed -n 's/.*data-probe="\([^"]*\)".*/\1/p' "${WORK}/probe.dom" | head -1
  rm -f "${probe}"
}

# expect_red_failures PAGE BELOW_SELECTOR WHAT
expect_red_failures() {
  local probe
  probe="$(probe_failures "$1" "$2")"
  [[ "${probe}" =~ ^block\|visible\|rgb\(153,\ 0,\ 0\)\|rgb\(204,\ 0,\ 0\)\|([0-9]+)\|true$ ]] ||
    fail "$3: #failures is not a visible red block above $2 (computed: ${probe})"
  [[ "${BASH_REMATCH[1]}" -ge 40 ]] || fail "$3: #failures is only ${BASH_REMATCH[1]} px high"
}

# broken_night FOLDER WORD...: the dashboard on one broken night; WORDs must
# be in the rendered failure section of the night page and of the index.
broken_night() {
  local folder="$1" site="${WORK}/site_$1" rc=0
  shift
  timeout 300 "${DASHBOARD}" "${NIGHTS}/${folder}" "${site}" >"${WORK}/broken.out" \
    2>"${WORK}/broken.err" || rc=$?
  [[ "${rc}" == 1 ]] || fail "${folder}: dashboard exit status ${rc}, expected 1: $(cat "${WORK}/broken.err")"
  local page
  page="$(ls "${site}"/20*/index.html | head -1)"
  render "${page}" "${WORK}/${folder}_night.dom"
  render "${site}/index.html" "${WORK}/${folder}_index.dom"
  for dom in "${WORK}/${folder}_night.dom" "${WORK}/${folder}_index.dom"; do
    # The failure section's text: from its opening tag to the next </section>.
    sed -n '/<section id="failures"/,/<\/section>/p' "${dom}" >"${dom}.failures"
    [[ -s "${dom}.failures" ]] || fail "${folder}: no failure section in ${dom}"
    for word in "$@"; do
      grep -q -- "${word}" "${dom}.failures" || fail "${folder}: '${word}' not in the failure section of ${dom}"
    done
  done
  if grep -q '<p class="ok">' "${WORK}/${folder}_night.dom"; then
    fail "${folder}: the night page has a green line"
  fi
  expect_red_failures "${page}" '#findings' "${folder} night page"
  expect_red_failures "${site}/index.html" 'table.nights' "${folder} index"
  check_links "${WORK}/${folder}_night.dom" "$(dirname "${page}")"
}
broken_night smoke_no_gpu 'failed' 'no CUDA device visible' 'nothing measured'
grep -q 'no regressions checked: nothing was measured' "${WORK}/smoke_no_gpu_night.dom" ||
  fail "smoke_no_gpu: the findings do not say that nothing was measured"
broken_night selftest_crash_timeout 'failed' 'timeout' 'killed by SIGABRT' 'time limit of 3 s reached'

echo "PASS: dashboard renders in $("${CHROMIUM}" --version 2>/dev/null | head -1)"
