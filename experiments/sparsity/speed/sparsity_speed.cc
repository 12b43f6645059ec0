// Question: at what activation sparsity does each way of exploiting it
//           beat the dense cuBLAS SGEMM of the same layer on this GPU, if
//           ever: dense cuBLAS itself on zeros (does it run faster or draw
//           less power?), our zero-skipping kernels (skip_warp: all-zero
//           32-long K segments of a column; skip_tile: all-zero 16 × 16
//           tiles of X) and cuSPARSE CSR SpMM (conversion reported
//           separately and in an end-to-end column)?
// Timed:    float32 Y[M×N] = W[M×K] · X[K×N], X the activations (layout and
//           shapes in speed_host.h: im2col of ResNet-50 res3b_branch2b and
//           VGG-16 conv3_1, and the fc1000 / fc6 GEMMs at the batch),
//           masked by probes/sparsity GenerateMask (uniform, channel,
//           run32) at sparsity_pct. Hot, CUDA events (ctx.TimeKernel)
//           around: dense_cublas: cublasSgemm, CUBLAS_DEFAULT_MATH (FP32
//           FFMA, no TF32); skip_warp: one launch; skip_tile: the tile
//           bitmap pass plus the GEMM (both in the time); cusparse_csr:
//           cusparseSpMM (Y^T = X^T · W^T, X^T in CSR, csr_spmm.h), the
//           dense → CSR conversion (cusparseDenseToSparse analysis +
//           convert, into arrays allocated once) timed on its own with
//           unguarded events (the analysis may wait on the device for the
//           nonzero count; that wait counts as conversion). The row's
//           dense baseline (dense_cublas at 0 % of the same shape,
//           structure and batch) is timed in the same process, once, and
//           cached. NVML board power is polled every 5 ms from before the
//           warm-up to after the last sample. Each method's Y is checked
//           against cuBLAS's on the same data (max_rel_error ≤ 1e-3, else
//           the point fails), and our kernels' first columns bit for bit
//           against a CPU fmaf loop.
// Expected: (from the literature, not measured) dense cuBLAS barely
//           changes with sparsity, maybe lower power on zeros; the
//           zero-skipping kernels start slower than cuBLAS and pay only at
//           high sparsity, much earlier with structure (run32 and channel)
//           than uniform, where a 32-segment or 16 × 16 tile is rarely all
//           zero; cuSPARSE CSR beats dense SGEMM only at very high sparsity
//           (often > 90–95 %), and its conversion can cost more than the
//           GEMM (the FC GEMVs at batch 1 are memory-bound on W: skipping
//           rows of W is what can pay there).
// Could be confused with: the compiler's work for the hardware's (FMAs
//           not actually skipped, or moved out from behind the zero test):
//           //experiments/sparsity/speed:skip_gemm_sass_test (every FFMA of
//           the K loop behind a branch on its ballot or bitmap byte, the
//           test before any FFMA) and skip_gemm_ptx_test. Other sparsity
//           than asked for:
//           //experiments/workloads/inputs:masks_test (uniform masks are
//           exact, channel and run32 zero whole planes and aligned runs) and
//           speed_host_test (the layouts; random activations are never zero,
//           so the only zeros are the mask's and im2col's padding, which
//           achieved_sparsity counts). A wrong result that runs faster: each
//           method's Y against cuBLAS's on the run (max_rel_error, not a CPU
//           test) and speed_host_test's fmaf reference. Host time inside the
//           event pair: //probes:event_timer_test for the kernels; not for
//           convert_ms, whose events are unguarded on purpose (a host wait
//           in cuSPARSE's analysis counts as conversion). A throttled clock
//           or power cap for an effect of zeros: power_w and the harness's
//           throttle flag (//probes:nvml_clock_test), not a test of this
//           experiment.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "experiments/framework/experiment.h"
#include "experiments/sparsity/speed/csr_spmm.h"
#include "experiments/sparsity/speed/speed_host.h"
#include "experiments/workloads/inputs/masks.h"
#include "experiments/workloads/layers/layer_config.h"
#include "kernels/sparsity_gemm/skip_gemm.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"
#include "probes/event_timer.h"
#include "probes/nvml_clock.h"

