// Host interface of the warp-level tensor-core probes (kernels/tensor/
// mma_sync.cu): one kernel template that issues `mma.sync` (or, for the 2:4
// sparse forms, `mma.sp::ordered_metadata`) of one form in a loop, either as one dependent chain in
// one warp (latency) or as kMmaThroughputChains independent accumulators per warp in every warp
// that fits on the GPU (throughput), reading one A/B fragment or cycling
// through kCyclingFragments (TensorOperands).
#ifndef DISSECT_KERNELS_TENSOR_MMA_SYNC_H_
#define DISSECT_KERNELS_TENSOR_MMA_SYNC_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/tensor/tensor_timing.h"

namespace dissect {

// Element types of tensor-core operands and accumulators.
enum class TensorElement { kF16, kBf16, kTf32, kE4m3, kE5m2, kS8, kF32, kS32 };

// Bits per element as stored in registers and memory (tf32 occupies 32).
int ElementBits(TensorElement e);

// The mma.sync forms the probe covers.
enum class MmaForm {
  kF16F32,   // m16n8k16, f16 inputs, f32 accumulator
  kF16F16,   // m16n8k16, f16 inputs, f16 accumulator
  kBf16F32,  // m16n8k16, bf16 inputs, f32 accumulator
  kTf32F32,  // m16n8k8, tf32 inputs, f32 accumulator
  kS8S32,    // m16n8k32, s8 inputs, s32 accumulator
  kE4m3F32,  // m16n8k32, e4m3 inputs, f32 accumulator (sm_89+)
  kE5m2F32,  // m16n8k32, e5m2 inputs, f32 accumulator (sm_89+)
  // 2:4 structured-sparse A (tf32: 1:2), K counted as the dense-equivalent
  // K of the instruction: A holds K / 2 stored elements per row.
  kSpF16F32,   // m16n8k32
  kSpBf16F32,  // m16n8k32
  kSpTf32F32,  // m16n8k16
  kSpS8S32,    // m16n8k64
  kSpE4m3F32,  // m16n8k64 (sm_89+)
};

struct MmaFormInfo {
  MmaForm form;
  const char* name;         // axis value, e.g. "f16_f32"
  const char* instruction;  // the PTX opcode the kernel issues
  int m, n, k;
  TensorElement input;  // A and B
  TensorElement accumulator;
  int a_regs, b_regs, c_regs;  // 32-bit registers per lane
  int min_arch;                // e.g. 80 for sm_80
  bool sparse = false;         // A is 2:4 sparse; one metadata register per lane
};

inline constexpr MmaFormInfo kMmaForms[] = {
    {MmaForm::kF16F32, "f16_f32", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16, 8, 16,
     TensorElement::kF16, TensorElement::kF32, 4, 2, 4, 80},
    {MmaForm::kF16F16, "f16_f16", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", 16, 8, 16,
     TensorElement::kF16, TensorElement::kF16, 4, 2, 2, 80},
    {MmaForm::kBf16F32, "bf16_f32", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 16, 8,
     16, TensorElement::kBf16, TensorElement::kF32, 4, 2, 4, 80},
    {MmaForm::kTf32F32, "tf32_f32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 16, 8, 8,
     TensorElement::kTf32, TensorElement::kF32, 4, 2, 4, 80},
    {MmaForm::kS8S32, "s8_s32", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", 16, 8, 32,
     TensorElement::kS8, TensorElement::kS32, 4, 2, 4, 80},
    {MmaForm::kE4m3F32, "e4m3_f32", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", 16, 8,
     32, TensorElement::kE4m3, TensorElement::kF32, 4, 2, 4, 89},
    {MmaForm::kE5m2F32, "e5m2_f32", "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", 16, 8,
     32, TensorElement::kE5m2, TensorElement::kF32, 4, 2, 4, 89},
    {MmaForm::kSpF16F32, "sp_f16_f32",
     "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", 16, 8, 32,
     TensorElement::kF16, TensorElement::kF32, 4, 4, 4, 80, true},
    {MmaForm::kSpBf16F32, "sp_bf16_f32",
     "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32", 16, 8, 32,
     TensorElement::kBf16, TensorElement::kF32, 4, 4, 4, 80, true},
    {MmaForm::kSpTf32F32, "sp_tf32_f32",
     "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32", 16, 8, 16,
     TensorElement::kTf32, TensorElement::kF32, 4, 4, 4, 80, true},
    {MmaForm::kSpS8S32, "sp_s8_s32",
     "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32", 16, 8, 64,
     TensorElement::kS8, TensorElement::kS32, 4, 4, 4, 80, true},
    {MmaForm::kSpE4m3F32, "sp_e4m3_f32",
     "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32", 16, 8, 64,
     TensorElement::kE4m3, TensorElement::kF32, 4, 4, 4, 89, true},
};

// Whether ptxas compiles `form` to a tensor instruction of its own for a GPU
// of compute capability `arch` (major × 10 + minor). False for the fp8 forms
// (e4m3_f32, e5m2_f32, sp_e4m3_f32) on 9.x and 10.x: sm_90 and sm_100 have
// no fp8 mma.sync (sm_89 and sm_120 do), so
// ptxas expands each into f16 HMMA (HMMA.SP) with conversions, FADDs or
// shuffles, and, because every step multiplies the same A and B, computes
// the product once per loop trip (2 HMMA for the 32 nominal mma of the
// 8-chain loop). Such rows would report invented rates, so the probe skips
// them; //experiments/tensor:sass_test fails once the sm_90a or sm_100a
// code of these forms holds a native QMMA, i.e. once this is stale.
constexpr bool MmaSyncNative(const MmaFormInfo& form, int arch) {
  const bool fp8 = form.input == TensorElement::kE4m3 || form.input == TensorElement::kE5m2;
  return !(fp8 && (arch / 10 == 9 || arch / 10 == 10));
}

// The metadata word every lane passes to the sparse forms: each 4-bit field
// 0b0100 keeps elements 0 and 1 of its chunk of four (tf32: element 0 of
// each pair).
inline constexpr uint32_t kMmaSparseMetadata = 0x44444444u;

// The entry of kMmaForms for `form`.
const MmaFormInfo& MmaInfo(MmaForm form);

// Accumulator elements per lane of every m16n8 form (16 × 8 / 32).
inline constexpr int kMmaAccElements = 4;
// Threads per block of the throughput launch.
inline constexpr int kMmaThreads = 256;
// Independent accumulators per warp in throughput mode (sp_e4m3_f32: 2, see
// MmaSyncChains).
inline constexpr int kMmaThroughputChains = 8;
// The timed loop issues this many steps (one mma per chain each) per trip;
// iterations must be a multiple of it.
inline constexpr int kMmaUnroll = 4;

struct MmaSyncArgs {
  MmaForm form = MmaForm::kF16F32;
  TensorMode mode = TensorMode::kLatency;
  TensorOperands operands = TensorOperands::kConstant;
  int iterations = kMmaUnroll;  // dependent steps per chain, multiple of kMmaUnroll
  int blocks = 1;               // from MmaSyncGrid
  int threads = 32;             // from MmaSyncGrid
  // OperandFragments(operands) fragments, one after the other, each 32
  // lanes × a_regs (b_regs) words, lane-major.
  const uint32_t* a = nullptr;
  const uint32_t* b = nullptr;
  const uint32_t* metadata = nullptr;  // sparse forms: 32 lanes × 1 word
  // Per warp and lane, kMmaAccElements words: the sum over the warp's chains
  // of each accumulator element, as f32 bits (float accumulators, f16 ones
  // widened) or s32.
  uint32_t* out = nullptr;
  TensorTiming* timing = nullptr;  // one per warp
};

// Latency: 1 block of 32 threads. Throughput: kMmaThreads per block and as
// many blocks as are resident at once on every SM of the current device.
cudaError_t MmaSyncGrid(MmaForm form, TensorMode mode, TensorOperands operands, int* blocks,
                        int* threads);

// Chains per warp of `mode`: 1 for latency; kMmaThroughputChains for
// throughput, except 2 for sp_e4m3_f32, whose mma.sp ptxas expands into
// far more registers on sm_90a (8 chains spill).
int MmaSyncChains(MmaForm form, TensorMode mode);

// Accumulators start at zero; every chain computes D += A·B
// UntimedSteps(operands) + `iterations` times (only the last `iterations`
// between the clock reads), with the one A and B fragment (kConstant) or
// each of the kCyclingFragments fragments equally often, in turn
// (kCycling). cudaErrorInvalidValue for an iteration count that is not a
// positive multiple of kMmaUnroll or a null pointer.
cudaError_t LaunchMmaSync(const MmaSyncArgs& args, cudaStream_t stream);

}  // namespace dissect

#endif  // DISSECT_KERNELS_TENSOR_MMA_SYNC_H_
