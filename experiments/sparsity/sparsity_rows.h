// Host logic of activation_sparsity (no CUDA): which points apply, the
// FATReLU thresholds, and one row's metrics, vectors and notes from the
// per-layer counts.
#ifndef DISSECT_EXPERIMENTS_SPARSITY_SPARSITY_ROWS_H_
#define DISSECT_EXPERIMENTS_SPARSITY_SPARSITY_ROWS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "probes/sparsity/stats.h"

namespace dissect::sparsity {

inline constexpr char kSyntheticWeights[] = "synthetic_weights";
inline constexpr char kFatrelu[] = "fatrelu";
inline constexpr char kNpyDumps[] = "npy_dumps";

// The activation_source values of activation_sparsity, in sweep order.
std::vector<std::string> ActivationSourceNames();
// Every threshold the axis accepts, and those swept by default.
std::vector<std::string> ThresholdChoices();
std::vector<std::string> DefaultThresholds();
// A threshold value: a finite decimal >= 0.
absl::StatusOr<float> ParseThreshold(absl::string_view text);

// Why a point does not apply ("" when it does): synthetic_weights and
// npy_dumps run only at threshold 0 and fatrelu only above it; npy_dumps
// runs at one network value only (`npy_network`, the first the sweep
// visits), with `has_activations` false it does not run at all.
std::string SkipReason(absl::string_view source, absl::string_view network,
                       absl::string_view npy_network, float threshold, bool has_activations);

// A layer name usable in the row's `layers=` note: not empty, no ';' and no
// whitespace.
absl::Status CheckLayerName(absl::string_view name);

struct LayerCounts {
  std::string name;
  SparsityCounts counts;
};

struct SparsityRow {
  double layers = 0;
  double mean_zero_fraction = 0;
  double overall_zero_fraction = 0;
  // zero_fraction, warp_zero_fraction, tile_zero_fraction, two_four_fraction,
  // dead_channel_fraction, channel_min, channel_median, channel_max (one
  // value per layer), channel_sparsity (each layer's sorted per-channel
  // zero fractions, concatenated) and channel_offset (layer l's first index
  // in channel_sparsity).
  std::map<std::string, std::vector<double>> vectors;
  // "layers=<name> <name> ...".
  std::string layers_note;
};

// InvalidArgument for no layers.
absl::StatusOr<SparsityRow> MakeRow(const std::vector<LayerCounts>& layers);

}  // namespace dissect::sparsity

#endif  // DISSECT_EXPERIMENTS_SPARSITY_SPARSITY_ROWS_H_
