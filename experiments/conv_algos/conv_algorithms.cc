// Question: how fast is each of cuDNN's legacy forward convolution
// algorithms (implicit GEMM, GEMM, direct, FFT, Winograd, ...) on every conv
// layer of AlexNet, VGG-16 and ResNet-50, at which batch sizes, and how much
// workspace does it need? (Xu, Ma & Guo, NAS 2018; µ-cuDNN, Oyama et al.,
// CLUSTER 2018, splits a mini-batch into these measured batch sizes.) And
// how does our own two-stage convolution (algo=two_stage,
// kernels/two_stage_conv: our reading of cuConv, 2022, from its title and
// the reading list's note only) compare with them at inference batches?
// Timed: one cudnnConvolutionForward call with the point's algorithm, hot
// (CUDA events, the harness's guard), after its output has been checked
// against a CPU reference on sampled output positions. For two_stage: its
// two launches (stage 1, each filter row's partial outputs into an R x N x K
// x P x Q float workspace; stage 2, their sum into the output) timed
// together as one launch, after the same check; workspace_bytes is that
// workspace, heuristic_rank NaN (cuDNN does not rank it), math=fma only
// (math=tensor_op rows are skipped: it runs FFMA, no tensor cores).
// Expected: no algorithm wins every layer; FFT and Winograd win some 3x3 and
// 5x5 layers at large batches but need workspace (FFT up to GiBs); implicit
// GEMM needs none and is never far behind on 1x1 layers; unsupported
// (layer, algorithm) pairs are skipped with cuDNN's status. two_stage (one
// output a thread, its loads from global memory through L1, no tiling in
// shared memory or registers) is expected behind cuDNN's best on most
// layers, nearest on small batch-1 layers, with R times the output as
// workspace.
// Could be confused with: a wrong output for a fast algorithm: each point
// checks 256 sampled outputs against the CPU reference before timing, and
// //experiments/conv_algos:conv_layers_test checks that reference
// (OutputAtMatchesTheCpuConvolution) and the FLOP count. Host time inside
// the event pair (workspace allocation, descriptor set-up): all of it
// happens before the timed call; //probes:event_timer_test covers the
// guard. TF32 tensor-core math for FP32 FMA on math=fma rows (a library
// default or NVIDIA_TF32_OVERRIDE), the library's choice taken for the
// hardware path asked for: the fma check's tolerance (conv_check.h) rejects
// TF32, and //experiments/conv_algos:conv_check_test shows it on emulated
// TF32 at every distinct layer shape and default batch while FP32 in other
// summation orders and FP32 Winograd F(4x4, 3x3) pass
// (FmaToleranceRejectsTf32AndAcceptsFp32InAnyOrder; the old 1e-3 x sum |x w|
// accepted TF32 everywhere). A correct Winograd output taken for a wrong
// one: Winograd's transforms amplify rounding, more the larger the tile
// (Barabasz, Anderson, Soodhalter & Gregg, ACM TOMS 46(4), 2020,
// arXiv:1803.10986); the H100's winograd_nonfused on the 5x5
// alexnet.features.3 erred 5.4x the fma bound. winograd and
// winograd_nonfused rows are checked against the fma bound times
// WinogradGrowth of the largest tile cuDNN may use (conv_check.h: 46.3 for
// 3x3, F(6x6,3x3); 29.8 for 5x5, F(4x4,5x5)), a figure computed from the
// transforms, not fitted to the GPU; conv_check_test shows the H100's
// error passing under it and failing the fma bound, and a lost input
// channel failing both (WinogradBound*). Under that bound TF32 would pass
// too: on Winograd rows only the math guard below says the math was FP32.
// Each row also reads the math type back
// (cudnnGetConvolutionMathType) and checks NVIDIA_TF32_OVERRIDE: a row whose
// math is not the one asked for is skipped with the reason
// (MathGuardRefusesAnyOtherMath). A wrong two-stage decomposition:
// //experiments/conv_algos:two_stage_reference_test runs the kernel's own
// arithmetic (two_stage_conv_math.h) on the host against the CPU reference
// on padded, strided and 1x1 shapes and shows the check failing on broken
// variants; //experiments/conv_algos:two_stage_sass_test checks its inner
// loop is FFMA with its two loads per product. Not shown by a test: that
// FP32 FFT's rounding stays under the fma tolerance (not emulated; its
// transforms are orthogonal up to scale, so their rounding grows like
// log(size), and every FFT row of the H100 run passed; a failing row gives
// its error); which Winograd tiles cuDNN really uses (undocumented); and
// that a math=tensor_op row of an algorithm without a TF32
// kernel (cuDNN may fall back to FP32 FMA) really ran on tensor cores.
#include <cudnn.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "experiments/conv_algos/conv_check.h"
#include "experiments/conv_algos/conv_layers.h"
#include "experiments/workloads/forward/cudnn_api.h"
#include "experiments/workloads/forward/cudnn_object.h"
#include "experiments/framework/experiment.h"
#include "kernels/two_stage_conv/two_stage_conv.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

