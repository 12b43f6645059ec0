// Question: how much of each input type's peak does a library GEMM
//           (cuBLASLt, its heuristic's first algorithm) reach, and for which
//           shapes do the tensor cores idle: large squares, M = 1 … 4096 at
//           N = K = 4096, dimensions one off a multiple of 16, tall-skinny
//           and small-K problems; FP32 (CUDA cores), TF32, FP16, BF16, FP8
//           (e4m3 → bf16; default and fast accumulation) and INT8 (→ s32)?
// Timed:    CUDA events around cublasLtMatmul (D = A·B, TN layout, operands
//           filled with positive random values of the type), per sample:
//           hot, back to back, with problems under 2^32 FLOP (256³, 512³,
//           small M) launched several times between one pair of events
//           and the time divided by the launches (GemmLaunchesPerSample;
//           the row's launches_per_sample); cold, one launch after the
//           harness's L2 flush. Before timing, one result is
//           spot-checked on the host: the corners and 28 more elements
//           against CPU dot products of their row and column (exact for
//           INT8). Run with the harness's tensor-pipe counter flag for the
//           tensor-pipe active %.
// Expected: large squares near the dense peak for every type (FP32 near
//           the FFMA peak), cold about as fast as hot; small M far below it
//           (the tensor cores idle), and hot faster than cold there: at
//           N = K = 4096 and M ≤ 1024, fp16's A, B and D (at most 48 MiB)
//           fit in the 50 MiB L2 of an H100, so hot runs read them from L2
//           (GB/s can exceed the DRAM peak); fp8_fast_accum at least as
//           fast as fp8; off-by-one shapes slower than their aligned
//           neighbours, or skipped where cuBLASLt has no kernel (FP8, INT8).
// Could be confused with: host time inside the event pair, for the short
//           problems: //probes:event_timer_test (guard, launches per sample)
//           and //experiments/tensor:lt_gemm_test (GemmLaunchesPerSample:
//           problems under 2^32 FLOP get several launches per pair). FP8's
//           slow-accumulation path for the fast one: lt_gemm_test
//           (CreateMatmulDescTest). Zeros or constants for random data, and
//           a wrong result: lt_gemm_test (fill formats give positive values
//           with mantissa bits; the spot check rejects wrong elements, INT8
//           exactly). L2 for DRAM: hot rows that fit in L2 read from it, so
//           bandwidth_gbps is not a DRAM figure there; no row prints a % of DRAM peak.
//           Not yet ruled out by a test: tensor cores for the FP32 rows (or
//           CUDA cores for the tensor types): the algorithm is cuBLASLt's,
//           and only the tensor-pipe counter flag shows which pipe ran.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "experiments/framework/experiment.h"
#include "experiments/tensor/lt_gemm.h"
#include "kernels/tensor/fill.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

