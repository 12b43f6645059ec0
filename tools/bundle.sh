#!/usr/bin/env bash
# Builds the experiments and their GPU tests with -c opt and copies them,
# stripped, with the one shared library they need (Debian ships Google
# Benchmark only as a .so), into dist/ (git-ignored) for a GPU machine that
# has no Bazel. There:  LD_LIBRARY_PATH=dist/lib dist/bin/shared_latency --help
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
targets=(
  //experiments:shared_latency //experiments:relu_bandwidth
  //experiments:memory_latency //experiments:latency_trace
  //experiments:memory_bandwidth //experiments:shared_bandwidth
  //experiments:shared_latency_gpu_test //experiments:relu_bandwidth_gpu_test
  //experiments:memory_latency_gpu_test //experiments:latency_trace_gpu_test
  //experiments:memory_bandwidth_gpu_test //experiments:shared_bandwidth_gpu_test
  //analysis:report
  //experiments/l1_bypass:l1_bypass //experiments/l1_bypass:l1_bypass_gpu_test
)
./bazelw build -c opt "$@" "${targets[@]}"
rm -rf dist && mkdir -p dist/bin dist/lib
bin=$(./bazelw info -c opt "$@" bazel-bin 2>/dev/null)
for t in "${targets[@]}"; do
  path="${bin}/${t#//}"; path="${path/://}"
  [[ -f "${path}" ]] || continue
  install -m 0755 "${path}" dist/bin/
  strip dist/bin/"$(basename "${path}")"
done
cp -L "$(compgen -G '/usr/lib/*-linux-gnu/libbenchmark.so.1debian' | head -1)" dist/lib/
git rev-parse HEAD > dist/COMMIT
du -sh dist
