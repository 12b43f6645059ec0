// Operand fill: one grid-stride kernel writing counter-hashed random bit
// patterns of a given element format.
#include "kernels/tensor/fill.h"

namespace dissect {
namespace {

__device__ __forceinline__ uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__global__ void FillOperandKernel(uint8_t* __restrict__ dst, size_t n, FillFormat f,
                                  uint64_t seed) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint64_t h = Mix(seed ^ Mix(i + 1));
    uint32_t bits;
    if (f.integer) {
      bits = static_cast<uint32_t>(h & 0x7f);
    } else {
      const uint32_t exponent = static_cast<uint32_t>(f.bias - 4 + (h >> 32) % 4);
      const uint32_t mantissa = static_cast<uint32_t>(h) & ((1u << f.mantissa_bits) - 1);
      bits = ((exponent << f.mantissa_bits) | mantissa) << f.shift;
    }
    switch (f.bytes) {
      case 1:
        dst[i] = static_cast<uint8_t>(bits);
        break;
      case 2:
        reinterpret_cast<uint16_t*>(dst)[i] = static_cast<uint16_t>(bits);
        break;
      default:
        reinterpret_cast<uint32_t*>(dst)[i] = bits;
        break;
    }
  }
}

}  // namespace

cudaError_t LaunchFillOperand(void* dst, size_t n, const FillFormat& format, uint64_t seed,
                              cudaStream_t stream) {
  if (dst == nullptr || (format.bytes != 1 && format.bytes != 2 && format.bytes != 4)) {
    return cudaErrorInvalidValue;
  }
  if (n == 0) return cudaSuccess;
  constexpr int kThreads = 256;
  const size_t wanted = (n + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(wanted < 65536 ? wanted : 65536);
  FillOperandKernel<<<blocks, kThreads, 0, stream>>>(static_cast<uint8_t*>(dst), n, format, seed);
  return cudaGetLastError();
}

}  // namespace dissect
