// Bandwidth kernels: one tiled streaming kernel template over (what each
// element does: read / write / copy) × (access width: uint32_t / uint2 /
// uint4) × (bytes in flight per thread: 16 / 32 / 64 / 128) × (each SM its
// own share, or, reads only, roaming the whole buffer), and one
// shared-memory streaming kernel template over the width.
#include <algorithm>
#include <iterator>
#include <type_traits>
#include <utility>

#include "kernels/bandwidth.h"
#include "kernels/device_clock.cuh"
#include "kernels/occupancy.h"
#include "kernels/tiled_stream.cuh"

namespace dissect {
namespace {

constexpr uint32_t kPassMix = 0x9e3779b9u;

__host__ __device__ __forceinline__ uint32_t PatternWord(size_t word, uint32_t mix) {
  return static_cast<uint32_t>(word) ^ mix;
}

__host__ __device__ __forceinline__ uint32_t PassMix(int pass) {
  return static_cast<uint32_t>(pass) * kPassMix;
}

// Sum of the 32-bit words of one element.
__device__ __forceinline__ uint32_t WordSum(uint32_t v) { return v; }
__device__ __forceinline__ uint32_t WordSum(uint2 v) { return v.x + v.y; }
__device__ __forceinline__ uint32_t WordSum(uint4 v) { return v.x + v.y + v.z + v.w; }

// Element i of the write pattern (words i * words_per_element ...).
__device__ __forceinline__ void MakePattern(size_t i, uint32_t mix, uint32_t* out) {
  *out = PatternWord(i, mix);
}
__device__ __forceinline__ void MakePattern(size_t i, uint32_t mix, uint2* out) {
  *out = make_uint2(PatternWord(2 * i, mix), PatternWord(2 * i + 1, mix));
}
__device__ __forceinline__ void MakePattern(size_t i, uint32_t mix, uint4* out) {
  *out = make_uint4(PatternWord(4 * i, mix), PatternWord(4 * i + 1, mix),
                    PatternWord(4 * i + 2, mix), PatternWord(4 * i + 3, mix));
}

// What the streaming kernel does with element i in one pass, in two steps
// so that a tile issues all its loads before any of their uses: Fetch
// (read, copy: the load; write: the pattern), then Use (read: add to the
// sum; write, copy: the store).
struct ReadOp {
  static constexpr bool kSums = true;
  template <typename T>
  __device__ static T Fetch(const T* __restrict__ src, size_t i, uint32_t) {
    return src[i];
  }
  template <typename T>
  __device__ static void Use(T* __restrict__, size_t, const T& v, uint32_t& sum) {
    sum += WordSum(v);
  }
};

struct WriteOp {
  static constexpr bool kSums = false;
  template <typename T>
  __device__ static T Fetch(const T* __restrict__, size_t i, uint32_t mix) {
    T v;
    MakePattern(i, mix, &v);
    return v;
  }
  template <typename T>
  __device__ static void Use(T* __restrict__ dst, size_t i, const T& v, uint32_t&) {
    dst[i] = v;
  }
};

struct CopyOp {
  static constexpr bool kSums = false;
  template <typename T>
  __device__ static T Fetch(const T* __restrict__ src, size_t i, uint32_t) {
    return src[i];
  }
  template <typename T>
  __device__ static void Use(T* __restrict__ dst, size_t i, const T& v, uint32_t&) {
    dst[i] = v;
  }
};

// Tiles of kBatch elements per thread (kernels/tiled_stream.cuh): every
// thread handles the same elements in every pass (kRoaming false: the SM
// re-reads its own share), or every block streams the whole buffer in each
// pass from its own start (kRoaming true: the SMs read each other's shares).
template <typename Op, typename T, int kBatch, bool kRoaming>
__global__ void __launch_bounds__(kStreamThreads)
    StreamKernel(const T* __restrict__ src, T* __restrict__ dst, size_t n, int passes,
                 uint32_t* __restrict__ sink) {
  uint32_t sum = 0;
  constexpr size_t kTile = kTileElements<kBatch, kStreamThreads>;
  const size_t step_tiles = kRoaming ? RoamingStepTiles(blockIdx.x, n / kTile) : 0;
  // Not unrolled: where a buffer has no full tile, a pass is the partial
  // tile alone, and ptxas unrolled the roaming kernel's pass loop around
  // it, using each load before the next copy's (bandwidth_sass_test).
#pragma unroll 1
  for (int pass = 0; pass < passes; ++pass) {
    const uint32_t mix = PassMix(pass);
    const auto fetch = [&](size_t i) { return Op::Fetch(src, i, mix); };
    const auto use = [&](size_t i, const T& v) { Op::Use(dst, i, v, sum); };
    if constexpr (kRoaming) {
      ForEachTileRoaming<T, kBatch, kStreamThreads>(n, blockIdx.x, gridDim.x, threadIdx.x,
                                                    step_tiles, fetch, use);
    } else {
      ForEachTileOfBlock<T, kBatch, kStreamThreads>(n, fetch, use);
    }
  }
  if constexpr (Op::kSums) {
    for (int offset = 16; offset > 0; offset /= 2) {
      sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    }
    const size_t thread = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (threadIdx.x % 32 == 0) sink[thread / 32] = sum;
  }
}

// The StreamKernel instance for (Op, T, kBatch) and the sharing; nullptr
// for roaming writes and copies, which are not built: roaming is there to
// read the L2, and every block writing the whole buffer would only race.
template <typename T>
using StreamKernelPtr = void (*)(const T*, T*, size_t, int, uint32_t*);

template <typename Op, typename T, int kBatch>
StreamKernelPtr<T> StreamKernelFor(bool roaming) {
  if (!roaming) return StreamKernel<Op, T, kBatch, false>;
  if constexpr (std::is_same_v<Op, ReadOp>) return StreamKernel<Op, T, kBatch, true>;
  return nullptr;
}

// Calls f(T{}) with the element type of the width; cudaErrorInvalidValue if
// the width is not 32, 64 or 128 bits.
template <typename F>
cudaError_t DispatchWidth(int width_bits, F&& f) {
  switch (width_bits) {
    case 32:
      return f(uint32_t{});
    case 64:
      return f(uint2{});
    case 128:
      return f(uint4{});
    default:
      return cudaErrorInvalidValue;
  }
}

// Calls f(std::integral_constant<int, v>{}) for the v among kValues that
// equals `value`; cudaErrorInvalidValue if none does.
template <int... kValues, typename F>
cudaError_t DispatchInt(int value, F&& f) {
  cudaError_t result = cudaErrorInvalidValue;
  (void)((value == kValues && (result = f(std::integral_constant<int, kValues>{}), true)) || ...);
  return result;
}

// Calls f(std::integral_constant<int, bytes>{}) for `bytes` among
// kStreamBytesInFlight; cudaErrorInvalidValue for any other.
template <typename F, size_t... kIndex>
cudaError_t DispatchBytesInFlight(int bytes, F&& f, std::index_sequence<kIndex...>) {
  return DispatchInt<kStreamBytesInFlight[kIndex]...>(bytes, f);
}
template <typename F>
cudaError_t DispatchBytesInFlight(int bytes, F&& f) {
  return DispatchBytesInFlight(bytes, f,
                               std::make_index_sequence<std::size(kStreamBytesInFlight)>{});
}

// Calls f(Op{}, T{}, std::integral_constant<int, kBatch>{}) for the op, the
// element type of the width and the batch (elements per thread and tile)
// that puts `bytes_in_flight` bytes in flight per thread.
template <typename F>
cudaError_t Dispatch(StreamOp op, int width_bits, int bytes_in_flight, F&& f) {
  const auto with = [&](auto op_tag) {
    return DispatchWidth(width_bits, [&](auto element) {
      return DispatchBytesInFlight(bytes_in_flight, [&](auto bytes) {
        constexpr int kBatch = decltype(bytes)::value / static_cast<int>(sizeof(element));
        return f(op_tag, element, std::integral_constant<int, kBatch>{});
      });
    });
  };
  switch (op) {
    case StreamOp::kRead:
      return with(ReadOp{});
    case StreamOp::kWrite:
      return with(WriteOp{});
    case StreamOp::kCopy:
      return with(CopyOp{});
  }
  return cudaErrorInvalidValue;
}

// Shared-memory address of a generic pointer into shared memory.
__device__ __forceinline__ uint32_t SharedAddress(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// One ld.volatile.shared of T's width at `addr`, returning the sum of its
// words. The buffer does not change inside the timed loop, so plain loads
// would be hoisted out of it; so would `asm volatile` ld.shared (the asm
// only stops the front end: ptxas moved 15 of every 16 such loads out of the
// loop, all of them at 32 bits). A volatile load must be performed
// every time, and on sm_90 it is a plain LDS.
template <typename T>
__device__ uint32_t LoadSharedSum(uint32_t addr);

template <>
__device__ __forceinline__ uint32_t LoadSharedSum<uint32_t>(uint32_t addr) {
  uint32_t a;
  asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(a) : "r"(addr) : "memory");
  return a;
}

template <>
__device__ __forceinline__ uint32_t LoadSharedSum<uint2>(uint32_t addr) {
  uint32_t a, b;
  asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];"
               : "=r"(a), "=r"(b)
               : "r"(addr)
               : "memory");
  return a + b;
}

