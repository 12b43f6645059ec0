#include "analysis/papers/roofline/roofline_model.h"

#include <algorithm>

namespace dissect::analysis::papers::roofline {

double GemmFlops(int64_t m, int64_t n, int64_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

double GemmBytes(int64_t m, int64_t n, int64_t k, int element_bytes) {
  const double dm = static_cast<double>(m), dn = static_cast<double>(n),
               dk = static_cast<double>(k);
  return element_bytes * (dm * dk + dk * dn + dm * dn);
}

double GemmIntensity(int64_t m, int64_t n, int64_t k, int element_bytes) {
  const double bytes = GemmBytes(m, n, k, element_bytes);
  return bytes > 0 ? GemmFlops(m, n, k) / bytes : 0;
}

double RidgePoint(double compute_tflops, double bandwidth_gbps) {
  if (!(compute_tflops > 0) || !(bandwidth_gbps > 0)) return 0;
  return compute_tflops * 1e12 / (bandwidth_gbps * 1e9);
}

double Attainable(double intensity, double compute_tflops, double bandwidth_gbps) {
  return std::min(compute_tflops, intensity * bandwidth_gbps * 1e9 / 1e12);
}

Bound BoundAt(double intensity, double compute_tflops, double bandwidth_gbps) {
  return intensity < RidgePoint(compute_tflops, bandwidth_gbps) ? Bound::kMemory : Bound::kCompute;
}

std::string BoundName(Bound bound) { return bound == Bound::kMemory ? "memory" : "compute"; }

double Fp32FmaPeakTflops(int sm_count, int fp32_lanes_per_sm, double clock_mhz) {
  if (sm_count <= 0 || fp32_lanes_per_sm <= 0 || !(clock_mhz > 0)) return 0;
  return 2.0 * sm_count * fp32_lanes_per_sm * clock_mhz * 1e6 / 1e12;
}

int Fp32LanesPerSm(const std::string& compute_capability) {
  // Results per clock per SM of 32-bit floating-point fused multiply-add.
  if (compute_capability == "7.0" || compute_capability == "7.2" || compute_capability == "7.5" ||
      compute_capability == "8.0") {
    return 64;
  }
  if (compute_capability == "8.6" || compute_capability == "8.7" || compute_capability == "8.9" ||
      compute_capability == "9.0" || compute_capability == "10.0" || compute_capability == "12.0") {
    return 128;
  }
  return 0;
}

}  // namespace dissect::analysis::papers::roofline
