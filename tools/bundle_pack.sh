# shellcheck shell=bash
# Sourced by tools/bundle.sh (and its test, tools/bundle_pack_test.sh): the
# packing of a built dist/ into dist.tar.gz, whole or for a few experiments.
#
# A subset bundle (tools/bundle.sh --experiments=NAME,...) holds everything
# of dist/ but bin/, and of bin/ only
#   - the named experiments' binaries,
#   - the GPU-test wrappers that run one of them (each wrapper carries the
#     line "# dissect_smoke_of=<experiment>"),
#   - the binaries the GPU machine's scripts run themselves
#     (kBundleDeviceTools),
# with dist/GPU_TESTS cut to the tests whose binaries it holds (so that
# tools/first_contact.sh's correctness stage runs no missing test) and
# dist/EXPERIMENTS to the named experiments.

# The binaries that the scripts of the bundle run besides the experiments:
# verdict (tools/first_contact.sh judges the headline numbers with it),
# report (tools/reference_run.sh writes REPORT.md with it) and reproduce (the
# paper steps of configs/first_contact/rotation.plan and reference_run.sh's
# papers part).
readonly kBundleDeviceTools=(verdict report reproduce)

# bundle_check_experiments CSV KNOWN...: whether every name of the
# comma-separated CSV is one of the KNOWN experiments; else one line on
# stderr naming the unknown ones and the known, and status 1.
bundle_check_experiments() {
  local name known names unknown=()
  IFS=, read -ra names <<< "$1"
  shift
  ((${#names[@]} > 0)) || { echo "bundle.sh: --experiments names no experiment" >&2; return 1; }
  for name in "${names[@]}"; do
    for known in "$@"; do
      [[ "${name}" == "${known}" ]] && continue 2
    done
    unknown+=("${name}")
  done
  ((${#unknown[@]} == 0)) && return 0
  echo "bundle.sh: unknown experiment(s) in --experiments: ${unknown[*]}; the experiments are: $*" >&2
  return 1
}

# bundle_smoke_of WRAPPER: the experiment a GPU-test wrapper runs, or
# nothing for any other file (the binaries are not read: only scripts).
bundle_smoke_of() {
  [[ "$(head -c 2 "$1" 2> /dev/null)" == '#!' ]] || return 0
  sed -n 's/^# dissect_smoke_of=//p' "$1" | head -1
}

# bundle_pack_subset DIST TARBALL CSV: TARBALL (a .tar.gz unpacking into
# dist/) of DIST's subset for the experiments of CSV, which must be named in
# DIST/EXPERIMENTS. DIST itself is left as it is. Status 1 with one line on
# stderr on an unknown name or a bundle that lacks what it needs.
bundle_pack_subset() {
  local dist=$1 tarball=$2 csv=$3 stage name file of line keep rc
  local -a names
  IFS=, read -ra names <<< "${csv}"
  [[ -f "${dist}/EXPERIMENTS" && -f "${dist}/GPU_TESTS" ]] || {
    echo "bundle.sh: ${dist} has no EXPERIMENTS or GPU_TESTS; run tools/bundle.sh again" >&2
    return 1
  }
  local -a known
  mapfile -t known < "${dist}/EXPERIMENTS"
  bundle_check_experiments "${csv}" "${known[@]}" || return 1
  for name in "${names[@]}" "${kBundleDeviceTools[@]}"; do
    [[ -x "${dist}/bin/${name}" ]] || { echo "bundle.sh: ${dist}/bin/${name} is missing" >&2; return 1; }
  done
  stage=$(mktemp -d) || return 1
  mkdir -p "${stage}/dist/bin"
  for file in "${dist}"/*; do
    [[ "$(basename "${file}")" == bin ]] || cp -a "${file}" "${stage}/dist/"
  done
  for name in "${names[@]}" "${kBundleDeviceTools[@]}"; do
    cp -a "${dist}/bin/${name}" "${stage}/dist/bin/"
  done
  for file in "${dist}"/bin/*; do
    of=$(bundle_smoke_of "${file}")
    [[ -z "${of}" || ",${csv}," != *",${of},"* ]] || cp -a "${file}" "${stage}/dist/bin/"
  done
  while IFS= read -r line; do
    keep=${line%% *}
    [[ ! -e "${stage}/dist/bin/${keep}" ]] || echo "${line}"
  done < "${dist}/GPU_TESTS" > "${stage}/dist/GPU_TESTS"
  printf '%s\n' "${names[@]}" > "${stage}/dist/EXPERIMENTS"
  tar czf "${tarball}" -C "${stage}" dist
  rc=$?
  rm -rf "${stage}"
  return "${rc}"
}