namespace dissect {
namespace {

// Elements checked on the host per point.
constexpr int kSpotChecks = 32;

// The default sweep, by family (the analysis recognises them by shape).
std::vector<std::string> DefaultShapes() {
  std::vector<std::string> shapes;
  for (int s : {256, 512, 1024, 2048, 4096, 8192}) {
    shapes.push_back(absl::StrCat(s, "x", s, "x", s));
  }
  for (int m = 1; m <= 2048; m *= 2) shapes.push_back(absl::StrCat(m, "x4096x4096"));
  for (const char* s : {"4095x4096x4096", "4096x4095x4096", "4096x4096x4095", "4097x4097x4097",
                        "1023x1024x1024", "1000x1000x1000"}) {
    shapes.push_back(s);
  }
  for (const char* s :
       {"16384x16x16384", "16384x64x16384", "16384x256x16384", "64x64x65536", "4096x4096x64"}) {
    shapes.push_back(s);
  }
  return shapes;
}

// FC layers as GEMMs (the paper catalog's ParaDnn heatmap,
// configs/papers): M = batch, N = K = layer width; our grid, not ParaDnn's.
std::vector<std::string> FcShapes() {
  std::vector<std::string> shapes;
  for (int batch = 1; batch <= 16384; batch *= 2) {
    for (int width = 256; width <= 8192; width *= 2) {
      shapes.push_back(absl::StrCat(batch, "x", width, "x", width));
    }
  }
  return shapes;
}

// Llama-2-7B's linear layers (hidden 4096, FFN 11008; fused QKV 12288) as
// GEMMs, M = tokens: prefill at 128..8192 tokens, decode at batch 1..64
// (the paper catalog's LLM roofline, configs/papers).
std::vector<std::string> LlmShapes() {
  std::vector<std::string> shapes;
  const int kNk[][2] = {{12288, 4096}, {4096, 4096}, {11008, 4096}, {4096, 11008}};
  for (int m : {1, 2, 4, 8, 16, 32, 64, 128, 512, 2048, 8192}) {
    for (const auto& nk : kNk) shapes.push_back(absl::StrCat(m, "x", nk[0], "x", nk[1]));
  }
  return shapes;
}

// Everything a --axis=shape override may name: the default sweep, the
// large squares that do not fit the reference run's budget, and the FC and
// LLM families.
std::vector<std::string> ShapeChoices() {
  std::vector<std::string> shapes = DefaultShapes();
  shapes.push_back("16384x16384x16384");
  for (int m : {3, 5, 7, 9, 15, 17, 31, 33, 100, 1000, 3000}) {
    shapes.push_back(absl::StrCat(m, "x4096x4096"));
  }
  for (const std::vector<std::string>& family : {FcShapes(), LlmShapes()}) {
    for (const std::string& s : family) {
      if (std::find(shapes.begin(), shapes.end(), s) == shapes.end()) shapes.push_back(s);
    }
  }
  return shapes;
}

std::vector<std::string> DtypeNames() {
  std::vector<std::string> names;
  for (const GemmDtypeInfo& d : GemmDtypes()) names.push_back(d.name);
  return names;
}

absl::Status Run(PointContext& ctx) {
  const GemmDtypeInfo& dtype = *FindGemmDtype(ctx.Str("dtype"));
  DISSECT_ASSIGN_OR_RETURN(const GemmDims dims, ParseGemmDims(ctx.Str("shape")));
  const bool random = ctx.Str("data") == "random";
  const int arch = ctx.device().cc_major * 10 + ctx.device().cc_minor;
  const int min_arch = dtype.dtype == GemmDtype::kFp8 ? 89 : 80;
  if (dtype.dtype != GemmDtype::kFp32 && arch < min_arch) {
    return Skipped(absl::StrCat(dtype.name, " tensor-core GEMM needs sm_", min_arch,
                                " or later; this GPU is sm_", arch));
  }
  const size_t a_bytes = static_cast<size_t>(dims.k) * dims.m * dtype.input_bytes;
  const size_t b_bytes = static_cast<size_t>(dims.k) * dims.n * dtype.input_bytes;
  const size_t d_bytes = static_cast<size_t>(dims.m) * dims.n * dtype.output_bytes;
  size_t free_bytes = 0, total_bytes = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (a_bytes + b_bytes + d_bytes + (size_t{64} << 20) > free_bytes) {
    return Skipped(absl::StrCat("needs ", (a_bytes + b_bytes + d_bytes) >> 20, " MiB, ",
                                free_bytes >> 20, " MiB free"));
  }
  DISSECT_ASSIGN_OR_RETURN(auto a, DeviceBuffer<uint8_t>::Allocate(a_bytes));
  DISSECT_ASSIGN_OR_RETURN(auto b, DeviceBuffer<uint8_t>::Allocate(b_bytes));
  DISSECT_ASSIGN_OR_RETURN(auto d, DeviceBuffer<uint8_t>::Allocate(d_bytes));
  if (random) {
    DISSECT_CUDA_RETURN_IF_ERROR(
        LaunchFillOperand(a.get(), a_bytes / dtype.input_bytes, dtype.fill, 1, ctx.stream()));
    DISSECT_CUDA_RETURN_IF_ERROR(
        LaunchFillOperand(b.get(), b_bytes / dtype.input_bytes, dtype.fill, 2, ctx.stream()));
  } else {
    DISSECT_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(a.get(), 0, a_bytes, ctx.stream()));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(b.get(), 0, b_bytes, ctx.stream()));
  }
  // A result that is never written must not pass the check by chance.
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(d.get(), 0xff, d_bytes, ctx.stream()));
  absl::StatusOr<LtGemm> gemm = LtGemm::Create(dtype, dims, a.get(), b.get(), d.get());
  if (absl::IsNotFound(gemm.status())) return Skipped(gemm.status().message());
  if (!gemm.ok()) return gemm.status();

  DISSECT_RETURN_IF_ERROR(LtStatus(gemm->Run(ctx.stream()), "cublasLtMatmul"));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(ctx.stream()));
  DISSECT_RETURN_IF_ERROR(SpotCheckGemm(dtype, dims, a.get(), b.get(), d.get(), kSpotChecks));

  cublasStatus_t lt_status = CUBLAS_STATUS_SUCCESS;
  DISSECT_ASSIGN_OR_RETURN(const CacheState cache, ParseCacheState(ctx.Str("cache")));
  absl::StatusOr<std::vector<double>> ms = ctx.TimeKernel(
      [&](cudaStream_t stream) {
        lt_status = gemm->Run(stream);
        return lt_status == CUBLAS_STATUS_SUCCESS ? cudaGetLastError() : cudaErrorUnknown;
      },
      cache, GemmLaunchesPerSample(dims));
  DISSECT_RETURN_IF_ERROR(LtStatus(lt_status, "cublasLtMatmul"));
  if (!ms.ok()) return ms.status();
  const double flops = 2.0 * dims.m * dims.n * dims.k;
  const double bytes = static_cast<double>(a_bytes + b_bytes + d_bytes);
  std::vector<double> tflops, gbps;
  for (double t : *ms) {
    tflops.push_back(flops / (t * 1e-3) / 1e12);
    gbps.push_back(bytes / (t * 1e-3) / 1e9);
  }
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("tflops", std::move(tflops)));
  return ctx.AddSamples("bandwidth_gbps", std::move(gbps));
}

