// How conv_algorithms checks a cuDNN output and which math it may claim, as
// host code (no CUDA calls, no cuDNN library), so that tests can run the
// check on emulated results: the periodic input and weight patterns, the
// sampled output positions, the per-math tolerances and the guard that
// refuses a row whose math type is not the one asked for.
#ifndef DISSECT_EXPERIMENTS_CONV_ALGOS_CONV_CHECK_H_
#define DISSECT_EXPERIMENTS_CONV_ALGOS_CONV_CHECK_H_

#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/conv_algos/conv_layers.h"
#include "experiments/workloads/forward/network.h"

namespace dissect::conv_algos {

// Input and weights repeat a pseudo-random pattern of this many values (made
// on the host once, tiled on the device), so that the CPU reference can read
// any input value without copying the input back.
inline constexpr size_t kPatternElements = size_t{1} << 20;
inline constexpr uint64_t kPatternSeed = 16;

// Output positions checked against the CPU reference.
inline constexpr int kCheckedOutputs = 256;

// The check, at every sampled position: math=fma
//   |gpu - cpu| <= kFmaTolerance * sqrt(sum (x w)^2),
// math=tensor_op
//   |gpu - cpu| <= kTf32Tolerance * sum |x w|,
// over the output's c*r*s products (ReferenceValue's norm and magnitude).
//
// math=fma must reject a TF32 result, or a row run on tensor cores (a
// library default, NVIDIA_TF32_OVERRIDE) would be reported as FP32 FMA.
// TF32 rounds both inputs of every product to 10 mantissa bits (RNE, up to
// 2^-11 each) with random signs, so its sum errs by about
// 2^-11 sqrt(2/3) = 4e-4 of sqrt(sum (x w)^2) at every layer shape: the
// reason for that scale. The old fma tolerance, 1e-3 of sum |x w|, passed
// TF32 at every point (sum |x w| is ~0.8 sqrt(c r s) times larger).
// conv_check_test emulates both sides on every distinct conv shape of the
// built-in networks at the default batches (515 points of 256 sampled
// outputs, the experiment's own patterns and positions), in units of
// sqrt(sum (x w)^2):
//   FP32 summed in other orders (fmaf forward, reversed, blocks of 32, 8
//   interleaved accumulators; output rounded to float): at most 9.0e-6 at
//   any sample; FP32 Winograd F(4x4, 3x3) on the 3x3 stride-1 layers at
//   batch 8 (5120 samples): at most 3.1e-5.
//   TF32 (inputs RNE-rounded, products summed in double or float; inputs
//   truncated instead would err more): the largest error of a point's
//   samples is at least 6.7e-4 at every point.
//   One sample alone can be near 0 (random signs; the smallest was 1e-9),
//   so the check rejects a point on its worst sample.
// 1.5e-4 sits 4.5x under that TF32 floor, 17x over the reorderings and 5x
// over the emulated Winograd, leaving room for FFT rounding, which is not
// emulated. Were an FP32 FFT row to fail here on a GPU, the error message
// gives its size; do not loosen past the TF32 floor. cuDNN's own Winograd
// kernels err more than this emulation (tile and evaluation order unknown):
// they get a factor of their own (ErrorGrowth below).
inline constexpr double kFmaTolerance = 1.5e-4;
// math=tensor_op runs TF32 by design: the check only catches a wrong result
// (a missed or doubled product, an unwritten output, which starts as NaN).
inline constexpr double kTf32Tolerance = 4e-3;

// kPatternElements standard normal values NormalAt(kPatternSeed, stream, i)
// times `scale`, as float; the unit values of each stream are made once per
// process.
std::vector<float> Pattern(uint64_t stream, double scale);
// The input pattern, and layer `l`'s weight pattern (He scale
// sqrt(2 / (c r s))).
std::vector<float> InputPattern();
std::vector<float> WeightPattern(const forward::LayerSpec& l);

// The i-th (0 <= i < kCheckedOutputs) checked output of a `batch`-image
// call: its NKPQ index and coordinates, spread over the whole output.
struct OutputPosition {
  size_t index = 0;
  int n = 0;
  int k = 0;
  int p = 0;
  int q = 0;
};
OutputPosition CheckedOutput(const forward::LayerSpec& l, int batch, int i);

// Winograd's transforms amplify rounding (Barabasz, Anderson, Soodhalter &
// Gregg, "Error analysis and improving the accuracy of Winograd convolution
// for deep neural networks", ACM TOMS 46(4), 2020, arXiv:1803.10986): its
// FP32 error is larger than a direct or GEMM convolution's and grows with
// the tile, as their bound grows with the norms of the transforms A^T, G
// and B^T. The H100 showed it: cuDNN's winograd_nonfused on the 5x5
// alexnet.features.3 erred 8.2e-4 of sqrt(sum (x w)^2), 5.4x kFmaTolerance.
// WinogradGrowth(m, r) is our estimate of that amplification (a random-sign
// reading of their analysis, not their worst-case bound, which is far
// looser) for F(m x m, r x r) with the usual points (0, 1, -1, 2, -2, 1/2, -1/2 and infinity, the first m+r-2;
// Lavin & Gray 2016): each transform-domain value j of the elementwise
// product is (G_j g)(B^T_j d), of size |G_j| |B^T_j| for unit random g and
// d (row 2-norms), and its rounding reaches output o weighted by A^T[o][j].
// In one dimension, with random signs,
//   growth_1(m, r) = max_o sqrt(sum_j A^T[o][j]^2 |G_j|^2 |B^T_j|^2) / sqrt(r),
// 1 for a direct convolution (A^T, G, B^T identities over r products); the
// 2D transform is the Kronecker square, so WinogradGrowth = growth_1^2.
// Independent of how the points' scale is split among A^T, G and B^T.
//   F(2x2,3x3) 1.67, F(4x4,3x3) 31.4, F(6x6,3x3) 46.3,
//   F(2x2,5x5) 19.8, F(4x4,5x5) 29.8 (conv_check_test pins them).
double WinogradGrowth(int m, int r);

// The factor on the fma bound for cuDNN algorithm `algo` on layer `l`: 1,
// but for winograd and winograd_nonfused on an r x r stride-1 filter
// WinogradGrowth of the largest tile cuDNN may use for it. cuDNN does not
// document its tiles; we take input tiles up to 8x8 (F(6x6,3x3), and for
// winograd_nonfused's 5x5 filters F(4x4,5x5)), the largest the growth
// allows: growth rises with the tile. FFT (fft, fft_tiling) keeps 1: its
// transforms are orthogonal up to scale, their rounding grows with
// log(size) (not exponentially), and every FFT row of the H100 run passed;
// the factor is for the algorithm whose rounding is shown to exceed it.
// The price: under a Winograd factor (31-46) TF32 (4e-4 to 7e-4 of
// sqrt(sum (x w)^2)) passes too, so on those rows only the math guard
// (MathMismatch) says the math was FP32.
double ErrorGrowth(cudnnConvolutionFwdAlgo_t algo, const forward::LayerSpec& l);

// The largest |gpu - cpu| the check allows for an output of `ref` under
// `math`: kFmaTolerance * growth for CUDNN_FMA_MATH (growth: ErrorGrowth,
// 1 for a direct/GEMM sum), kTf32Tolerance otherwise (it already allows far
// more than any rounding: a sanity check).
double AllowedError(const ReferenceValue& ref, cudnnMathType_t math, double growth = 1);
// |value - ref.value| <= AllowedError(ref, math, growth); NaN fails.
bool PassesCheck(double value, const ReferenceValue& ref, cudnnMathType_t math,
                 double growth = 1);

// "fma", "tensor_op", "default", "tensor_op_allow_conversion".
std::string MathTypeName(cudnnMathType_t math);

// Why a row that asked for `requested` math must not be reported as that
// math, or "" when it may. `read_back` is cudnnGetConvolutionMathType after
// the set (nullopt: the library lacks it, so nothing confirms the math);
// `tf32_override` is $NVIDIA_TF32_OVERRIDE (nullptr: unset). NVIDIA defines
// only "0" (no library uses TF32): it keeps fma rows FP32 and turns
// tensor_op rows into FP32; any other value is reserved, so neither math is
// assured.
std::string MathMismatch(cudnnMathType_t requested, std::optional<cudnnMathType_t> read_back,
                         const char* tf32_override);

}  // namespace dissect::conv_algos

#endif  // DISSECT_EXPERIMENTS_CONV_ALGOS_CONV_CHECK_H_