namespace dissect::sparsity_speed {
namespace {

using sparsity_gemm::SkipMode;

constexpr double kMaxRelError = 1e-3;
constexpr int kCheckedColumns = 2;
constexpr uint64_t kWeightSeed = 11;
constexpr uint64_t kActivationSeed = 12;
constexpr uint64_t kMaskSeed = 13;

const std::vector<std::string>& Shapes() {
  static const auto* shapes = new std::vector<std::string>{
      "resnet50.res3b_branch2b", "vgg16.conv3_1", "resnet50.fc1000", "vgg16.fc6"};
  return *shapes;
}
const std::vector<std::string>& Methods() {
  static const auto* methods =
      new std::vector<std::string>{"dense_cublas", "skip_warp", "skip_tile", "cusparse_csr"};
  return *methods;
}

absl::Status BlasStatus(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat(call, " failed: ", cublasGetStatusString(status), " (", status, ")"));
}

struct BlasDeleter {
  void operator()(cublasHandle_t h) const { cublasDestroy(h); }
};
using BlasHandle = std::unique_ptr<std::remove_pointer_t<cublasHandle_t>, BlasDeleter>;

// Process-wide state: a cuBLAS handle, NVML for power, the weights of the
// current (shape, batch), the data of the current point and the cached
// dense baselines.
struct State {
  BlasHandle blas;
  std::unique_ptr<NvmlClock> nvml;
  std::string nvml_error;
  bool nvml_tried = false;
  std::string weights_key;
  std::vector<float> w_host;
  DeviceBuffer<float> w;
  std::map<std::tuple<std::string, std::string, int64_t>, double> baseline_ms;
};
State& GlobalState() {
  static State* state = new State;
  return *state;
}

// One point's data: X on host and device, cuBLAS's Y as the reference.
struct PointData {
  GemmForm form;
  std::vector<float> x_host;
  double achieved = 0;
  DeviceBuffer<float> x;
  DeviceBuffer<float> y;
  std::vector<float> reference;
};

// A LaunchFn around a call that returns absl::Status: its status lands in
// `status` (cudaErrorUnknown tells the timer it failed).
LaunchFn Checked(std::function<absl::Status(cudaStream_t)> call, absl::Status& status) {
  return [call = std::move(call), &status](cudaStream_t s) {
    status = call(s);
    return status.ok() ? cudaGetLastError() : cudaErrorUnknown;
  };
}

absl::Status Validate(const Point& p) {
  DISSECT_ASSIGN_OR_RETURN(const l1_bypass::LayerShape* layer,
                           l1_bypass::FindEmbeddedLayer(p.Str("shape")));
  DISSECT_RETURN_IF_ERROR(FormOf(*layer, static_cast<int>(p.Int("batch"))).status());
  const int64_t pct = p.Int("sparsity_pct");
  if (pct < 0 || pct > 99) {
    return absl::InvalidArgumentError(absl::StrCat("sparsity_pct ", pct, " outside 0..99"));
  }
  return absl::OkStatus();
}

absl::Status RunCublas(const GemmForm& f, const float* w, const float* x, float* y,
                       cudaStream_t stream) {
  cublasHandle_t h = GlobalState().blas.get();
  DISSECT_RETURN_IF_ERROR(BlasStatus(cublasSetStream(h, stream), "cublasSetStream"));
  const float alpha = 1.f, beta = 0.f;
  return BlasStatus(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, f.m, f.n, f.k, &alpha, w, f.m, x, f.k,
                                &beta, y, f.m),
                    "cublasSgemm");
}