template <>
__device__ __forceinline__ uint32_t LoadSharedSum<uint4>(uint32_t addr) {
  uint32_t a, b, c, d;
  asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
               : "r"(addr)
               : "memory");
  return a + b + c + d;
}

__device__ __forceinline__ uint32_t SmId() {
  uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

constexpr int kSharedWords = kSharedStreamBytes / 4;

template <typename T>
__global__ void __launch_bounds__(kSharedStreamThreads)
    SharedStreamKernel(int iterations, SharedStreamTiming* __restrict__ out) {
  // Thread t loads elements t, t + kSharedStreamThreads, ...: a warp touches
  // 32 consecutive elements per load, which takes the fewest wavefronts
  // (sizeof(T) / 4) with no bank conflicts.
  constexpr int kRowBytes = kSharedStreamThreads * static_cast<int>(sizeof(T));
  constexpr int kRows = kSharedStreamBytes / kRowBytes;
  static_assert(kRows * kRowBytes == kSharedStreamBytes, "buffer holds whole rows");
  __shared__ uint4 buffer[kSharedStreamBytes / sizeof(uint4)];
  __shared__ uint32_t block_sum;
  uint32_t* words = reinterpret_cast<uint32_t*>(buffer);
  for (int w = threadIdx.x; w < kSharedWords; w += blockDim.x) words[w] = w;
  if (threadIdx.x == 0) block_sum = 0;
  const uint32_t base = SharedAddress(reinterpret_cast<const T*>(buffer) + threadIdx.x);
  uint32_t sum = 0;
  unsigned long long start = 0;
  __syncthreads();
  if (threadIdx.x == 0) start = ReadClock64();
  __syncthreads();
  // One trip loads the whole buffer once: kRows loads per thread and trip
  // (the SASS test counts them), with no further unrolling by ptxas.
#pragma unroll 1
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int r = 0; r < kRows; ++r) sum += LoadSharedSum<T>(base + r * kRowBytes);
  }
  __syncthreads();
  const unsigned long long stop = ReadClock64();
  atomicAdd(&block_sum, sum);
  __syncthreads();
  if (threadIdx.x == 0) {
    out[blockIdx.x] = SharedStreamTiming{start, stop, SmId(), block_sum};
  }
}

}  // namespace

