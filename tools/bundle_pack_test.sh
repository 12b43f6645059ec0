#!/usr/bin/env bash
# tools/bundle_pack.sh (tools/bundle.sh --experiments) on a fake dist/, no
# Bazel build: the subset bundle holds the named experiments, their GPU-test
# wrappers, the scripts' own binaries and everything of dist/ but bin/;
# GPU_TESTS and EXPERIMENTS list only what it holds; an unknown name is one
# line and status 1; dist/ itself is left whole.
set -uo pipefail
src="${TEST_SRCDIR}/dissect"
tmp=${TEST_TMPDIR}
source "${src}/tools/device_test_util.sh"
source "${src}/tools/bundle_pack.sh"

# A fake dist/ as tools/bundle.sh leaves it: experiments alpha, beta and
# gamma (beta with two smoke tests), a non-smoke GPU test, the tools.
make_dist() {
  local dist=$1 name
  mkdir -p "${dist}/bin" "${dist}/lib" "${dist}/tools" "${dist}/papers" "${dist}/first_contact" \
    "${dist}/reference/fake_gpu/2026-01-01"
  for name in alpha beta gamma verdict report reproduce sweep compare kernels_gpu_test; do
    printf '\177ELF fake %s\n' "${name}" > "${dist}/bin/${name}"
  done
  for name in alpha_gpu_test:alpha beta_gpu_test:beta beta_ops_gpu_test:beta gamma_gpu_test:gamma; do
    printf '#!/bin/sh\n# %s: the smoke check.\n# dissect_smoke_of=%s\nexec "$(dirname "$0")/%s" --smoke "$@"\n' \
      "${name%%:*}" "${name#*:}" "${name#*:}" > "${dist}/bin/${name%%:*}"
  done
  chmod 0755 "${dist}"/bin/*
  printf '%s\n' alpha_gpu_test "beta_gpu_test --axis=x=1 '--note=two words'" beta_ops_gpu_test \
    gamma_gpu_test "kernels_gpu_test --gtest_filter=Fake.*" > "${dist}/GPU_TESTS"
  printf '%s\n' alpha beta gamma > "${dist}/EXPERIMENTS"
  echo "glibc 2.34" > "${dist}/MANIFEST"
  echo "0123abcd" > "${dist}/COMMIT"
  echo "lib" > "${dist}/lib/libbenchmark.so.1debian"
  echo "script" > "${dist}/tools/first_contact.sh"
  echo "{}" > "${dist}/papers/p.json"
  echo "plan" > "${dist}/first_contact/headline.plan"
  printf 'stage\tid\n' > "${dist}/reference/fake_gpu/2026-01-01/STEPS.tsv"
}

cd "${tmp}" || exit 1
make_dist dist
before=$(find dist -type f | sort | xargs md5sum)

# A subset of beta: its binary, both its wrappers, the three tools.
bundle_pack_subset dist beta.tar.gz beta 2> err.txt || fail "packing beta failed: $(cat err.txt)"
mkdir -p beta && tar xzf beta.tar.gz -C beta || fail "beta.tar.gz does not unpack"
got=$(cd beta/dist/bin && ls | sort | paste -sd' ')
want="beta beta_gpu_test beta_ops_gpu_test report reproduce verdict"
[[ "${got}" == "${want}" ]] || fail "beta's bin/ holds '${got}', want '${want}'"
printf '%s\n' "beta_gpu_test --axis=x=1 '--note=two words'" beta_ops_gpu_test > want_tests
cmp -s want_tests beta/dist/GPU_TESTS || fail "beta's GPU_TESTS: $(cat beta/dist/GPU_TESTS)"
[[ "$(cat beta/dist/EXPERIMENTS)" == beta ]] || fail "beta's EXPERIMENTS: $(cat beta/dist/EXPERIMENTS)"
for f in MANIFEST COMMIT lib/libbenchmark.so.1debian tools/first_contact.sh papers/p.json \
  first_contact/headline.plan reference/fake_gpu/2026-01-01/STEPS.tsv; do
  cmp -s "dist/${f}" "beta/dist/${f}" || fail "beta's bundle lacks dist/${f} or changed it"
done
[[ -x beta/dist/bin/beta_gpu_test && -x beta/dist/bin/beta ]] || fail "beta's binaries lost their x bit"

# Two experiments, comma-separated: both and their wrappers.
bundle_pack_subset dist two.tar.gz alpha,gamma 2> err.txt || fail "packing alpha,gamma failed: $(cat err.txt)"
mkdir -p two && tar xzf two.tar.gz -C two || fail "two.tar.gz does not unpack"
got=$(cd two/dist/bin && ls | sort | paste -sd' ')
want="alpha alpha_gpu_test gamma gamma_gpu_test report reproduce verdict"
[[ "${got}" == "${want}" ]] || fail "alpha,gamma's bin/ holds '${got}', want '${want}'"
[[ "$(paste -sd' ' two/dist/GPU_TESTS)" == "alpha_gpu_test gamma_gpu_test" ]] ||
  fail "alpha,gamma's GPU_TESTS: $(cat two/dist/GPU_TESTS)"

# Unknown names (a glob among them): one line naming them, status 1, no file.
for bad in delta 'beta,delta' '*' ''; do
  rm -f bad.tar.gz
  if bundle_pack_subset dist bad.tar.gz "${bad}" 2> err.txt; then
    fail "--experiments='${bad}' was accepted"
  fi
  [[ "$(wc -l < err.txt)" == 1 ]] || fail "--experiments='${bad}': not one line: $(cat err.txt)"
  [[ ! -e bad.tar.gz ]] || fail "--experiments='${bad}' still wrote bad.tar.gz"
done
bundle_pack_subset dist bad.tar.gz beta,delta 2> err.txt
expect_line err.txt "unknown experiment(s) in --experiments: delta; the experiments are: alpha beta gamma"

# A dist/ without the tools the scripts run: refused, by name.
cp -a dist notools && rm notools/bin/verdict
bundle_pack_subset notools nt.tar.gz beta 2> err.txt && fail "a bundle without verdict was packed"
expect_line err.txt "notools/bin/verdict is missing"

[[ "$(find dist -type f | sort | xargs md5sum)" == "${before}" ]] || fail "packing changed dist/"
report_failures