// Sets up cuBLAS and the weights of the point's (shape, batch).
absl::Status PrepareWeights(const std::string& shape, const GemmForm& form) {
  State& s = GlobalState();
  if (s.blas == nullptr) {
    cublasHandle_t h = nullptr;
    DISSECT_RETURN_IF_ERROR(BlasStatus(cublasCreate(&h), "cublasCreate"));
    s.blas.reset(h);
    DISSECT_RETURN_IF_ERROR(
        BlasStatus(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode"));
  }
  const std::string key = absl::StrCat(shape, "/", form.m, "x", form.k);
  if (s.weights_key == key) return absl::OkStatus();
  s.weights_key.clear();
  s.w = DeviceBuffer<float>();
  s.w_host = RandomWeights(form.m * form.k, kWeightSeed);
  DISSECT_ASSIGN_OR_RETURN(s.w, DeviceBuffer<float>::Allocate(s.w_host.size()));
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(s.w.get(), s.w_host.data(), s.w.bytes(), cudaMemcpyHostToDevice));
  s.weights_key = key;
  return absl::OkStatus();
}

// Builds X for (shape, structure, pct, batch) on host and device and
// computes cuBLAS's Y from it.
absl::StatusOr<PointData> MakeData(const l1_bypass::LayerShape& layer, int batch,
                                   sparsity::MaskStructure structure, int64_t pct,
                                   cudaStream_t stream) {
  PointData d;
  DISSECT_ASSIGN_OR_RETURN(d.form, FormOf(layer, batch));
  const size_t need =
      sizeof(float) *
      static_cast<size_t>(d.form.m * d.form.k + 2 * d.form.k * d.form.n + 3 * d.form.m * d.form.n);
  size_t free_bytes = 0, total_bytes = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (need + (size_t{256} << 20) > free_bytes) {
    return Skipped(
        absl::StrCat("needs about ", need >> 20, " MiB, ", free_bytes >> 20, " MiB free"));
  }
  DISSECT_ASSIGN_OR_RETURN(
      sparsity::Mask mask,
      sparsity::GenerateMask(d.form.activation, pct / 100.0, structure, kMaskSeed + pct));
  std::vector<float> act = RandomActivations(d.form.activation.elements(), kActivationSeed);
  DISSECT_RETURN_IF_ERROR(sparsity::ApplyMask(mask, absl::MakeSpan(act)));
  DISSECT_ASSIGN_OR_RETURN(d.x_host, ActivationMatrix(layer, d.form, act));
  d.achieved = ZeroFraction(d.x_host);
  DISSECT_ASSIGN_OR_RETURN(d.x, DeviceBuffer<float>::Allocate(d.x_host.size()));
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(d.x.get(), d.x_host.data(), d.x.bytes(), cudaMemcpyHostToDevice));
  DISSECT_ASSIGN_OR_RETURN(d.y, DeviceBuffer<float>::Allocate(d.form.m * d.form.n));
  DISSECT_RETURN_IF_ERROR(RunCublas(d.form, GlobalState().w.get(), d.x.get(), d.y.get(), stream));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  d.reference.resize(d.form.m * d.form.n);
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(d.reference.data(), d.y.get(), d.y.bytes(), cudaMemcpyDeviceToHost));
  // cuBLAS itself against the CPU on the first columns (another summation
  // order: the same bound as every method against cuBLAS).
  for (int64_t col = 0; col < std::min<int64_t>(kCheckedColumns, d.form.n); ++col) {
    const std::vector<float> want =
        ReferenceColumn(GlobalState().w_host, d.x_host, d.form.m, d.form.k, col);
    DISSECT_ASSIGN_OR_RETURN(
        const double err,
        MaxRelativeError(absl::MakeConstSpan(d.reference).subspan(col * d.form.m, d.form.m), want));
    if (err > kMaxRelError) {
      return absl::InternalError(absl::StrCat("cuBLAS column ", col, " is off the CPU by ", err));
    }
  }
  return d;
}

