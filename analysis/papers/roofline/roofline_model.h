// The roofline model of the LLM roofline (paper catalog, yuan_2024): the
// arithmetic only, no result files. Units: FLOP, bytes, TFLOP/s, GB/s;
// arithmetic intensity (AI) in FLOP/B.
//   ridge point = compute / bandwidth                 (FLOP/B)
//   attainable(AI) = min(compute, AI × bandwidth)     (TFLOP/s)
// An operator left of the ridge is memory-bound, right of it compute-bound.
#ifndef DISSECT_ANALYSIS_PAPERS_ROOFLINE_ROOFLINE_MODEL_H_
#define DISSECT_ANALYSIS_PAPERS_ROOFLINE_ROOFLINE_MODEL_H_

#include <cstdint>
#include <string>

namespace dissect::analysis::papers::roofline {

// D (M×N) = A (M×K) · B (K×N), every operand `element_bytes` wide, each
// read or written once (the compulsory traffic).
double GemmFlops(int64_t m, int64_t n, int64_t k);  // 2·M·N·K
double GemmBytes(int64_t m, int64_t n, int64_t k, int element_bytes);
// 2MNK / (elem·(MK + KN + MN)); a GEMV is the same with M small.
double GemmIntensity(int64_t m, int64_t n, int64_t k, int element_bytes);

// FLOP/B where the two roofs meet; 0 if either ceiling is not positive.
double RidgePoint(double compute_tflops, double bandwidth_gbps);

// TFLOP/s the roofline allows at `intensity`.
double Attainable(double intensity, double compute_tflops, double bandwidth_gbps);

enum class Bound { kMemory, kCompute };
// Memory-bound strictly left of the ridge, compute-bound at or right of it.
Bound BoundAt(double intensity, double compute_tflops, double bandwidth_gbps);
std::string BoundName(Bound bound);  // "memory", "compute"

// Peak FP32 FMA rate computed from device attributes (not measured):
// SMs × FP32 lanes per SM × 2 FLOP × clock. 0 if any input is not positive.
double Fp32FmaPeakTflops(int sm_count, int fp32_lanes_per_sm, double clock_mhz);

// FP32 lanes per SM of a compute capability ("9.0" -> 128), from NVIDIA's
// CUDA C++ Programming Guide table of arithmetic instruction throughput;
// 0 for one we do not list.
int Fp32LanesPerSm(const std::string& compute_capability);

}  // namespace dissect::analysis::papers::roofline

#endif  // DISSECT_ANALYSIS_PAPERS_ROOFLINE_ROOFLINE_MODEL_H_