namespace dissect::conv_algos {
namespace {

using forward::CudnnApi;
using forward::LayerSpec;
using forward::MakeCudnnObject;

// Device memory left free besides the point's buffers (cuDNN's own).
constexpr size_t kHeadroomBytes = size_t{256} << 20;

const std::vector<ConvLayer>& Layers() {
  static const auto* const layers = [] {
    absl::StatusOr<std::vector<ConvLayer>> all = AllConvLayers();
    return new std::vector<ConvLayer>(all.ok() ? *std::move(all) : std::vector<ConvLayer>{});
  }();
  return *layers;
}

std::vector<std::string> LayerNames() {
  std::vector<std::string> names;
  for (const ConvLayer& l : Layers()) names.push_back(l.name);
  return names;
}

// The networks of the papers, swept by default.
const std::vector<std::string>& PaperNetworks() {
  static const auto* const networks = new std::vector<std::string>{"alexnet", "vgg16", "resnet50"};
  return *networks;
}

const ConvLayer* FindLayer(const std::string& name) {
  for (const ConvLayer& l : Layers()) {
    if (l.name == name) return &l;
  }
  return nullptr;
}

absl::StatusOr<cudnnMathType_t> MathType(const std::string& name) {
  if (name == "fma") return CUDNN_FMA_MATH;
  if (name == "tensor_op") return CUDNN_TENSOR_OP_MATH;
  return absl::InvalidArgumentError(absl::StrCat("unknown math '", name, "'"));
}

// `pattern` repeated over `buffer`: one upload, then copies doubling the
// filled part.
absl::Status FillPeriodic(const std::vector<float>& pattern, DeviceBuffer<float>& buffer) {
  const size_t first = std::min(pattern.size(), buffer.size());
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(buffer.get(), pattern.data(), first * sizeof(float), cudaMemcpyHostToDevice));
  for (size_t filled = first; filled < buffer.size(); filled *= 2) {
    const size_t n = std::min(filled, buffer.size() - filled);
    DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpy(buffer.get() + filled, buffer.get(), n * sizeof(float),
                                            cudaMemcpyDeviceToDevice));
  }
  return absl::OkStatus();
}

