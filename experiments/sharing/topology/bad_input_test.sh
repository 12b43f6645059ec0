#!/usr/bin/env bash
# gpc_topology on a machine without a GPU: bad input exits 2 with one line on
# stderr; --help and --list work. gpc_records_check: bad usage exits 2, a
# file that is not launch records 1.
set -u
cd "${TEST_SRCDIR}/dissect/experiments/sharing/topology" || exit 1
source "${TEST_SRCDIR}/dissect/experiments/framework/bad_input_lib.sh" || exit 1

expect 2 "launches must be in 1..4096 (got 0)" gpc_topology --axis=launches=0
expect 2 "launches must be in 1..4096 (got 5000)" gpc_topology --axis=launches=5000
expect 2 "cluster_size must be 0 (the largest that fits) or a power of two >= 2 (got 3)" \
  gpc_topology --axis=cluster_size=3
expect 2 "(got 1)" gpc_topology --axis=cluster_size=1
expect 2 "no CUDA device visible" gpc_topology --axis=cluster_size=32

expect 2 "gpc_records_check" gpc_records_check
expect 1 "cannot read /nonexistent/records.json" gpc_records_check /nonexistent/records.json
printf '{"sm_count": 4}' > "${TEST_TMPDIR}/partial.json"
expect 1 "not gpc_topology launch records" gpc_records_check "${TEST_TMPDIR}/partial.json"

help=$(./gpc_topology --help)
for word in gpc_of_sm gpc_sizes inconsistent_sms max_active_clusters cluster_size_used \
    single_tpc_sms capacity_mismatches gpc_records_dir; do
  [[ "${help}" == *"${word}"* ]] || { echo "FAIL: --help does not mention ${word}"; failures=$((failures + 1)); }
done
points=$(./gpc_topology --list --axis=cluster_size=0,2,4,8,16 | grep -c '^gpc_topology/')
if [[ ${points} -ne 5 ]]; then
  echo "FAIL: --list printed ${points} points, want 5"; failures=$((failures + 1))
fi

finish
