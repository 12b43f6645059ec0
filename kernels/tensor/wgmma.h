// Host interface of the warpgroup-level tensor-core probes (kernels/tensor/
// wgmma.cu, sm_90a): one kernel template that issues wgmma.mma_async
// m64nNk{8,16,32} (or, 2:4 sparse, wgmma.mma_async.sp with twice the K) of
// one form, with A from shared memory through a matrix
// descriptor or from registers and B from shared memory, either one
// warpgroup waiting for every instruction (latency) or every SM full of
// warpgroups streaming instructions into independent accumulators
// (throughput), reading one A/B fragment or cycling through
// kCyclingFragments (TensorOperands).
//
// Shared-memory operands use the K-major, no-swizzle canonical layout (PTX
// ISA "Shared Memory Matrix Layout"): 8-row × 16-byte core matrices, the
// two core matrices of a row group 128 B apart along K (leading dimension
// byte offset) and row groups 8 rows × the row's bytes apart (stride
// dimension byte offset). A row of A holds 32 bytes of stored elements for
// every form; a row of B (a column of the matrix) 32 bytes, or 64 for the
// sparse forms, whose K is twice the dense one.
#ifndef DISSECT_KERNELS_TENSOR_WGMMA_H_
#define DISSECT_KERNELS_TENSOR_WGMMA_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/tensor/mma_sync.h"
#include "kernels/tensor/tensor_timing.h"