// Compares kCheckedOutputs output values (spread over the whole NKPQ
// tensor) with sums in double on the host; `growth` (ErrorGrowth) widens
// the fma bound for an algorithm whose rounding is larger (Winograd).
absl::Status CheckOutput(const LayerSpec& l, int batch, const std::vector<float>& x,
                         const std::vector<float>& w, const DeviceBuffer<float>& y,
                         cudnnMathType_t math, double growth) {
  for (int i = 0; i < kCheckedOutputs; ++i) {
    const OutputPosition at = CheckedOutput(l, batch, i);
    const ReferenceValue ref = ConvOutputAt(l, x, w, at.n, at.k, at.p, at.q);
    float gpu = 0;
    DISSECT_CUDA_RETURN_IF_ERROR(
        cudaMemcpy(&gpu, y.get() + at.index, sizeof(float), cudaMemcpyDeviceToHost));
    if (!PassesCheck(gpu, ref, math, growth)) {
      return absl::InternalError(absl::StrFormat(
          "output (n %d, k %d, p %d, q %d) is %g, the CPU reference %g: error %g (%.3g of "
          "sqrt(sum (x w)^2), %.3g of sum |x w|), allowed %g for math %s%s",
          at.n, at.k, at.p, at.q, gpu, ref.value, std::fabs(gpu - ref.value),
          std::fabs(gpu - ref.value) / ref.norm, std::fabs(gpu - ref.value) / ref.magnitude,
          AllowedError(ref, math, growth), MathTypeName(math),
          growth == 1 ? std::string()
                      : absl::StrFormat(" (Winograd bound: %.3g x the fma bound)", growth)));
    }
  }
  return absl::OkStatus();
}

// cudnnGetConvolutionMathType, which CudnnApi does not resolve, from the
// cuDNN that LoadCudnnApi loaded (RTLD_NOLOAD: that very library, already
// open); nullptr if that library lacks it.
using GetMathTypeFn = cudnnStatus_t (*)(cudnnConvolutionDescriptor_t, cudnnMathType_t*);
GetMathTypeFn GetConvolutionMathType(const CudnnApi& api) {
  void* lib = dlopen(api.path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) return nullptr;
  return reinterpret_cast<GetMathTypeFn>(dlsym(lib, "cudnnGetConvolutionMathType"));
}

// Why the point must not be reported as `math` (MathMismatch), or "": the
// descriptor's math type read back after the set, and NVIDIA_TF32_OVERRIDE.
absl::StatusOr<std::string> MathRefusal(const CudnnApi& api, cudnnConvolutionDescriptor_t conv,
                                        cudnnMathType_t math) {
  std::optional<cudnnMathType_t> read_back;
  if (const GetMathTypeFn get = GetConvolutionMathType(api); get != nullptr) {
    cudnnMathType_t value;
    DISSECT_CUDNN_RETURN_IF_ERROR(api, get(conv, &value));
    read_back = value;
  }
  return MathMismatch(math, read_back, std::getenv("NVIDIA_TF32_OVERRIDE"));
}

absl::Status Validate(const Point& p) {
  if (Layers().empty()) return AllConvLayers().status();
  const int64_t batch = p.Int("batch");
  if (batch < 1 || batch > 1024) {
    return absl::InvalidArgumentError(absl::StrCat("batch must be in 1..1024 (got ", batch, ")"));
  }
  return absl::OkStatus();
}

// The cuDNN objects of one point: the handle (on the point's stream) and the
// descriptors of its input, output, filter and convolution. Members are
// destroyed in reverse order, descriptors before the handle.
struct ConvSetup {
  forward::CudnnObject<cudnnHandle_t> handle;
  forward::CudnnObject<cudnnTensorDescriptor_t> x_desc;
  forward::CudnnObject<cudnnTensorDescriptor_t> y_desc;
  forward::CudnnObject<cudnnFilterDescriptor_t> w_desc;
  forward::CudnnObject<cudnnConvolutionDescriptor_t> conv_desc;
};

