// Test fixture for //experiments/tensor:resource_usage_test: a kernel that
// keeps 96 floats live across a loop and is compiled with at most 32
// registers, so that ptxas must spill. It proves that the spill check reads
// real ptxas output and fails on a spilling kernel.
namespace dissect {

__global__ void SpillingFixtureKernel(const float* __restrict__ in, float* __restrict__ out,
                                      int n) {
  constexpr int kLive = 96;
  float v[kLive];
#pragma unroll
  for (int i = 0; i < kLive; ++i) v[i] = in[i * blockDim.x + threadIdx.x];
  for (int it = 0; it < n; ++it) {
#pragma unroll
    for (int i = 0; i < kLive; ++i) v[i] = v[i] * v[(i + 1) % kLive] + 1.0f;
  }
#pragma unroll
  for (int i = 0; i < kLive; ++i) out[i * blockDim.x + threadIdx.x] = v[i];
}

}  // namespace dissect