cudaError_t StreamGridBlocks(StreamOp op, int width_bits, int bytes_in_flight, size_t bytes,
                             int* blocks, bool roaming) {
  return Dispatch(
      op, width_bits, bytes_in_flight, [&](auto op_tag, auto element, auto batch) -> cudaError_t {
        using Op = decltype(op_tag);
        using T = decltype(element);
        constexpr int kBatch = decltype(batch)::value;
        const StreamKernelPtr<T> typed = StreamKernelFor<Op, T, kBatch>(roaming);
        if (typed == nullptr) return cudaErrorInvalidValue;
        const void* kernel = reinterpret_cast<const void*>(typed);
        // The kernels use no shared memory: give the unified L1 /
        // shared storage to L1, so that the L1 plateau extends as
        // far as it can.
        cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                             cudaSharedmemCarveoutMaxL1);
        if (e != cudaSuccess) return e;
        int full = 0;
        e = ResidentBlocksOnDevice(kernel, kStreamThreads, &full);
        if (e != cudaSuccess) return e;
        // Roaming blocks each stream every tile: none is idle however few
        // tiles there are.
        const size_t tiles =
            roaming ? full : TileCount<kBatch, kStreamThreads>(bytes / sizeof(T));
        *blocks = static_cast<int>(std::max<size_t>(1, std::min<size_t>(full, tiles)));
        return cudaSuccess;
      });
}