// Creates and sets the handle and descriptors of layer `l` at `batch`, FP32
// NCHW, with math type `math`.
absl::StatusOr<ConvSetup> DescribeConvolution(const CudnnApi& api, const LayerSpec& l, int batch,
                                              cudnnMathType_t math, cudaStream_t stream) {
  ConvSetup c;
  DISSECT_ASSIGN_OR_RETURN(c.handle,
                           MakeCudnnObject(api, api.cudnnCreate, api.cudnnDestroy, "cudnnCreate"));
  DISSECT_CUDNN_RETURN_IF_ERROR(api, api.cudnnSetStream(c.handle.get(), stream));
  DISSECT_ASSIGN_OR_RETURN(c.x_desc, MakeCudnnObject(api, api.cudnnCreateTensorDescriptor,
                                                     api.cudnnDestroyTensorDescriptor,
                                                     "cudnnCreateTensorDescriptor"));
  DISSECT_ASSIGN_OR_RETURN(c.y_desc, MakeCudnnObject(api, api.cudnnCreateTensorDescriptor,
                                                     api.cudnnDestroyTensorDescriptor,
                                                     "cudnnCreateTensorDescriptor"));
  DISSECT_ASSIGN_OR_RETURN(c.w_desc, MakeCudnnObject(api, api.cudnnCreateFilterDescriptor,
                                                     api.cudnnDestroyFilterDescriptor,
                                                     "cudnnCreateFilterDescriptor"));
  DISSECT_ASSIGN_OR_RETURN(
      c.conv_desc,
      MakeCudnnObject(api, api.cudnnCreateConvolutionDescriptor,
                      api.cudnnDestroyConvolutionDescriptor, "cudnnCreateConvolutionDescriptor"));
  DISSECT_CUDNN_RETURN_IF_ERROR(
      api, api.cudnnSetTensor4dDescriptor(c.x_desc.get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                          batch, l.in.c, l.in.h, l.in.w));
  DISSECT_CUDNN_RETURN_IF_ERROR(
      api, api.cudnnSetTensor4dDescriptor(c.y_desc.get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                          batch, l.out.c, l.out.h, l.out.w));
  DISSECT_CUDNN_RETURN_IF_ERROR(
      api, api.cudnnSetFilter4dDescriptor(c.w_desc.get(), CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, l.k,
                                          l.in.c, l.r, l.s));
  DISSECT_CUDNN_RETURN_IF_ERROR(
      api, api.cudnnSetConvolution2dDescriptor(c.conv_desc.get(), l.pad, l.pad, l.stride,
                                               l.stride, 1, 1, CUDNN_CROSS_CORRELATION,
                                               CUDNN_DATA_FLOAT));
  DISSECT_CUDNN_RETURN_IF_ERROR(api, api.cudnnSetConvolutionMathType(c.conv_desc.get(), math));
  return c;
}

// `algo`'s place among the algorithms cuDNN's heuristic ranks as supported
// for this layer (any math), 1 the first; NaN when it is not among them.
absl::StatusOr<double> HeuristicRank(const CudnnApi& api, const ConvSetup& c,
                                     cudnnConvolutionFwdAlgo_t algo) {
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  DISSECT_CUDNN_RETURN_IF_ERROR(
      api, api.cudnnGetConvolutionForwardAlgorithm_v7(
               c.handle.get(), c.x_desc.get(), c.w_desc.get(), c.conv_desc.get(), c.y_desc.get(),
               CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf));
  double rank = NAN;
  for (int i = 0, supported = 0; i < returned; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    ++supported;
    if (perf[i].algo == algo) {
      rank = supported;
      break;
    }
  }
  return rank;
}

// The device memory of one point: input, output, filter and workspace.
struct ConvBuffers {
  DeviceBuffer<float> x;
  DeviceBuffer<float> y;
  DeviceBuffer<float> w;
  DeviceBuffer<unsigned char> workspace;
};

