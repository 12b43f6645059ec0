// Reading activation dumps saved with numpy.save (.npy, format versions 1.0,
// 2.0 and 3.0) into float32 NCHW tensors.
//
// Accepted: C order (fortran_order False), little-endian element types
//   '<f4' float32, '<f2' float16, and bfloat16: NumPy has no bfloat16, so a
//   file holds it either with the descr 'bfloat16' (accepted as is) or, as
//   numpy.save writes an ml_dtypes/jax bfloat16 array, as 2-byte raw void
//   ('<V2' or '|V2'), which is read as bfloat16 only when asked
//   (NpyOptions::void2_as_bfloat16, the experiments' --activation_dtype=
//   bfloat16), since the bytes could be anything;
// shapes of 4 dimensions in NCHW or NHWC order (NpyOptions::layout) or of 2
// (N x features, read as N x C x 1 x 1). Every error names the file.
//
// A folder of dumps holds one layer per .npy file, the layer named by the
// file's stem; layers are ordered by a natural sort of the names (digit runs
// compare as numbers: layer9 < layer10), other files are ignored.
#ifndef DISSECT_EXPERIMENTS_WORKLOADS_INPUTS_NPY_H_
#define DISSECT_EXPERIMENTS_WORKLOADS_INPUTS_NPY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "probes/sparsity/tensor_dims.h"

namespace dissect::sparsity {

enum class Layout { kNchw, kNhwc };
// "NCHW" or "NHWC".
absl::StatusOr<Layout> ParseLayout(absl::string_view name);

struct NpyOptions {
  Layout layout = Layout::kNchw;
  bool void2_as_bfloat16 = false;
};

enum class NpyDtype { kFloat32, kFloat16, kBfloat16 };

// What a .npy header says, checked against the file's size.
struct NpyHeader {
  NpyDtype dtype = NpyDtype::kFloat32;
  // As stored: 4 dimensions, or 2.
  std::vector<int64_t> shape;
  // The tensor's NCHW dimensions under the options' layout.
  Dims dims;
  size_t data_offset = 0;
};

// Parses the header of the .npy bytes `file` (the first bytes, at least up to
// the end of the header; `file_size` the whole file's) named `name` in errors.
absl::StatusOr<NpyHeader> ParseNpyHeader(absl::string_view file, uint64_t file_size,
                                         absl::string_view name, const NpyOptions& options);

// The whole file's bytes to a float32 NCHW tensor.
absl::StatusOr<std::vector<float>> DecodeNpy(absl::string_view file, absl::string_view name,
                                             const NpyOptions& options, NpyHeader* header);

struct NpyFile {
  std::string path;
  // The file's stem.
  std::string layer;
};

// `path` itself when it is a file, else the folder's *.npy files in natural
// order. NotFound for a missing path or a folder without .npy files.
absl::StatusOr<std::vector<NpyFile>> ListNpyFiles(const std::string& path);

// Reads and checks only a file's header (cheap: for validating input).
absl::StatusOr<NpyHeader> ReadNpyHeader(const std::string& path, const NpyOptions& options);

struct Activation {
  Dims dims;
  std::vector<float> nchw;
};

absl::StatusOr<Activation> ReadNpy(const std::string& path, const NpyOptions& options);

// Natural order: runs of digits compare by value, the rest byte by byte.
bool NaturalLess(absl::string_view a, absl::string_view b);

}  // namespace dissect::sparsity

#endif  // DISSECT_EXPERIMENTS_WORKLOADS_INPUTS_NPY_H_
