// The shape of an NCHW activation tensor, shared by the .npy reader, the
// sparsity statistics and the controlled masks.
#ifndef DISSECT_PROBES_SPARSITY_TENSOR_DIMS_H_
#define DISSECT_PROBES_SPARSITY_TENSOR_DIMS_H_

#include <cstdint>

namespace dissect::sparsity {

struct Dims {
  int64_t n = 1, c = 1, h = 1, w = 1;

  int64_t elements() const { return n * c * h * w; }
  int64_t plane() const { return h * w; }
  // NCHW offset of (n, c, h, w).
  int64_t Index(int64_t in, int64_t ic, int64_t ih, int64_t iw) const {
    return ((in * c + ic) * h + ih) * w + iw;
  }
  bool operator==(const Dims& o) const { return n == o.n && c == o.c && h == o.h && w == o.w; }
};

}  // namespace dissect::sparsity

#endif  // DISSECT_PROBES_SPARSITY_TENSOR_DIMS_H_