// Allocates the point's buffers (Skipped when they do not fit) and fills
// the input and filter with their patterns, the output with NaN.
absl::StatusOr<ConvBuffers> AllocateBuffers(const LayerSpec& l, int batch, size_t workspace_bytes,
                                            const std::vector<float>& x_pattern,
                                            const std::vector<float>& w_pattern) {
  const size_t x_elements = static_cast<size_t>(batch) * l.in.c * l.in.h * l.in.w;
  const size_t y_elements = static_cast<size_t>(batch) * l.out.c * l.out.h * l.out.w;
  const size_t w_elements = static_cast<size_t>(l.k) * l.in.c * l.r * l.s;
  const size_t needed =
      (x_elements + y_elements + w_elements) * sizeof(float) + workspace_bytes + kHeadroomBytes;
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (needed > free_bytes) {
    return Skipped(absl::StrCat("needs ", (needed >> 20) + 1, " MiB (workspace ",
                                workspace_bytes >> 20, " MiB), ", free_bytes >> 20, " MiB free"));
  }
  ConvBuffers b;
  DISSECT_ASSIGN_OR_RETURN(b.x, DeviceBuffer<float>::Allocate(x_elements));
  DISSECT_ASSIGN_OR_RETURN(b.y, DeviceBuffer<float>::Allocate(y_elements));
  DISSECT_ASSIGN_OR_RETURN(b.w, DeviceBuffer<float>::Allocate(w_elements));
  DISSECT_ASSIGN_OR_RETURN(b.workspace, DeviceBuffer<unsigned char>::Allocate(
                                            std::max<size_t>(workspace_bytes, 1)));
  DISSECT_RETURN_IF_ERROR(FillPeriodic(x_pattern, b.x));
  DISSECT_RETURN_IF_ERROR(FillPeriodic(w_pattern, b.w));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemset(b.y.get(), 0xff, b.y.bytes()));  // NaN until written
  // The fills ran on the default stream; the point's stream may not wait for it.
  DISSECT_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());
  return b;
}

// Reports a point's samples from its call times `ms`.
absl::Status ReportSamples(PointContext& ctx, const std::vector<double>& ms,
                           const ConvLayer& layer, int batch, size_t workspace_bytes,
                           double rank) {
  const LayerSpec& l = layer.spec;
  std::vector<double> gflops;
  for (double t : ms) gflops.push_back(ConvFlops(l, batch) / (t * 1e-3) / 1e9);
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("gflops", std::move(gflops)));
  DISSECT_RETURN_IF_ERROR(
      ctx.AddSamples("workspace_bytes", {static_cast<double>(workspace_bytes)}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("heuristic_rank", {rank}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("shape_count", {static_cast<double>(layer.shape_count)}));
  return ctx.AddSamples("network_conv_layers", {static_cast<double>(layer.network_conv_layers)});
}

// Times `convolve` hot and reports the point's samples.
absl::Status TimeConvolution(PointContext& ctx, const CudnnApi& api,
                             const std::function<cudnnStatus_t()>& convolve,
                             const ConvLayer& layer, int batch, size_t workspace_bytes,
                             double rank) {
  cudnnStatus_t launch_status = CUDNN_STATUS_SUCCESS;
  const LaunchFn launch = [&](cudaStream_t) {
    const cudnnStatus_t status = convolve();
    if (status == CUDNN_STATUS_SUCCESS) return cudaSuccess;
    launch_status = status;
    return cudaErrorLaunchFailure;
  };
  DISSECT_ASSIGN_OR_RETURN(const std::vector<double> ms, ctx.TimeKernel(launch, CacheState::kHot));
  if (launch_status != CUDNN_STATUS_SUCCESS) {
    return forward::CudnnStatus(api, launch_status, "cudnnConvolutionForward");
  }
  return ReportSamples(ctx, ms, layer, batch, workspace_bytes, rank);
}

// algo=two_stage: our two-stage convolution (kernels/two_stage_conv), no
// cuDNN. Its output passes the same check as cuDNN's FP32 FMA rows before
// its two launches are timed together.
absl::Status RunTwoStage(PointContext& ctx, const ConvLayer& layer, int batch) {
  if (ctx.Str("math") != "fma") {
    return Skipped("two_stage runs FP32 FFMA only: math=fma (no tensor-core form)");
  }
  const LayerSpec& l = layer.spec;
  const two_stage_conv::ConvDims d{batch, l.in.c, l.in.h, l.in.w, l.k, l.r, l.s, l.stride, l.pad};
  if (d.OutH() != l.out.h || d.OutW() != l.out.w) {
    return absl::InternalError(absl::StrFormat("%s: two_stage's output is %dx%d, the layer's %dx%d",
                                               layer.name, d.OutH(), d.OutW(), l.out.h, l.out.w));
  }
  const size_t workspace_bytes = two_stage_conv::WorkspaceBytes(d);
  const std::vector<float> x_pattern = InputPattern();
  const std::vector<float> w_pattern = WeightPattern(l);
  DISSECT_ASSIGN_OR_RETURN(ConvBuffers b,
                           AllocateBuffers(l, batch, workspace_bytes, x_pattern, w_pattern));
  float* workspace = reinterpret_cast<float*>(b.workspace.get());
  const LaunchFn launch = [&](cudaStream_t stream) {
    return two_stage_conv::LaunchTwoStageConv(b.x.get(), b.w.get(), workspace, b.y.get(), d,
                                              stream);
  };
  DISSECT_CUDA_RETURN_IF_ERROR(launch(ctx.stream()));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(ctx.stream()));
  if (absl::Status check = CheckOutput(l, batch, x_pattern, w_pattern, b.y, CUDNN_FMA_MATH, 1);
      !check.ok()) {
    return absl::InternalError(absl::StrCat("two_stage on ", layer.name, ": ", check.message()));
  }
  DISSECT_ASSIGN_OR_RETURN(const std::vector<double> ms, ctx.TimeKernel(launch, CacheState::kHot));
  return ReportSamples(ctx, ms, layer, batch, workspace_bytes, NAN);
}

