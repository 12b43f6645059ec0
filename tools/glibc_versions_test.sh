#!/usr/bin/env bash
# tools/glibc_versions.sh: the newest GLIBC_/GLIBCXX_ versions among the
# version references of `objdump -p` (compared as versions: 2.9 < 2.34,
# 3.4.9 < 3.4.30; definitions and other names ignored), on a fixture and on
# a C++ binary built here, and the host's versions, which must cover what
# that binary (which runs here) needs.
set -uo pipefail
tools="${TEST_SRCDIR}/dissect/tools"
source "${tools}/glibc_versions.sh"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

got=$(newest_required << 'EOF_DUMP'

a:     file format elf64-x86-64

Dynamic Section:
  NEEDED               libstdc++.so.6
  NEEDED               libc.so.6

Version References:
  required from libc.so.6:
    0x09691a75 0x00 02 GLIBC_2.2.5
    0x0d696919 0x00 03 GLIBC_2.9
    0x069691b4 0x00 04 GLIBC_2.34
    0x0963cf85 0x00 05 GLIBC_PRIVATE
  required from libstdc++.so.6:
    0x02297f89 0x00 06 GLIBCXX_3.4.9
    0x0297f840 0x00 07 GLIBCXX_3.4.30
    0x0bafd17b 0x00 08 CXXABI_1.3.13
  required from libgcc_s.so.1:
    0x0b792650 0x00 09 GCC_3.0

b.so:     file format elf64-x86-64

Version definitions:
1 0x01 0x0e39e6f4 b.so
2 0x00 0x0297f842 GLIBCXX_3.4.32
3 0x00 0x069691b9 GLIBC_2.39

Version References:
  required from libc.so.6:
    0x06969197 0x00 04 GLIBC_2.17
EOF_DUMP
)
want=$'glibc 2.34\nglibcxx 3.4.30'
[[ "${got}" == "${want}" ]] || fail "newest_required gave '${got}', want '${want}'"

version_older 2.9 2.34 || fail "2.9 is older than 2.34"
version_older 3.4.9 3.4.30 || fail "3.4.9 is older than 3.4.30"
! version_older 2.34 2.34 || fail "2.34 is not older than itself"
! version_older 2.39 2.34 || fail "2.39 is not older than 2.34"

probe="${tools}/glibc_probe"
"${probe}" > /dev/null || fail "the probe does not run here"
got=$(bundle_requirements "${probe}") || fail "bundle_requirements failed on the probe"
need_glibc=$(awk '$1 == "glibc" { print $2 }' <<< "${got}")
need_glibcxx=$(awk '$1 == "glibcxx" { print $2 }' <<< "${got}")
[[ "${need_glibc}" =~ ^2\.[0-9]+(\.[0-9]+)?$ ]] || fail "no glibc version for the probe: '${got}'"
[[ "${need_glibcxx}" =~ ^3\.4(\.[0-9]+)?$ ]] || fail "no glibcxx version for the probe: '${got}'"
# The same from the dynamic symbols' versions (objdump -T), another table.
from_symbols=$(objdump -T "${probe}" | grep -o 'GLIBC_[0-9][0-9.]*' | cut -c7- | sort -V | tail -1)
[[ "${need_glibc}" == "${from_symbols}" ]] ||
  fail "glibc ${need_glibc} from the version references, ${from_symbols} from the symbols"
! bundle_requirements "${tools}/no_such_file" > /dev/null 2>&1 || fail "a missing file is not an error"

have_glibc=$(host_glibc)
lib=$(host_libstdcxx)
[[ -n "${lib}" ]] && have_glibcxx=$(host_glibcxx "${lib}") || have_glibcxx=""
[[ -n "${have_glibc}" ]] || fail "no host glibc version"
[[ -n "${have_glibcxx}" ]] || fail "no host libstdc++ version (${lib:-not found})"
! version_older "${have_glibc}" "${need_glibc}" ||
  fail "host glibc ${have_glibc} older than the ${need_glibc} of a probe that runs here"
! version_older "${have_glibcxx}" "${need_glibcxx}" ||
  fail "host GLIBCXX_${have_glibcxx} older than the ${need_glibcxx} of a probe that runs here"
lib=$(LD_LIBRARY_PATH="${TEST_TMPDIR}/none:$(dirname "${lib}")" host_libstdcxx)
[[ -f "${lib}" ]] || fail "host_libstdcxx does not look in LD_LIBRARY_PATH"

if ((failures > 0)); then
  echo "${failures} failures"
  exit 1
fi
echo "ok"
