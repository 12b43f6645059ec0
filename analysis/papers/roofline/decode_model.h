// The standard time model of one LLM decode step (paper catalog,
// llm_inference_series_5): the arithmetic only, no result files.
//
// One decode step of a batch of B sequences, each with L tokens of context,
// reads every weight of the layers once (the B new tokens share the read)
// and the K and V cache of every sequence once:
//   bytes = weight params × element bytes + 2 × layers × L × hidden × element bytes × B
//   FLOPs = 2 × weight params × B + 4 × layers × B × L × hidden   (attention: QKᵀ and PV)
//   time  = max(bytes / DRAM bandwidth, FLOPs / compute peak)
// Activations (B × hidden per layer) are left out: thousands of times
// smaller than the weights at B <= 64.
#ifndef DISSECT_ANALYSIS_PAPERS_ROOFLINE_DECODE_MODEL_H_
#define DISSECT_ANALYSIS_PAPERS_ROOFLINE_DECODE_MODEL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/papers/roofline/roofline_model.h"

namespace dissect::analysis::papers::roofline {

// A decoder-only transformer with Llama-2's layer: multi-head attention
// (heads × head dim = hidden, K and V as wide as the hidden state) and a
// gated MLP. The defaults are Llama-2-7B in fp16.
struct DecoderShape {
  int64_t hidden = 4096;
  int64_t ffn = 11008;
  int64_t layers = 32;
  int element_bytes = 2;
};

// One linear layer: D (M×N) = X (M×K) · W (K×N), M the tokens of the step.
struct Linear {
  int64_t n = 0, k = 0;
};

// The linear layers of one decoder layer, one entry per weight matrix:
// the fused Q, K, V projection (3·hidden × hidden), the output projection
// (hidden × hidden), the MLP's gate and up projections (ffn × hidden each,
// two entries) and its down projection (hidden × ffn).
std::vector<Linear> LayerLinears(const DecoderShape& shape);

// Weight parameters of the layers' linear layers: layers × Σ N·K
// (Llama-2-7B: 32 × 202 375 168 = 6 476 005 376; the embedding table, the
// LM head and the norms are not counted).
double WeightParams(const DecoderShape& shape);
double WeightBytes(const DecoderShape& shape);  // WeightParams × element bytes

// K and V of every layer for `batch` sequences of `context` tokens:
// 2 × layers × context × hidden × element bytes × batch.
double KvCacheBytes(const DecoderShape& shape, int64_t batch, int64_t context);

double LinearFlops(const DecoderShape& shape, int64_t batch);  // 2 × params × batch
// QKᵀ and PV of one query per sequence: 4 × layers × batch × context × hidden.
double AttentionFlops(const DecoderShape& shape, int64_t batch, int64_t context);

// The modelled step on roofs of `bandwidth_gbps` (GB/s) and
// `compute_tflops` (TFLOP/s).
struct StepModel {
  double bytes = 0, flops = 0;
  double memory_s = 0, compute_s = 0;  // bytes / bandwidth, FLOPs / peak
  double seconds = 0;                  // the larger of the two
  Bound bound = Bound::kMemory;        // compute-bound where compute_s >= memory_s
};
StepModel ModelStep(const DecoderShape& shape, int64_t batch, int64_t context,
                    double bandwidth_gbps, double compute_tflops);

// The smallest batch whose modelled step is compute-bound at `context`, or
// nullopt when none is: every sequence adds its KV cache to the bytes, and
// when its FLOPs per added byte are below the ridge point the step stays
// memory-bound at any batch. nullopt too when a roof is not positive.
std::optional<int64_t> ComputeBoundBatch(const DecoderShape& shape, int64_t context,
                                         double bandwidth_gbps, double compute_tflops);

}  // namespace dissect::analysis::papers::roofline

#endif  // DISSECT_ANALYSIS_PAPERS_ROOFLINE_DECODE_MODEL_H_