absl::Status Run(PointContext& ctx) {
  const ConvLayer* layer = FindLayer(ctx.Str("layer"));
  if (layer == nullptr) return absl::InvalidArgumentError("unknown layer " + ctx.Str("layer"));
  const LayerSpec& l = layer->spec;
  const int batch = static_cast<int>(ctx.Int("batch"));
  if (ctx.Str("algo") == kTwoStageAlgo) return RunTwoStage(ctx, *layer, batch);
  DISSECT_ASSIGN_OR_RETURN(const cudnnConvolutionFwdAlgo_t algo, ConvAlgoNamed(ctx.Str("algo")));
  DISSECT_ASSIGN_OR_RETURN(const cudnnMathType_t math, MathType(ctx.Str("math")));
  absl::StatusOr<const CudnnApi*> loaded = forward::LoadCudnnApi();
  if (!loaded.ok()) {
    if (absl::IsNotFound(loaded.status())) return Skipped(loaded.status().message());
    return loaded.status();
  }
  const CudnnApi& api = **loaded;
  DISSECT_ASSIGN_OR_RETURN(const ConvSetup c,
                           DescribeConvolution(api, l, batch, math, ctx.stream()));
  // A row whose math is not the one asked for would report tensor-core TF32
  // as FP32 FMA (or the reverse): refused, with the reason, before any work.
  DISSECT_ASSIGN_OR_RETURN(const std::string refusal, MathRefusal(api, c.conv_desc.get(), math));
  if (!refusal.empty()) return Skipped(refusal);
  DISSECT_ASSIGN_OR_RETURN(const double rank, HeuristicRank(api, c, algo));

  size_t workspace_bytes = 0;
  if (const cudnnStatus_t status = api.cudnnGetConvolutionForwardWorkspaceSize(
          c.handle.get(), c.x_desc.get(), c.w_desc.get(), c.conv_desc.get(), c.y_desc.get(), algo,
          &workspace_bytes);
      status != CUDNN_STATUS_SUCCESS) {
    return Skipped(absl::StrCat("cuDNN does not support ", ctx.Str("algo"),
                                " here: ", api.cudnnGetErrorString(status)));
  }
  const std::vector<float> x_pattern = InputPattern();
  const std::vector<float> w_pattern = WeightPattern(l);
  DISSECT_ASSIGN_OR_RETURN(ConvBuffers b,
                           AllocateBuffers(l, batch, workspace_bytes, x_pattern, w_pattern));
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const std::function<cudnnStatus_t()> convolve = [&]() {
    return api.cudnnConvolutionForward(c.handle.get(), &alpha, c.x_desc.get(), b.x.get(),
                                       c.w_desc.get(), b.w.get(), c.conv_desc.get(), algo,
                                       b.workspace.get(), workspace_bytes, &beta, c.y_desc.get(),
                                       b.y.get());
  };
  if (const cudnnStatus_t status = convolve(); status != CUDNN_STATUS_SUCCESS) {
    if (status == CUDNN_STATUS_NOT_SUPPORTED) {
      return Skipped(absl::StrCat("cudnnConvolutionForward does not support ", ctx.Str("algo"),
                                  " here: ", api.cudnnGetErrorString(status)));
    }
    return forward::CudnnStatus(api, status, "cudnnConvolutionForward");
  }
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(ctx.stream()));
  if (absl::Status check =
          CheckOutput(l, batch, x_pattern, w_pattern, b.y, math, ErrorGrowth(algo, l));
      !check.ok()) {
    return absl::InternalError(
        absl::StrCat(ctx.Str("algo"), " on ", layer->name, ": ", check.message()));
  }
  return TimeConvolution(ctx, api, convolve, *layer, batch, workspace_bytes, rank);
}

