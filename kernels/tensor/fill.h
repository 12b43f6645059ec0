// Host interface of the operand fill kernel (kernels/tensor/fill.cu): writes
// random element bit patterns of a tensor input type into device memory,
// for the cuBLASLt GEMM sweep's large matrices.
#ifndef DISSECT_KERNELS_TENSOR_FILL_H_
#define DISSECT_KERNELS_TENSOR_FILL_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace dissect {

// Bit layout of a floating-point element (stored in `bytes` bytes).
struct FillFormat {
  int bytes = 2;           // 1, 2 or 4
  bool integer = false;    // int8: uniform over [0, 127]
  int exponent_bits = 5;   // floating point: sign 0, exponent bias-4 .. bias-1,
  int mantissa_bits = 10;  // random mantissa: positive values in [1/16, 1)
  int bias = 15;
  int shift = 0;  // zero bits below the mantissa (tf32 in f32: 13)
};

// Element i of `dst` (n elements) becomes a function of (seed, i) only.
// Positive values keep every dot product of a GEMM far from zero, so that a
// wrong or partial result stands out against the tolerance of the check.
cudaError_t LaunchFillOperand(void* dst, size_t n, const FillFormat& format, uint64_t seed,
                              cudaStream_t stream);

}  // namespace dissect

#endif  // DISSECT_KERNELS_TENSOR_FILL_H_
