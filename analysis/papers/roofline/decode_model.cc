#include "analysis/papers/roofline/decode_model.h"

#include <algorithm>
#include <cmath>

namespace dissect::analysis::papers::roofline {

std::vector<Linear> LayerLinears(const DecoderShape& shape) {
  const int64_t h = shape.hidden, f = shape.ffn;
  return {{3 * h, h}, {h, h}, {f, h}, {f, h}, {h, f}};
}

double WeightParams(const DecoderShape& shape) {
  double per_layer = 0;
  for (const Linear& l : LayerLinears(shape)) {
    per_layer += static_cast<double>(l.n) * static_cast<double>(l.k);
  }
  return static_cast<double>(shape.layers) * per_layer;
}

double WeightBytes(const DecoderShape& shape) { return WeightParams(shape) * shape.element_bytes; }

double KvCacheBytes(const DecoderShape& shape, int64_t batch, int64_t context) {
  return 2.0 * static_cast<double>(shape.layers) * static_cast<double>(context) *
         static_cast<double>(shape.hidden) * shape.element_bytes * static_cast<double>(batch);
}

double LinearFlops(const DecoderShape& shape, int64_t batch) {
  return 2.0 * WeightParams(shape) * static_cast<double>(batch);
}

double AttentionFlops(const DecoderShape& shape, int64_t batch, int64_t context) {
  return 4.0 * static_cast<double>(shape.layers) * static_cast<double>(batch) *
         static_cast<double>(context) * static_cast<double>(shape.hidden);
}

StepModel ModelStep(const DecoderShape& shape, int64_t batch, int64_t context,
                    double bandwidth_gbps, double compute_tflops) {
  StepModel m;
  m.bytes = WeightBytes(shape) + KvCacheBytes(shape, batch, context);
  m.flops = LinearFlops(shape, batch) + AttentionFlops(shape, batch, context);
  m.memory_s = bandwidth_gbps > 0 ? m.bytes / (bandwidth_gbps * 1e9) : 0;
  m.compute_s = compute_tflops > 0 ? m.flops / (compute_tflops * 1e12) : 0;
  m.seconds = std::max(m.memory_s, m.compute_s);
  m.bound = m.compute_s >= m.memory_s ? Bound::kCompute : Bound::kMemory;
  return m;
}

std::optional<int64_t> ComputeBoundBatch(const DecoderShape& shape, int64_t context,
                                         double bandwidth_gbps, double compute_tflops) {
  if (!(bandwidth_gbps > 0) || !(compute_tflops > 0)) return std::nullopt;
  // compute_s - memory_s = batch × per_sequence - weights_s: linear in batch.
  const double weights_s = WeightBytes(shape) / (bandwidth_gbps * 1e9);
  const double per_sequence =
      (LinearFlops(shape, 1) + AttentionFlops(shape, 1, context)) / (compute_tflops * 1e12) -
      KvCacheBytes(shape, 1, context) / (bandwidth_gbps * 1e9);
  if (!(per_sequence > 0)) return std::nullopt;
  const double estimate = std::ceil(weights_s / per_sequence);
  if (!(estimate < 1e15)) return std::nullopt;
  int64_t batch = std::max<int64_t>(1, static_cast<int64_t>(estimate));
  // Rounding can leave the estimate one off; the model itself decides.
  auto compute_bound = [&](int64_t b) {
    return ModelStep(shape, b, context, bandwidth_gbps, compute_tflops).bound == Bound::kCompute;
  };
  while (!compute_bound(batch)) ++batch;
  while (batch > 1 && compute_bound(batch - 1)) --batch;
  return batch;
}

}  // namespace dissect::analysis::papers::roofline
