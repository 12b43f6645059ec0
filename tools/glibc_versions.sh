# shellcheck shell=bash
# Sourced by tools/bundle.sh (on the build machine: what the bundled binaries
# need) and tools/device_common.sh (on the GPU machine: what the host has).
# Versions are compared as versions, not text: 2.9 < 2.34, 3.4.9 < 3.4.30.

# version_older A B: true when version A is older than version B.
version_older() {
  [[ "$1" != "$2" && "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" == "$1" ]]
}

# newest_required: `objdump -p` of one or more ELF files on stdin; prints
# "glibc X" and "glibcxx Y", the highest GLIBC_x.y and GLIBCXX_x.y.z among
# their version references (what they ask of the host's libc, libm and
# libstdc++). Versions a library defines itself are not asked of the host.
newest_required() {
  awk '
    /^Version References:/ { refs = 1; next }
    /^[^ \t]/ { refs = 0 }
    refs && $NF ~ /^GLIBC_[0-9]/ { print "glibc", substr($NF, 7) }
    refs && $NF ~ /^GLIBCXX_[0-9]/ { print "glibcxx", substr($NF, 9) }
  ' | sort -k1,1 -k2,2V | awk '{ newest[$1] = $2 } END { for (k in newest) print k, newest[k] }' |
    sort
}

# bundle_requirements FILE...: newest_required of the files (binaries and
# shared libraries); fails when objdump cannot read one of them.
bundle_requirements() {
  local dump
  dump=$(objdump -p "$@") || return 1
  newest_required <<< "${dump}"
}

# host_glibc: the host's glibc version (2.36), empty when unknown.
host_glibc() {
  local v
  v=$(getconf GNU_LIBC_VERSION 2> /dev/null | awk '{ print $2 }')
  [[ -n "${v}" ]] || v=$(ldd --version 2> /dev/null | awk 'NR == 1 { print $NF }')
  echo "${v}"
}

# host_libstdcxx: the libstdc++.so.6 the loader would pick, as it looks:
# LD_LIBRARY_PATH, then its cache, then the usual folders; empty if none.
host_libstdcxx() {
  local dir ldconfig
  local IFS=:
  for dir in ${LD_LIBRARY_PATH:-}; do
    [[ -n "${dir}" && -f "${dir}/libstdc++.so.6" ]] && { echo "${dir}/libstdc++.so.6"; return; }
  done
  ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
  dir=$("${ldconfig}" -p 2> /dev/null | awk -v arch="$(uname -m | tr _ -)" '
    $1 == "libstdc++.so.6" && (first == "" || index($0, arch)) {
      first = $NF; if (index($0, arch)) exit
    }
    END { print first }')
  [[ -n "${dir}" && -f "${dir}" ]] && { echo "${dir}"; return; }
  for dir in /lib/"$(uname -m)"-linux-gnu /usr/lib/"$(uname -m)"-linux-gnu /usr/lib64 /lib64 /usr/lib; do
    [[ -f "${dir}/libstdc++.so.6" ]] && { echo "${dir}/libstdc++.so.6"; return; }
  done
}

# host_glibcxx LIB: the newest GLIBCXX_ version the libstdc++ LIB defines
# (3.4.30), empty when none; reads the file, so needs no binutils.
host_glibcxx() {
  grep -ao 'GLIBCXX_[0-9][0-9.]*[0-9]' "$1" 2> /dev/null | cut -c9- | sort -uV | tail -1
}