cudaError_t LaunchStream(const StreamArgs& args, cudaStream_t stream) {
  if (args.passes < 1 || args.blocks < 1 || args.bytes == 0) return cudaErrorInvalidValue;
  const bool reads = args.op != StreamOp::kWrite;
  const bool writes = args.op != StreamOp::kRead;
  if ((reads && args.src == nullptr) || (writes && args.dst == nullptr) ||
      (args.op == StreamOp::kRead && args.sink == nullptr)) {
    return cudaErrorInvalidValue;
  }
  return Dispatch(args.op, args.width_bits, args.bytes_in_flight,
                  [&](auto op_tag, auto element, auto batch) -> cudaError_t {
                    using Op = decltype(op_tag);
                    using T = decltype(element);
                    if (args.bytes % sizeof(T) != 0) return cudaErrorInvalidValue;
                    const StreamKernelPtr<T> kernel =
                        StreamKernelFor<Op, T, decltype(batch)::value>(args.roaming);
                    if (kernel == nullptr) return cudaErrorInvalidValue;
                    kernel<<<args.blocks, kStreamThreads, 0, stream>>>(
                        static_cast<const T*>(args.src), static_cast<T*>(args.dst),
                        args.bytes / sizeof(T), args.passes, args.sink);
                    return cudaGetLastError();
                  });
}

uint32_t StreamPatternWord(size_t word, int pass) { return PatternWord(word, PassMix(pass)); }

cudaError_t SharedStreamGridBlocks(int width_bits, int* blocks) {
  return DispatchWidth(width_bits, [&](auto element) -> cudaError_t {
    using T = decltype(element);
    const void* kernel = reinterpret_cast<const void*>(SharedStreamKernel<T>);
    const cudaError_t e = cudaFuncSetAttribute(
        kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
    if (e != cudaSuccess) return e;
    return ResidentBlocksOnDevice(kernel, kSharedStreamThreads, blocks);
  });
}

cudaError_t LaunchSharedStream(const SharedStreamArgs& args, cudaStream_t stream) {
  if (args.iterations < 1 || args.blocks < 1 || args.out == nullptr) {
    return cudaErrorInvalidValue;
  }
  return DispatchWidth(args.width_bits, [&](auto element) -> cudaError_t {
    using T = decltype(element);
    SharedStreamKernel<T>
        <<<args.blocks, kSharedStreamThreads, 0, stream>>>(args.iterations, args.out);
    return cudaGetLastError();
  });
}

uint32_t SharedStreamExpectedSum(int iterations) {
  uint32_t once = 0;
  for (uint32_t w = 0; w < kSharedWords; ++w) once += w;
  return once * static_cast<uint32_t>(iterations);
}

}  // namespace dissect
