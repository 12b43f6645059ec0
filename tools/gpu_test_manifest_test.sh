#!/usr/bin/env bash
# gpu_test_manifest.py on a small `bazel query --output=xml` document: one
# line per rule, the binary's name and its args shell-quoted, so that
# `eval set --` in tools/device_checks.sh gives back the exact args.
set -euo pipefail
script="${TEST_SRCDIR}/dissect/tools/gpu_test_manifest.py"
got=$(python3 "${script}" <<'XML'
<?xml version="1.1" encoding="UTF-8" standalone="no"?>
<query version="2">
    <rule class="cc_test" location="x" name="//experiments:relu_bandwidth_gpu_test">
        <list name="tags"><string value="gpu"/><string value="dissect_smoke_of=relu_bandwidth"/></list>
        <list name="args">
            <string value="--axis=bytes=64MiB"/>
            <string value="--expect=dram_peak_pct:20:110"/>
            <string value="--note=two words 'quoted'"/>
        </list>
    </rule>
    <rule class="cc_test" location="y" name="//probes:counters_gpu_test">
        <list name="tags"><string value="gpu"/></list>
    </rule>
</query>
XML
)
want="relu_bandwidth_gpu_test --axis=bytes=64MiB --expect=dram_peak_pct:20:110 '--note=two words '\"'\"'quoted'\"'\"''
counters_gpu_test"
if [[ "${got}" != "${want}" ]]; then
  printf 'FAIL: got\n%s\nwant\n%s\n' "${got}" "${want}"
  exit 1
fi
# The quoting round-trips through eval, as device_checks.sh reads it.
eval "set -- $(head -1 <<< "${got}")"
[[ $# -eq 4 && "$4" == "--note=two words 'quoted'" ]] || { echo "FAIL: eval gave $# args: $*"; exit 1; }
# --smoke: only the tests dissect_experiment made, each with its binary's label.
got=$(python3 "${script}" --smoke <<'XML'
<?xml version="1.1" encoding="UTF-8" standalone="no"?>
<query version="2">
    <rule class="cc_test" location="x" name="//experiments/sharing/dsm:dsm_latency_peer_gpu_test">
        <list name="tags"><string value="exclusive"/><string value="gpu"/><string value="dissect_smoke_of=dsm_latency"/></list>
    </rule>
    <rule class="cc_test" location="y" name="//probes:counters_gpu_test">
        <list name="tags"><string value="gpu"/></list>
    </rule>
</query>
XML
)
want="dsm_latency_peer_gpu_test //experiments/sharing/dsm:dsm_latency"
[[ "${got}" == "${want}" ]] || { printf 'FAIL: --smoke got\n%s\nwant\n%s\n' "${got}" "${want}"; exit 1; }
echo "ok"