DISSECT_EXPERIMENT(conv_algorithms)
    .Question(
        "How fast is each cuDNN forward convolution algorithm on each conv layer of AlexNet, "
        "VGG-16 and ResNet-50, at which batch size, with how much workspace?")
    .AddAxis(StringAxis("layer", LayerNames(), DistinctShapeNames(Layers(), PaperNetworks()),
                        "<network>.<layer>, every conv layer of the built-in networks; the "
                        "default is AlexNet's, VGG-16's and ResNet-50's first layer of each "
                        "distinct shape per network (the repeats are accepted too)"))
    .AddAxis(StringAxis("algo", AlgoAxisNames(), {},
                        "cuDNN's legacy cudnnConvolutionFwdAlgo_t, or two_stage: our two-stage "
                        "convolution (kernels/two_stage_conv, our reading of cuConv 2022)"))
    .AddAxis(IntAxis("batch", "images", {1, 8, 32, 64, 128},
                     "images per call (1..1024); powers of two for the micro-batch analysis"))
    .AddAxis(StringAxis("math", {"fma", "tensor_op"}, {"fma"},
                        "fma: CUDNN_FMA_MATH, float32 without tensor cores (TF32 off); "
                        "tensor_op: CUDNN_TENSOR_OP_MATH, float32 data on TF32 tensor cores"))
    .AddMetric("gflops", "GFLOP/s", "2 N K C R S P Q / time")
    .AddMetric("workspace_bytes", "B",
               "cudnnGetConvolutionForwardWorkspaceSize; two_stage: its R x N x K x P x Q floats")
    .AddMetric("heuristic_rank", "-",
               "1 = cudnnGetConvolutionForwardAlgorithm_v7's first choice (any math type) "
               "among supported algorithms; NaN if it does not list this algorithm")
    .AddMetric("shape_count", "layers",
               "conv layers of the network with this layer's shape if it is the first of "
               "them, 0 for a repeat (sum time x shape_count for a network's total)")
    .AddMetric("network_conv_layers", "layers", "conv layers of the layer's network")
    .Validate(Validate)
    .Headline("gflops")
    .Run(Run);

}  // namespace
}  // namespace dissect::conv_algos
