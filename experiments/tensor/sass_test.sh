#!/usr/bin/env bash
# SASS check of the tensor probes through cuobjdump (@cuda_binutils, which
# ./bazelw installs from PyPI where the toolkit lacks it). Arguments: the
# cuobjdump wrapper (nvdisasm on its PATH) or --skip=<why>, then the probe
# archives. Without the tools it prints SKIPPED with the reason and passes.
# Per kernel it counts tensor instructions in the machine code: every
# wgmma kernel must hold chains × 4 HGMMA/IGMMA/QGMMA (native), every
# mma.sync/mma.sp kernel chains × 4 HMMA/IMMA, except the fp8 forms, which
# ptxas emulates on sm_90a (their kernels must hold no QMMA and at least one
# HMMA: the fp8 operands are converted and multiplied as f16).
set -euo pipefail
if [[ "$1" == --skip=* ]]; then
  echo "SKIPPED: ${1#--skip=}"
  exit 0
fi
CUOBJDUMP=$1
shift
status=0
checked=0
for lib in "$@"; do
  "${CUOBJDUMP}" -sass "${lib}" > sass.txt
  grep -q "Function :" sass.txt || { echo "FAIL ${lib}: no functions"; exit 1; }
  awk '
    /Function :/ { if (name != "") print name, n; name = $3; n = 0; next }
    /[ \t](HMMA|IMMA|QMMA|HGMMA|IGMMA|QGMMA)[. ]/ { n++ }
    END { if (name != "") print name, n }' sass.txt > counts.txt
  while read -r name count; do
    if [[ "${name}" =~ WgmmaKernel.*ELi([0-9]+)ELb[01]ELi([0-9]+)ELb[01]EE ]]; then
      want=$(( BASH_REMATCH[2] * 4 ))
    elif [[ "${name}" =~ MmaSyncKernelINS0_[0-9]+(E4m3F32|E5m2F32|SpE4m3F32)ELi([0-9]+)EE ]]; then
      if awk -v f="${name}" '/Function :/ {on = ($3 == f)} on && /QMMA/ {found = 1} END {exit !found}' sass.txt; then
        echo "FAIL ${name}: native QMMA found (the emulation note is stale)"; status=1
      elif (( count < 1 )); then
        echo "FAIL ${name}: no HMMA"; status=1
      else
        echo "ok   ${name}: emulated, ${count} HMMA"
      fi
      continue
    elif [[ "${name}" =~ MmaSyncKernelINS0_[0-9]+[A-Za-z0-9]+ELi([0-9]+)EE ]]; then
      want=$(( BASH_REMATCH[1] * 4 ))
    else
      continue
    fi
    checked=$((checked + 1))
    if (( count == want )); then
      echo "ok   ${name}: ${count}"
    else
      echo "FAIL ${name}: ${count} tensor instructions, want ${want}"; status=1
    fi
  done < counts.txt
done
# 9 native mma.sync/mma.sp forms × 2 modes and 11 wgmma forms × 24.
if (( checked != 282 )); then
  echo "FAIL: checked ${checked} native kernels, want 282"; status=1
fi
exit "${status}"
