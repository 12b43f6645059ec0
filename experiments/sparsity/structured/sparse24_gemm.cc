// Question: at what activation sparsity, if ever, does 2:4 structured
//           sparsity on the tensor cores (mma.sp) beat the same dense mma on
//           this GPU for CNN layer GEMMs, and how much of the activations'
//           magnitude does pruning them to 2:4 keep (Kurtz et al. 2020)?
// Timed:    Y^T[N×M] = X^T[N×K] · W^T[K×M], fp16 inputs, fp32 accumulation,
//           X^T the activations (im2col rows of a convolution, `batch` rows
//           of a fully connected layer) with sparsity_pct % zeros placed
//           uniformly at random (probes/sparsity GenerateMask, kUniform,
//           over the N × K matrix) and random fp16 values elsewhere; W
//           random. dense_mma runs mma.sync m16n8k16 on X^T as is;
//           sparse_mma_sp prunes X^T to 2:4 along K on the host (the 2
//           largest |x| of each 4) and runs mma.sp::ordered_metadata
//           m16n8k32 on the compressed operand. One kernel structure for
//           both (kernels/sparsity_24): 4 warps a block, 16 × 32 outputs a
//           warp, 32 of K a loop trip, operands pre-packed in fragment order
//           and read from global memory (no shared-memory staging), every
//           operand of a trip loaded before its first mma in both, so both
//           trips do the same multiply-adds in the same order. CUDA events
//           around each launch, hot (the same operands every launch). The
//           dense time of the same shape, batch and sparsity comes from the
//           same process (timed first if its row did not run). Results are
//           checked against a CPU reference of the same (pruned) product on
//           up to 64 × 64 evenly spread outputs.
// Expected: speedup_vs_dense of at most about 1.33, never the 2x of the
//           instruction: the operands come straight from global memory, so
//           this kernel is bound by its loads, not by the tensor pipe. Per
//           warp and trip (16 x 32 outputs x 32 of K = 32768 FLOP) the dense
//           warp loads A 2 x 16 B x 32 lanes = 1024 B and B 4 x 512 B =
//           2048 B: 3072 B, 384 B per HMMA.16816 (0.094 B/FLOP); the sparse
//           warp A 512 B + metadata 128 B + the same B: 2688 B (0.082 B per
//           dense-equivalent FLOP). L1 returns ~128 B/clk/SM, so one
//           HMMA.16816's operands take ~3 clk of L1 while the tensor pipe
//           could issue it in 1-2: the load path is the limit and the
//           speedup is a ratio of bytes. Through L1 (every warp reads B,
//           which the block's 4 warps share): 3072 / 2688 = 1.14. Through
//           L2 (B once a block): (4 x 1024 + 2048) / (4 x 640 + 2048) =
//           6144 / 4608 = 1.33. Where trips are latency-bound (the default
//           shapes' 32-392 blocks put at most ~3 on an SM) both kernels wait
//           one memory round trip a trip and read about 1.0. Every row's label says so
//           ("operands from global memory, load-bound: expected speedup <=
//           1.33", computed below from the kernel's constants). The
//           instruction-level 2x of mma.sp is //experiments/tensor:mma_sync's
//           sp_* forms, operands in registers; answering it for a GEMM needs
//           tiles staged through shared memory, which this kernel does not.
//           kept_magnitude_fraction is lowest for dense inputs (about 0.7-0.8
//           for uniform magnitudes) and reaches 1 where most groups of 4
//           already hold 2 zeros (it is near 0.9 at 50 % and near 1 at 75 %+).
// Confused with: the load path's limit taken for the tensor pipe's (a
//           speedup near 1.1-1.3 is the bytes saved, not what mma.sp does),
//           and the compiler's schedule taken for the hardware: a load that
//           ptxas places after the trip's first HMMA.SP makes the sparse trip
//           wait for two memory round trips against the dense one's one
//           (speedup ~0.5-0.6, estimated). sp_gemm_sass_test shows the
//           second is not happening
//           (BothLoopsLoadEveryOperandBeforeTheirFirstHmma: every operand
//           load of both loops before their first tensor instruction, as
//           many in both) and that both trips do the same
//           multiply-adds (DenseLoopHoldsHmmaSparseLoopHoldsHmmaSp). No CPU
//           test shows the first: it is the arithmetic above, and the label.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "experiments/framework/experiment.h"
#include "experiments/sparsity/structured/sparse24.h"
#include "experiments/workloads/inputs/masks.h"
#include "kernels/sparsity_24/sp_gemm.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

