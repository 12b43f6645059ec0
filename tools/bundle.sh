#!/usr/bin/env bash
# Builds the experiments and their GPU tests with -c opt and copies them,
# stripped, with the shared libraries they need (Debian ships Google
# Benchmark only as a .so; cublaslt_gemm links cuBLAS/cuBLASLt, about
# 600 MB, copied unless DISSECT_BUNDLE_CUBLAS=0 for a machine that has the
# CUDA toolkit), into dist/ (git-ignored) for a GPU machine that has no
# Bazel. There:  LD_LIBRARY_PATH=dist/lib dist/bin/shared_latency --help
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
targets=(
  //experiments:shared_latency //experiments:relu_bandwidth
  //experiments:memory_latency //experiments:latency_trace
  //experiments:memory_bandwidth //experiments:shared_bandwidth
  //experiments:shared_latency_gpu_test //experiments:relu_bandwidth_gpu_test
  //experiments:memory_latency_gpu_test //experiments:latency_trace_gpu_test
  //experiments:memory_bandwidth_gpu_test //experiments:shared_bandwidth_gpu_test
  //experiments/tensor:mma_sync //experiments/tensor:wgmma //experiments/tensor:cublaslt_gemm
  //experiments/tensor:mma_sync_gpu_test //experiments/tensor:wgmma_gpu_test
  //experiments/tensor:cublaslt_gemm_gpu_test
  //analysis:report
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
if [[ "${DISSECT_BUNDLE_CUBLAS:-1}" == 1 ]]; then
  for lib in $(ldd dist/bin/cublaslt_gemm | awk '/libcublas/ {print $3}'); do
    cp -L "${lib}" dist/lib/
  done
fi
git rev-parse HEAD > dist/COMMIT
du -sh dist
