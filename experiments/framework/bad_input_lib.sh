# Sourced by the experiments' bad_input_test.sh scripts, run from the folder
# that holds the binaries. Bad input must give the expected exit status and
# exactly one line on stderr, without a GPU (CUDA_VISIBLE_DEVICES="").
failures=0

expect() {  # expect <status> <stderr substring> <binary> <args...>
  local want_status=$1 want_text=$2 bin=$3
  shift 3
  local err status lines
  err=$(CUDA_VISIBLE_DEVICES="" "./${bin}" "$@" 2>&1 >/dev/null)
  status=$?
  lines=$(printf '%s\n' "${err}" | grep -c .)
  if [[ ${status} -ne ${want_status} || "${err}" != *"${want_text}"* || ${lines} -ne 1 ]]; then
    echo "FAIL: ${bin} $* -> status ${status} (want ${want_status}), ${lines} stderr line(s):"
    printf '  %s\n' "${err}"
    failures=$((failures + 1))
  else
    echo "ok:   ${bin} $* -> ${status}: ${err}"
  fi
}

finish() {  # the test's exit status: 0 when nothing failed
  echo "${failures} failure(s)"
  [[ ${failures} -eq 0 ]]
}