namespace dissect::sparsity {
namespace {

constexpr uint64_t kSeed = 0x24;
constexpr int64_t kCheckRows = 64;
constexpr int64_t kCheckCols = 64;
constexpr int64_t kMaxBatch = 1 << 16;
constexpr size_t kMemorySlackBytes = size_t{64} << 20;

// Bytes of operands one trip loads (32 lanes x 4-byte words): per warp
// (what L1 returns; B is re-read by each warp) and per block (what L2
// sends; B once). The metadata is one word a lane.
constexpr int kWarpBBytes = 32 * 4 * kSp24ColTilesPerWarp * kSp24BWords;
constexpr int kDenseWarpABytes = 32 * 4 * kSp24DenseAWords;
constexpr int kSparseWarpABytes = 32 * 4 * (kSp24SparseAWords + 1);
static_assert(kDenseWarpABytes + kWarpBBytes == 3072 && kSparseWarpABytes + kWarpBBytes == 2688,
              "the header's arithmetic follows the kernel's constants");
// The load-bound ceiling of speedup_vs_dense: the larger of the two ratios
// of bytes (per warp 1.14, per block 1.33).
constexpr double kLoadBoundSpeedup =
    static_cast<double>(kSp24Warps * kDenseWarpABytes + kWarpBBytes) /
    (kSp24Warps * kSparseWarpABytes + kWarpBBytes);
static_assert(kLoadBoundSpeedup > 1.33 && kLoadBoundSpeedup < 1.34,
              "per block 6144 / 4608 B; per warp 3072 / 2688 B is smaller");

const std::vector<std::string>& ShapeNames() {
  static const auto* names = new std::vector<std::string>{
      "resnet50.res3b_branch2b", "vgg16.conv3_1", "resnet50.fc1000", "vgg16.fc6"};
  return *names;
}

// W[j][k]: a hash of (j, k) mapped to [-1, 1) and rounded to fp16, so that
// no M × K host copy is needed.
float Weight(int64_t j, int64_t k) {
  uint64_t h = static_cast<uint64_t>(j) * 0x9E3779B97F4A7C15ull ^
               static_cast<uint64_t>(k) * 0xC2B2AE3D27D4EB4Full;
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  return RoundToHalf(static_cast<float>(h >> 40) / static_cast<float>(1 << 23) - 1.0f);
}

absl::Status Validate(const Point& p) {
  const std::string& method = p.Str("method");
  if (method != "dense_mma" && method != "sparse_mma_sp") {
    return absl::InvalidArgumentError(
        absl::StrCat("method must be dense_mma or sparse_mma_sp, not '", method, "'"));
  }
  const int64_t pct = p.Int("sparsity_pct");
  if (pct < 0 || pct > 100) {
    return absl::InvalidArgumentError(
        absl::StrCat("sparsity_pct must lie in [0, 100] (got ", pct, ")"));
  }
  const int64_t batch = p.Int("batch");
  if (batch < 1 || batch > kMaxBatch) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch must lie in [1, ", kMaxBatch, "] (got ", batch, ")"));
  }
  return LayerGemmShape(p.Str("shape"), batch).status();
}

// The operands of one (shape, batch, sparsity) on host and device, kept
// while consecutive points share them.
struct Operands {
  std::string key;
  GemmShape shape;
  GemmShape padded;
  Matrix x;  // masked activations, padded
  Pruned24 pruned;
  double dense_zero_fraction = 0;
  double sparse_zero_fraction = 0;
  DeviceBuffer<uint32_t> dense_a, sparse_a, metadata, b;
  DeviceBuffer<float> c;
  std::optional<double> dense_ms;  // median dense time, once measured
};

// The fraction of zeros in rows × cols of the top-left corner of `m`.
double CornerZeroFraction(const Matrix& m, int64_t rows, int64_t cols) {
  int64_t zeros = 0;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < cols; ++k) zeros += m.at(r, k) == 0.0f;
  }
  return static_cast<double>(zeros) / static_cast<double>(rows * cols);
}