absl::StatusOr<double> Median(std::vector<double> samples) {
  if (samples.empty()) return absl::InternalError("no samples");
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  return n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

// Polls board power while `body` runs; NaN (and a note) where NVML cannot.
absl::StatusOr<double> WithPower(PointContext& ctx, const std::function<absl::Status()>& body) {
  State& s = GlobalState();
  if (!s.nvml_tried) {
    s.nvml_tried = true;
    absl::StatusOr<std::unique_ptr<NvmlClock>> nvml = NvmlClock::Open(ctx.device().pci_bus_id);
    if (nvml.ok()) {
      s.nvml = std::move(*nvml);
    } else {
      s.nvml_error = std::string(nvml.status().message());
    }
  }
  if (s.nvml == nullptr) {
    DISSECT_RETURN_IF_ERROR(body());
    ctx.AddNote(absl::StrCat("power_w unavailable: ", s.nvml_error));
    return std::numeric_limits<double>::quiet_NaN();
  }
  PowerPoller poller(s.nvml.get());
  poller.Start();
  const absl::Status status = body();
  absl::StatusOr<PowerSpan> span = poller.Stop();
  DISSECT_RETURN_IF_ERROR(status);
  if (!span.ok()) {
    ctx.AddNote(absl::StrCat("power_w unavailable: ", span.status().message()));
    return std::numeric_limits<double>::quiet_NaN();
  }
  return span->median_w;
}

// The median time of dense cuBLAS on the zeros of (shape, structure,
// batch) at 0 % sparsity, measured once per run and kept.
absl::StatusOr<double> DenseBaselineMs(PointContext& ctx, const l1_bypass::LayerShape& layer,
                                       const std::string& shape, const std::string& structure_name,
                                       sparsity::MaskStructure structure, int batch) {
  const auto baseline_key = std::make_tuple(shape, structure_name, int64_t{batch});
  auto& baselines = GlobalState().baseline_ms;
  if (baselines.find(baseline_key) == baselines.end()) {
    const float* w = GlobalState().w.get();
    DISSECT_ASSIGN_OR_RETURN(PointData dense, MakeData(layer, batch, structure, 0, ctx.stream()));
    absl::Status dense_status;
    absl::StatusOr<std::vector<double>> ms =
        ctx.TimeKernel(Checked(
                           [&](cudaStream_t s) {
                             return RunCublas(dense.form, w, dense.x.get(), dense.y.get(), s);
                           },
                           dense_status),
                       CacheState::kHot);
    DISSECT_RETURN_IF_ERROR(dense_status);
    if (!ms.ok()) return ms.status();
    DISSECT_ASSIGN_OR_RETURN(baselines[baseline_key], Median(std::move(*ms)));
  }
  return baselines[baseline_key];
}

// A point's method, ready to launch, and what it holds while it runs. The
// launch refers to the members: the MethodRun stays where it was set up.
struct MethodRun {
  LaunchFn launch;
  absl::Status launch_status;
  std::optional<CsrSpmm> spmm;
  DeviceBuffer<uint8_t> bitmap;
  sparsity_gemm::SkipGemmArgs args{};
  std::vector<double> convert_ms;  // cusparse_csr: the conversion's samples
};

// Sets `run` up to compute Y = W X into `y` with `method`; the CSR method
// converts W first (timed, in run->convert_ms).
absl::Status SetUpMethod(PointContext& ctx, const std::string& method, const PointData& d,
                         const float* w, float* y, MethodRun* run) {
  cudaStream_t stream = ctx.stream();
  run->args = sparsity_gemm::SkipGemmArgs{w,
                                          d.x.get(),
                                          y,
                                          nullptr,
                                          static_cast<int>(d.form.m),
                                          static_cast<int>(d.form.n),
                                          static_cast<int>(d.form.k)};
  if (method == "dense_cublas") {
    const GemmForm form = d.form;
    const float* x = d.x.get();
    run->launch = Checked([form, w, x, y](cudaStream_t s) { return RunCublas(form, w, x, y, s); },
                          run->launch_status);
    return absl::OkStatus();
  }
  if (method == "skip_warp" || method == "skip_tile") {
    const SkipMode mode = method == "skip_warp" ? SkipMode::kWarp : SkipMode::kTile;
    if (mode == SkipMode::kTile) {
      DISSECT_ASSIGN_OR_RETURN(run->bitmap, DeviceBuffer<uint8_t>::Allocate(
                                                sparsity_gemm::TileBitmapSize(d.form.k, d.form.n)));
      run->args.tile_bitmap = run->bitmap.get();
    }
    const sparsity_gemm::SkipGemmArgs* args = &run->args;
    run->launch = [mode, args](cudaStream_t s) {
      return sparsity_gemm::LaunchSkipGemm(mode, *args, s);
    };
    return absl::OkStatus();
  }
  absl::StatusOr<CsrSpmm> made =
      CsrSpmm::Create(w, d.x.get(), y, d.form.m, d.form.n, d.form.k, stream);
  if (!made.ok()) return made.status();
  run->spmm.emplace(std::move(*made));
  CsrSpmm* spmm = &*run->spmm;
  TimingOptions convert_timing = ctx.timing();
  convert_timing.guard_ns = 0;
  convert_timing.launches_per_sample = 1;
  convert_timing.cache = CacheState::kHot;
  absl::StatusOr<std::vector<double>> converted =
      TimeWithEvents(Checked([spmm](cudaStream_t s) { return spmm->Convert(s); },
                             run->launch_status),
                     convert_timing, nullptr, stream);
  DISSECT_RETURN_IF_ERROR(run->launch_status);
  if (!converted.ok()) return converted.status();
  run->convert_ms = std::move(*converted);
  ctx.AddNote(absl::StrCat("nnz=", spmm->nnz()));
  run->launch = Checked([spmm](cudaStream_t s) { return spmm->Multiply(s); }, run->launch_status);
  return absl::OkStatus();
}

// Runs the method once and checks its Y: against cuBLAS's within
// kMaxRelError, and for the zero-skipping kernels bit for bit against the
// CPU on the first columns. Returns the relative error.
absl::StatusOr<double> CheckMethod(const std::string& method, const PointData& d,
                                   const DeviceBuffer<float>& y, MethodRun& run,
                                   cudaStream_t stream) {
  DISSECT_CUDA_RETURN_IF_ERROR(run.launch(stream));
  DISSECT_RETURN_IF_ERROR(run.launch_status);
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  std::vector<float> got(d.form.m * d.form.n);
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpy(got.data(), y.get(), y.bytes(), cudaMemcpyDeviceToHost));
  DISSECT_ASSIGN_OR_RETURN(const double error, MaxRelativeError(got, d.reference));
  if (!(error <= kMaxRelError)) {
    return absl::InternalError(
        absl::StrCat(method, " is off cuBLAS by ", error, " (bound ", kMaxRelError, ")"));
  }
  if (method == "skip_warp" || method == "skip_tile") {
    for (int64_t col = 0; col < std::min<int64_t>(kCheckedColumns, d.form.n); ++col) {
      const std::vector<float> want =
          ReferenceColumn(GlobalState().w_host, d.x_host, d.form.m, d.form.k, col);
      for (int64_t row = 0; row < d.form.m; ++row) {
        if (got[col * d.form.m + row] != want[row]) {
          return absl::InternalError(absl::StrCat(method, " Y[", row, ",", col,
                                                  "] = ", got[col * d.form.m + row], ", the CPU's ",
                                                  want[row], " (must be equal)"));
        }
      }
    }
  }
  return error;
}

