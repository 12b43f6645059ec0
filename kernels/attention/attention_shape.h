// The work and compulsory traffic of one attention launch (kernels/attention):
// FLOPs and bytes from the shape alone. The attention experiment writes them
// into its rows (flops, bytes, arithmetic_intensity), which is where the
// roofline (analysis/papers/roofline) reads them. No CUDA.
#ifndef DISSECT_KERNELS_ATTENTION_ATTENTION_SHAPE_H_
#define DISSECT_KERNELS_ATTENTION_ATTENTION_SHAPE_H_

#include <cstdint>

namespace dissect::attention {

// O[b,h,i,:] = softmax(Q[b,h,i,:] · K[b,h,:,:]^T / sqrt(d)) · V[b,h,:,:].
struct AttentionShape {
  int64_t batch = 1;
  int64_t heads = 32;
  int64_t queries = 1;  // Q rows per head (prefill: the context; decode: 1)
  int64_t keys = 1;     // K and V rows per head (the context)
  int64_t head_dim = 128;
  bool causal = false;  // query i sees keys 0 .. i + (keys - queries)
};

// 4·B·H·Q·K·d (QK^T and PV, a multiply-add = 2 FLOPs each); causal counts
// half of it, as the usual accounting of causal prefill does.
inline double AttentionFlops(const AttentionShape& s) {
  const double full = 4.0 * static_cast<double>(s.batch) * static_cast<double>(s.heads) *
                      static_cast<double>(s.queries) * static_cast<double>(s.keys) *
                      static_cast<double>(s.head_dim);
  return s.causal ? full / 2 : full;
}

// Compulsory bytes: Q, K, V read and O written once, `element_bytes` each
// (fp16: 2).
inline double AttentionBytes(const AttentionShape& s, int element_bytes = 2) {
  const double bh = static_cast<double>(s.batch) * static_cast<double>(s.heads);
  const double d = static_cast<double>(s.head_dim);
  return element_bytes * bh * d *
         (2.0 * static_cast<double>(s.queries) + 2.0 * static_cast<double>(s.keys));
}

}  // namespace dissect::attention

#endif  // DISSECT_KERNELS_ATTENTION_ATTENTION_SHAPE_H_
