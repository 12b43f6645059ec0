# shellcheck shell=bash
# Sourced by the tests of the GPU machine's scripts (device_scripts_test.sh,
# first_contact_test.sh): failures, expectations, and what the device tool
# would bring back from $OUT (at most 8 files of 16 MiB, 2 folders down).
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

expect_line() {  # expect_line FILE FIXED_STRING
  grep -qF -- "$2" "$1" 2> /dev/null || { fail "no line with '$2' in $1:"; cat "$1" 2> /dev/null; }
}

# check_out OUT: what the device tool brings back from OUT is all there is.
check_out() {
  local out=$1 n
  n=$(find "${out}" -type f | wc -l)
  ((n <= 8)) || fail "${out} holds ${n} files; the device tool brings back 8: $(cd "${out}" && find . -type f | head -30 | tr '\n' ' ')"
  [[ -z "$(find "${out}" -mindepth 4 -type f)" ]] || fail "files more than 2 folders down in ${out}"
  [[ -z "$(find "${out}" -type f -size +16M)" ]] || fail "files over 16 MiB in ${out}"
  [[ -z "$(find "${out}" -name '.*')" ]] || fail "temporary files left in ${out}: $(find "${out}" -name '.*')"
}

# unpack PACKDIR NAME DEST: the archive (one file or parts) unpacked into DEST.
unpack() {
  local pack=$1 name=$2 dest=$3
  mkdir -p "${dest}"
  if [[ -f "${pack}/${name}.tar.gz" ]]; then
    tar xzf "${pack}/${name}.tar.gz" -C "${dest}" || fail "${pack}/${name}.tar.gz does not unpack"
  elif compgen -G "${pack}/${name}.tar.gz.part-*" > /dev/null; then
    cat "${pack}/${name}.tar.gz.part-"* | tar xzf - -C "${dest}" || fail "the parts in ${pack} do not unpack"
  else
    fail "no ${name}.tar.gz (or parts) in ${pack}: $(ls -A "${pack}" 2> /dev/null | tr '\n' ' ')"
  fi
}

expect_files() {  # expect_files DIR FILE...
  local dir=$1 f
  shift
  for f in "$@"; do
    [[ -s "${dir}/${f}" ]] || fail "missing ${dir}/${f}"
  done
}

report_failures() {  # the test's last line and exit status
  if ((failures > 0)); then
    echo "${failures} failures"
    exit 1
  fi
  echo "ok"
}