// Times the method (with board power) and reports the point's samples.
absl::Status TimeMethod(PointContext& ctx, MethodRun& run, const PointData& d, double baseline_ms,
                        double error) {
  std::vector<double> ms;
  DISSECT_ASSIGN_OR_RETURN(const double power_w, WithPower(ctx, [&]() -> absl::Status {
                             absl::StatusOr<std::vector<double>> t =
                                 ctx.TimeKernel(run.launch, CacheState::kHot);
                             DISSECT_RETURN_IF_ERROR(run.launch_status);
                             if (!t.ok()) return t.status();
                             ms = std::move(*t);
                             return absl::OkStatus();
                           }));
  DISSECT_ASSIGN_OR_RETURN(const double median_ms, Median(ms));
  std::vector<double> convert_ms = std::move(run.convert_ms);
  if (convert_ms.empty()) convert_ms.assign(ms.size(), 0.0);
  std::vector<double> end_to_end;
  for (size_t i = 0; i < ms.size(); ++i)
    end_to_end.push_back(ms[i] + convert_ms[i % convert_ms.size()]);
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("achieved_sparsity", {d.achieved}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("speedup_vs_dense", {baseline_ms / median_ms}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("convert_ms", std::move(convert_ms)));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("end_to_end_ms", std::move(end_to_end)));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("power_w", {power_w}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("max_rel_error", {error}));
  ctx.AddNote("activation_source=controlled_mask");
  return absl::OkStatus();
}