namespace dissect {

enum class WgmmaForm {
  kF16F32,
  kBf16F32,
  kTf32F32,
  kE4m3F32,
  kE5m2F32,
  kS8S32,
  // 2:4 sparse A (tf32: 1:2); k is the dense-equivalent K.
  kSpF16F32,
  kSpBf16F32,
  kSpTf32F32,
  kSpE4m3F32,
  kSpS8S32,
};

struct WgmmaFormInfo {
  WgmmaForm form;
  const char* name;    // axis value, e.g. "f16_f32"
  const char* prefix;  // "wgmma.mma_async.sync.aligned.m64n"; N and the rest follow
  const char* suffix;  // e.g. "k16.f32.f16.f16"
  int k;
  TensorElement input;
  TensorElement accumulator;
  bool sparse = false;  // one metadata register per thread, selector 0
};

inline constexpr WgmmaFormInfo kWgmmaForms[] = {
    {WgmmaForm::kF16F32, "f16_f32", "wgmma.mma_async.sync.aligned.m64n", "k16.f32.f16.f16", 16,
     TensorElement::kF16, TensorElement::kF32},
    {WgmmaForm::kBf16F32, "bf16_f32", "wgmma.mma_async.sync.aligned.m64n", "k16.f32.bf16.bf16", 16,
     TensorElement::kBf16, TensorElement::kF32},
    {WgmmaForm::kTf32F32, "tf32_f32", "wgmma.mma_async.sync.aligned.m64n", "k8.f32.tf32.tf32", 8,
     TensorElement::kTf32, TensorElement::kF32},
    {WgmmaForm::kE4m3F32, "e4m3_f32", "wgmma.mma_async.sync.aligned.m64n", "k32.f32.e4m3.e4m3", 32,
     TensorElement::kE4m3, TensorElement::kF32},
    {WgmmaForm::kE5m2F32, "e5m2_f32", "wgmma.mma_async.sync.aligned.m64n", "k32.f32.e5m2.e5m2", 32,
     TensorElement::kE5m2, TensorElement::kF32},
    {WgmmaForm::kS8S32, "s8_s32", "wgmma.mma_async.sync.aligned.m64n", "k32.s32.s8.s8", 32,
     TensorElement::kS8, TensorElement::kS32},
    {WgmmaForm::kSpF16F32, "sp_f16_f32", "wgmma.mma_async.sp.sync.aligned.m64n", "k32.f32.f16.f16",
     32, TensorElement::kF16, TensorElement::kF32, true},
    {WgmmaForm::kSpBf16F32, "sp_bf16_f32", "wgmma.mma_async.sp.sync.aligned.m64n",
     "k32.f32.bf16.bf16", 32, TensorElement::kBf16, TensorElement::kF32, true},
    {WgmmaForm::kSpTf32F32, "sp_tf32_f32", "wgmma.mma_async.sp.sync.aligned.m64n",
     "k16.f32.tf32.tf32", 16, TensorElement::kTf32, TensorElement::kF32, true},
    {WgmmaForm::kSpE4m3F32, "sp_e4m3_f32", "wgmma.mma_async.sp.sync.aligned.m64n",
     "k64.f32.e4m3.e4m3", 64, TensorElement::kE4m3, TensorElement::kF32, true},
    {WgmmaForm::kSpS8S32, "sp_s8_s32", "wgmma.mma_async.sp.sync.aligned.m64n", "k64.s32.s8.s8", 64,
     TensorElement::kS8, TensorElement::kS32, true},
};

const WgmmaFormInfo& WgmmaInfo(WgmmaForm form);

// The N values the probe is built for (a subset of 8 … 256 valid for every form).
inline constexpr int kWgmmaNs[] = {8, 16, 32, 64, 128, 256};

inline constexpr int kWgmmaM = 64;
inline constexpr int kWarpgroupThreads = 128;
// Bytes of one row of A (stored elements) and of a dense form's B.
inline constexpr int kWgmmaRowBytes = 32;
// Bytes of one row of B for `form` (sparse: twice the K).
inline constexpr int WgmmaBRowBytes(const WgmmaFormInfo& form) {
  return form.sparse ? 2 * kWgmmaRowBytes : kWgmmaRowBytes;
}
// Leading dimension byte offset of the canonical layout (K-adjacent core
// matrices); the stride byte offset is 8 rows of the tile.
inline constexpr int kWgmmaLeadingByteOffset = 128;
// wgmma per chain per loop trip; iterations must be a multiple of it.
inline constexpr int kWgmmaUnroll = 4;
// A registers per thread when A comes from registers.
inline constexpr int kWgmmaARegs = 4;

// Rows of the shared-memory image of A (rows = kWgmmaM) or B (rows = N)
// that holds `fragments` tiles: fragment f is the tile of `rows` rows that
// starts 8 f rows (f row groups, f stride byte offsets) into the image. The
// windows overlap, but every element of the image is drawn on its own, so
// each fragment holds different values at every position; the image grows
// by 8 rows per extra fragment instead of a whole tile (the block's static
// shared memory stays under 48 KiB, and as small as the constant kernel's).
inline constexpr int WgmmaImageRows(int rows, int fragments) { return rows + 8 * (fragments - 1); }

// Byte offset of (row, byte `byte` of that row's `row_bytes`) in a canonical
// tile.
inline constexpr int WgmmaTileOffset(int row, int byte, int row_bytes = kWgmmaRowBytes) {
  return (row % 8) * 16 + (row / 8) * 8 * row_bytes + (byte % 16) +
         (byte / 16) * kWgmmaLeadingByteOffset;
}

// Independent accumulators per warpgroup: 1 for latency; for throughput as
// many as keep the accumulators within 128 registers (at most 4).
int WgmmaChains(TensorMode mode, int n);

struct WgmmaArgs {
  WgmmaForm form = WgmmaForm::kF16F32;
  int n = 64;
  bool a_from_registers = false;
  TensorMode mode = TensorMode::kLatency;
  TensorOperands operands = TensorOperands::kConstant;
  // Timed wgmma per chain, a multiple of kWgmmaUnroll; each chain also
  // issues UntimedSteps(operands) before the clock starts.
  int iterations = kWgmmaUnroll;
  int blocks = 1;  // one warpgroup each; from WgmmaGrid
  // Canonical images of WgmmaImageRows(kWgmmaM, F) × 32 B (A) and
  // WgmmaImageRows(n, F) × WgmmaBRowBytes (B; a row is a column of B), F =
  // OperandFragments(operands).
  const uint8_t* a_tile = nullptr;
  const uint8_t* b_tile = nullptr;
  // F fragments one after the other, each 128 threads × kWgmmaARegs words.
  const uint32_t* a_fragments = nullptr;
  const uint32_t* metadata = nullptr;     // sparse forms: 128 threads × 1 word
  // Per block, thread and accumulator element (n / 2): the sum over chains,
  // as f32 bits or s32.
  uint32_t* out = nullptr;
  TensorTiming* timing = nullptr;  // one per block
};

// Latency: one block. Throughput: as many blocks as are resident at once
// on every SM. cudaErrorInvalidValue for an n outside kWgmmaNs.
cudaError_t WgmmaGrid(const WgmmaArgs& args, int* blocks);

// cudaErrorInvalidValue for a bad iteration count, n or null pointer
// (metadata may be null for dense forms only).
cudaError_t LaunchWgmma(const WgmmaArgs& args, cudaStream_t stream);

}  // namespace dissect

#endif  // DISSECT_KERNELS_TENSOR_WGMMA_H_