DISSECT_EXPERIMENT(cublaslt_gemm)
    .Question(
        "How much of each input type's peak does cuBLASLt reach, and for which GEMM "
        "shapes do the tensor cores idle?")
    .AddAxis(StringAxis("dtype", DtypeNames(), {},
                        "fp32 (CUDA cores), tf32, fp16, bf16 (f32 accumulation), fp8 (e4m3 "
                        "in, bf16 out, cuBLASLt's default accumulation), fp8_fast_accum (the "
                        "same with CUBLASLT_MATMUL_DESC_FAST_ACCUM), int8 (s32 out)"))
    .AddAxis(StringAxis("shape", ShapeChoices(), DefaultShapes(),
                        "MxNxK of D (M×N) = A (M×K) · B (K×N); default: squares, M sweep at "
                        "N = K = 4096, off-by-one, tall-skinny and small K"))
    .AddAxis(StringAxis("cache", {"hot", "cold"}, {"hot", "cold"},
                        "hot: back to back (operands that fit stay in L2); cold: L2 flushed "
                        "before each sample"))
    .AddAxis(StringAxis("data", {"random", "zeros"}, {"random"},
                        "operands: positive random values of the type, or zeros"))
    .AddMetric("tflops", "TFLOP/s", "2·M·N·K / event time per launch (int8: TOP/s)")
    .AddMetric("bandwidth_gbps", "GB/s",
               "bytes of A, B and D once each / event time (cold: the least DRAM traffic; "
               "hot: operands that fit in L2 are read from it, so this can exceed the DRAM "
               "peak)")
    .Headline("tflops")
    .Run(Run);

}  // namespace
}  // namespace dissect