absl::Status Run(PointContext& ctx) {
  const std::string& shape = ctx.Str("shape");
  const std::string& method = ctx.Str("method");
  const std::string& structure_name = ctx.Str("structure");
  const int batch = static_cast<int>(ctx.Int("batch"));
  const int64_t pct = ctx.Int("sparsity_pct");
  DISSECT_ASSIGN_OR_RETURN(const l1_bypass::LayerShape* layer, l1_bypass::FindEmbeddedLayer(shape));
  DISSECT_ASSIGN_OR_RETURN(const sparsity::MaskStructure structure,
                           sparsity::ParseMaskStructure(structure_name));
  DISSECT_ASSIGN_OR_RETURN(const GemmForm form, FormOf(*layer, batch));
  DISSECT_RETURN_IF_ERROR(PrepareWeights(shape, form));
  const float* w = GlobalState().w.get();
  cudaStream_t stream = ctx.stream();

  // The dense baseline first: the row's own TimeKernel comes last, so the
  // row's time and clock are its method's.
  DISSECT_ASSIGN_OR_RETURN(
      const double baseline_ms,
      DenseBaselineMs(ctx, *layer, shape, structure_name, structure, batch));

  DISSECT_ASSIGN_OR_RETURN(PointData d, MakeData(*layer, batch, structure, pct, stream));
  DISSECT_ASSIGN_OR_RETURN(auto y, DeviceBuffer<float>::Allocate(d.form.m * d.form.n));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(y.get(), 0xff, y.bytes(), stream));
  MethodRun run;
  DISSECT_RETURN_IF_ERROR(SetUpMethod(ctx, method, d, w, y.get(), &run));
  // Correctness before timing.
  DISSECT_ASSIGN_OR_RETURN(const double error, CheckMethod(method, d, y, run, stream));
  return TimeMethod(ctx, run, d, baseline_ms, error);
}

DISSECT_EXPERIMENT(sparsity_speed)
    .Question(
        "At what activation sparsity does dense cuBLAS on zeros, a zero-skipping kernel or "
        "cuSPARSE CSR SpMM beat the dense cuBLAS SGEMM of a layer, if ever?")
    .AddAxis(StringAxis("shape", l1_bypass::EmbeddedLayerNames(), Shapes(),
                        "a conv or fc layer of configs/layers/cnn_layers.json: conv layers as "
                        "im2col GEMMs (M = filters, K = R·S·C, N = batch·P·Q), fc layers as "
                        "M = outputs, K = inputs, N = batch"))
    .AddAxis(StringAxis("method", Methods(), {},
                        "dense_cublas: cublasSgemm, FP32 (no TF32), on the masked data; "
                        "skip_warp: our kernel skipping all-zero 32-long K segments of a "
                        "column (ballot); skip_tile: ours skipping all-zero 16x16 tiles of X "
                        "(bitmap pass timed with it); cusparse_csr: cusparseSpMM with X in "
                        "CSR (conversion in convert_ms)"))
    .AddAxis(StringAxis("structure", sparsity::MaskStructureNames(), {},
                        "probes/sparsity mask over the layer's input: uniform elements, whole "
                        "channels, runs of 32 channels at one position"))
    .AddAxis(IntAxis("sparsity_pct", "%", {0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99},
                     "target zero fraction of the activations, 0..99"))
    .AddAxis(IntAxis("batch", "images", {1},
                     "images (conv) or GEMM columns (fc: 1 is a GEMV; try 8, 32)"))
    .AddMetric("achieved_sparsity", "fraction",
               "zero fraction of X as the GEMM reads it (conv: im2col padding zeros included)")
    .AddMetric("speedup_vs_dense", "x",
               "median of dense_cublas at 0 % (same shape, structure, batch, same process) / "
               "this row's median")
    .AddMetric("convert_ms", "ms",
               "cusparse_csr: dense -> CSR conversion per sample (unguarded events); 0 otherwise")
    .AddMetric("end_to_end_ms", "ms", "kernel + conversion, per sample")
    .AddMetric("power_w", "W",
               "median NVML board power polled during warm-up and samples; NaN if unavailable")
    .AddMetric("max_rel_error", "fraction",
               "max |Y - Y_cublas| / max |Y_cublas| on the same data (bound 1e-3)")
    .Validate(Validate)
    .Headline("speedup_vs_dense")
    .Run(Run);

}  // namespace
}  // namespace dissect::sparsity_speed