template <typename T>
absl::StatusOr<DeviceBuffer<T>> Upload(const std::vector<T>& host) {
  DISSECT_ASSIGN_OR_RETURN(DeviceBuffer<T> d, DeviceBuffer<T>::Allocate(host.size()));
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(d.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

absl::Status Prepare(Operands& ops, const std::string& key, const GemmShape& shape, int pct) {
  ops = Operands();
  ops.key = key;
  ops.shape = shape;
  ops.padded = PaddedShape(shape);
  const GemmShape& p = ops.padded;
  const size_t device_bytes = static_cast<size_t>(p.n * p.k * 2 + p.n * p.k + p.n * p.k / 8 +
                                                  p.k * p.m * 2 + p.n * p.m * 4);
  size_t free_bytes = 0, total_bytes = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (device_bytes + kMemorySlackBytes > free_bytes) {
    return Skipped(
        absl::StrCat("needs ", device_bytes, " B of device memory; ", free_bytes, " B free"));
  }
  // Activations: uniform in (0, 1] (post-ReLU), then the controlled mask.
  std::mt19937_64 rng(kSeed);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> real(static_cast<size_t>(shape.n * shape.k));
  for (float& v : real) {
    v = 0.0f;
    while (v == 0.0f) v = RoundToHalf(dist(rng));
  }
  DISSECT_ASSIGN_OR_RETURN(const Mask mask, GenerateMask(Dims{1, 1, shape.n, shape.k}, pct / 100.0,
                                                         MaskStructure::kUniform, kSeed + 1));
  DISSECT_RETURN_IF_ERROR(ApplyMask(mask, absl::MakeSpan(real)));
  ops.x = Matrix{p.n, p.k, std::vector<float>(static_cast<size_t>(p.n * p.k), 0.0f)};
  for (int64_t r = 0; r < shape.n; ++r) {
    std::copy_n(&real[r * shape.k], shape.k, &ops.x.values[r * p.k]);
  }
  ops.pruned = PruneTo24(ops.x);
  ops.dense_zero_fraction = CornerZeroFraction(ops.x, shape.n, shape.k);
  ops.sparse_zero_fraction = CornerZeroFraction(ops.pruned.values, shape.n, shape.k);

  DISSECT_ASSIGN_OR_RETURN(ops.dense_a, Upload(PackDenseA(ops.x)));
  const PackedSparseA sparse = PackSparseA(ops.pruned);
  DISSECT_ASSIGN_OR_RETURN(ops.sparse_a, Upload(sparse.values));
  DISSECT_ASSIGN_OR_RETURN(ops.metadata, Upload(sparse.metadata));
  DISSECT_ASSIGN_OR_RETURN(ops.b, Upload(PackB(Weight, shape.k, shape.m, p.k, p.m)));
  DISSECT_ASSIGN_OR_RETURN(ops.c, DeviceBuffer<float>::Allocate(static_cast<size_t>(p.n * p.m)));
  return absl::OkStatus();
}

Sp24GemmArgs ArgsFor(const Operands& ops, bool sparse) {
  Sp24GemmArgs args;
  args.sparse = sparse;
  args.a = sparse ? ops.sparse_a.get() : ops.dense_a.get();
  args.metadata = sparse ? ops.metadata.get() : nullptr;
  args.b = ops.b.get();
  args.c = ops.c.get();
  args.row_tiles = static_cast<int>(ops.padded.n / 16);
  args.col_tiles = static_cast<int>(ops.padded.m / 8);
  args.k_steps = static_cast<int>(ops.padded.k / kSp24KStep);
  return args;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The max relative error of the product now in ops.c against the CPU
// reference of `a` · W^T.
absl::StatusOr<double> CheckProduct(const Operands& ops, const Matrix& a) {
  std::vector<float> got(ops.c.size());
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(got.data(), ops.c.get(), ops.c.bytes(), cudaMemcpyDeviceToHost));
  const std::vector<int64_t> rows = SpreadIndices(ops.shape.n, kCheckRows);
  const std::vector<int64_t> cols = SpreadIndices(ops.shape.m, kCheckCols);
  return MaxRelError(got, ops.padded.m, ReferenceProduct(a, Weight, rows, cols), rows, cols);
}

absl::Status Run(PointContext& ctx) {
  const std::string& name = ctx.Str("shape");
  const int64_t batch = ctx.Int("batch");
  const bool sparse = ctx.Str("method") == "sparse_mma_sp";
  const int pct = static_cast<int>(ctx.Int("sparsity_pct"));
  ctx.AddNote("activation_source=controlled_mask");
  ctx.AddNote(absl::StrFormat(
      "operands from global memory, load-bound: expected speedup <= %.2f", kLoadBoundSpeedup));
  DISSECT_ASSIGN_OR_RETURN(const GemmShape shape, LayerGemmShape(name, batch));
  static Operands* const ops = new Operands();
  const std::string key = absl::StrCat(name, "/", shape.n, "/", pct);
  if (ops->key != key) {
    const absl::Status prepared = Prepare(*ops, key, shape, pct);
    if (!prepared.ok()) {
      *ops = Operands();
      return prepared;
    }
  }
  if (sparse && !ops->dense_ms.has_value()) {
    const Sp24GemmArgs dense = ArgsFor(*ops, false);
    DISSECT_ASSIGN_OR_RETURN(
        std::vector<double> ms,
        ctx.TimeKernel([&](cudaStream_t s) { return LaunchSp24Gemm(dense, s); }, CacheState::kHot));
    ops->dense_ms = Median(ms);
    ctx.AddNote("dense_timed_in_this_point");
  }
  const Sp24GemmArgs args = ArgsFor(*ops, sparse);
  DISSECT_ASSIGN_OR_RETURN(
      std::vector<double> ms,
      ctx.TimeKernel([&](cudaStream_t s) { return LaunchSp24Gemm(args, s); }, CacheState::kHot));
  if (!sparse) ops->dense_ms = Median(ms);

  DISSECT_ASSIGN_OR_RETURN(const double error,
                           CheckProduct(*ops, sparse ? ops->pruned.values : ops->x));
  std::vector<double> speedup;
  for (double t : ms) speedup.push_back(*ops->dense_ms / t);
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("speedup_vs_dense", std::move(speedup)));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("kept_magnitude_fraction",
                                         {sparse ? ops->pruned.kept_magnitude_fraction : 1.0}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples(
      "achieved_sparsity", {sparse ? ops->sparse_zero_fraction : ops->dense_zero_fraction}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("max_rel_error", {error}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("load_bound_speedup", {kLoadBoundSpeedup}));
  const double flops = 2.0 * shape.n * shape.k * shape.m;
  std::vector<double> tflops;
  for (double t : ms) tflops.push_back(flops / (t * 1e-3) / 1e12);
  return ctx.AddSamples("dense_equivalent_tflops", std::move(tflops));
}

DISSECT_EXPERIMENT(sparse24_gemm)
    .NeedsComputeCapability(80, "mma.sp and fp16 mma.sync m16n8k16")
    .Question(
        "At what activation sparsity, if ever, does a 2:4 sparse mma.sp GEMM beat the same "
        "dense mma.sync GEMM, and what fraction of the activations' magnitude does 2:4 "
        "pruning keep?")
    .AddAxis(StringAxis("shape", ShapeNames(), {},
                        "a layer of configs/layers/cnn_layers.json: conv as its im2col GEMM "
                        "(N = OutH x OutW, K = C R S, M = K_out), fc with N = batch"))
    .AddAxis(IntAxis("batch", "-", {32}, "rows N of the fully connected shapes (conv: unused)"))
    .AddAxis(StringAxis("method", {"dense_mma", "sparse_mma_sp"}, {},
                        "mma.sync m16n8k16 on the activations as they are / mma.sp m16n8k32 on "
                        "the activations pruned to 2:4 along K"))
    .AddAxis(IntAxis("sparsity_pct", "%", {0, 25, 50, 75, 90},
                     "uniform zero fraction of the activations before pruning"))
    .AddMetric("speedup_vs_dense", "x",
               "dense_mma time of the same shape, batch and sparsity / this row's time")
    .AddMetric("kept_magnitude_fraction", "-",
               "sum |x| the 2:4 pruning keeps / sum |x| (1 for dense_mma)")
    .AddMetric("achieved_sparsity", "-", "fraction of zeros in the A operand multiplied")
    .AddMetric("max_rel_error", "-",
               "max |got - want| / max(|want|, 1e-3 max|want|) over up to 64 x 64 outputs, "
               "want the CPU product of the same (pruned) operands")
    .AddMetric("dense_equivalent_tflops", "TFLOP/s", "2 N K M / time (unpadded shape)")
    .AddMetric("load_bound_speedup", "x",
               "the most speedup_vs_dense this kernel can show: operands come from global "
               "memory and the loads bound it, dense over sparse operand bytes per block")
    .Validate(Validate)
    .Headline("speedup_vs_dense")
    .Run(Run);

}  // namespace
}  // namespace dissect::sparsity
