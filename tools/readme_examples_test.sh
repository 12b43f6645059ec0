#!/usr/bin/env bash
# Runs every ```sh example of README.md as written, in a scratch folder that
# stands for a fresh clone, with `./bazelw` replaced by a shim that runs the
# binaries this test carries (built by Bazel, as `bazelw run` would run them).
#
# Usage: readme_examples_test.sh README LABEL=RUNFILE...
#
# A block passes when it exits 0, or when it stops at a GPU step on this
# GPU-less machine: the failing command's last line says "no CUDA device
# visible" (an experiment) or "no NVIDIA driver" (the sweep runner's check
# before a night), the one line the README promises. A block the README marks
# with `<!-- readme-test: skip REASON -->` on the line before it is listed as
# skipped with its reason; every other failure fails the test. Examples that
# read other suites' published files get them from $DISSECT_PEERS_DIR (else
# ../shared/data/peers beside the repository root); where that folder is
# absent the block is skipped with the reason.
set -uo pipefail

readme=$1
shift
[[ -f ${readme} ]] || { echo "readme_examples_test: no README at ${readme}" >&2; exit 2; }

scratch=${TEST_TMPDIR:-$(mktemp -d)}/clone
home=${TEST_TMPDIR:-$(mktemp -d)}/home
rm -rf "${scratch}" "${home}"
mkdir -p "${scratch}" "${home}"

# label -> absolute path of the binary, for the shim.
map=${scratch}/.readme_test_binaries
: >"${map}"
for pair in "$@"; do
  label=${pair%%=*}
  path=${pair#*=}
  [[ -x ${path} ]] || { echo "readme_examples_test: ${label}: ${path} is not executable" >&2; exit 2; }
  echo "${label} $(cd "$(dirname "${path}")" && pwd)/$(basename "${path}")" >>"${map}"
done

# The peer files of the "no GPU here?" example: a folder of the published
# files, as a newcomer would download them.
peers=${DISSECT_PEERS_DIR:-}
if [[ -z ${peers} ]]; then
  anchor=$(readlink -f "${readme}")
  peers=$(dirname "$(dirname "${anchor}")")/shared/data/peers
fi
if [[ -d ${peers} ]]; then
  mkdir -p "${home}/peer-results"
  find "${peers}" -type f \( -name '*.txt' -o -name '*.json' \) -exec ln -s {} "${home}/peer-results/" \;
fi

cat >"${scratch}/bazelw" <<'SHIM'
#!/usr/bin/env bash
# The README test's stand-in for ./bazelw: `run` runs the carried binary from
# the folder the user stands in, as bazelw does; `build` checks the labels.
set -uo pipefail
map="$(dirname "${BASH_SOURCE[0]}")/.readme_test_binaries"
binary_of() { awk -v l="$1" '$1 == l { print $2 }' "${map}"; }
verb=$1
shift
while [[ $# -gt 0 && $1 == -* ]]; do
  [[ $1 == -c ]] && shift
  shift
done
case ${verb} in
  run)
    label=$1
    shift
    [[ ${1:-} == -- ]] && shift
    path=$(binary_of "${label}")
    [[ -n ${path} ]] || { echo "readme test shim: ${label} is not carried by the test (a tool goes into README_TOOLS in tools/BUILD; an experiment is carried once tools/registry.sh --write lists it)" >&2; exit 97; }
    export BUILD_WORKING_DIRECTORY=${PWD} DISSECT_CALLER_DIR=${PWD}
    exec "${path}" "$@"
    ;;
  build)
    for label in "$@"; do
      [[ -n $(binary_of "${label}") ]] || { echo "readme test shim: ${label} is not carried" >&2; exit 97; }
    done
    ;;
  *)
    echo "readme test shim: 'bazelw ${verb}' is not run by the README test" >&2
    exit 97
    ;;
esac
SHIM
chmod +x "${scratch}/bazelw"

# Splits the README into blocks: block_<n>.sh, and block_<n>.skip holding the
# reason where the line before the fence marks it.
blocks=${scratch}/.blocks
mkdir -p "${blocks}"
awk -v dir="${blocks}" '
  /^<!-- readme-test: skip / { reason = $0; sub(/^<!-- readme-test: skip /, "", reason); sub(/ -->$/, "", reason); next }
  /^```sh$/ { n++; file = sprintf("%s/block_%02d.sh", dir, n); printf "" > file
              if (reason != "") { print reason > sprintf("%s/block_%02d.skip", dir, n) }
              printf "line %d\n", NR > sprintf("%s/block_%02d.line", dir, n)
              inside = 1; reason = ""; next }
  /^```/ { inside = 0; reason = ""; next }
  inside { print >> file; next }
  { if ($0 !~ /^[[:space:]]*$/) reason = "" }
' "${readme}"

passed=0
gpu_stops=0
skipped=0
failed=0
for script in "${blocks}"/block_*.sh; do
  name=$(basename "${script}" .sh)
  where=$(cat "${blocks}/${name}.line")
  if [[ -f ${blocks}/${name}.skip ]]; then
    echo "SKIP ${name} (README ${where}): $(cat "${blocks}/${name}.skip")"
    skipped=$((skipped + 1))
    continue
  fi
  if grep -q 'peer-results' "${script}" && [[ ! -d ${home}/peer-results ]]; then
    echo "SKIP ${name} (README ${where}): the peer files are not here (${peers} absent)"
    skipped=$((skipped + 1))
    continue
  fi
  log=${blocks}/${name}.log
  (cd "${scratch}" && HOME=${home} bash -e -o pipefail "${script}") >"${log}" 2>&1
  status=$?
  last=$(grep -v '^[[:space:]]*$' "${log}" | tail -n 1)
  if ((status == 0)); then
    echo "PASS ${name} (README ${where})"
    passed=$((passed + 1))
  elif [[ ${status} -ne 97 && ( ${last} == *"no CUDA device visible"* || ${last} == *"no NVIDIA driver"* ) ]]; then
    echo "PASS ${name} (README ${where}): ran up to the GPU step: ${last}"
    gpu_stops=$((gpu_stops + 1))
  else
    echo "FAIL ${name} (README ${where}), exit ${status}:"
    sed 's/^/    /' "${log}" | tail -n 20
    failed=$((failed + 1))
  fi
done

total=$((passed + gpu_stops + skipped + failed))
echo "readme examples: ${total} blocks: ${passed} ran, ${gpu_stops} stopped at the GPU, ${skipped} skipped, ${failed} failed"
((total > 0)) || { echo "no sh blocks found in ${readme}" >&2; exit 1; }
((failed == 0))
