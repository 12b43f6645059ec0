#include "experiments/sparsity/sparsity_rows.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace dissect::sparsity {

std::vector<std::string> ActivationSourceNames() {
  return {kSyntheticWeights, kFatrelu, kNpyDumps};
}

std::vector<std::string> ThresholdChoices() {
  return {"0", "0.01", "0.02", "0.05", "0.1", "0.2", "0.25", "0.3", "0.5", "0.75", "1", "1.5", "2"};
}

std::vector<std::string> DefaultThresholds() { return {"0", "0.05", "0.1", "0.25", "0.5"}; }

absl::StatusOr<float> ParseThreshold(absl::string_view text) {
  float t;
  if (!absl::SimpleAtof(text, &t) || !std::isfinite(t) || t < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("threshold must be a finite decimal >= 0 (got '", text, "')"));
  }
  return t;
}

std::string SkipReason(absl::string_view source, absl::string_view network,
                       absl::string_view npy_network, float threshold, bool has_activations) {
  if (source == kFatrelu) {
    return threshold > 0 ? "" : "fatrelu needs a threshold above 0 (threshold 0 is plain ReLU)";
  }
  if (threshold != 0) return absl::StrCat(source, " runs only at threshold 0");
  if (source == kNpyDumps) {
    if (!has_activations) return "no --activations given";
    if (network != npy_network) return "npy dumps have no network";
  }
  return "";
}

absl::Status CheckLayerName(absl::string_view name) {
  bool ok = !name.empty();
  for (char ch : name) ok &= ch != ';' && !absl::ascii_isspace(static_cast<unsigned char>(ch));
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("layer name '", name, "' must be non-empty, without ';' or spaces"));
}

absl::StatusOr<SparsityRow> MakeRow(const std::vector<LayerCounts>& layers) {
  if (layers.empty()) return absl::InvalidArgumentError("no layers to summarize");
  SparsityRow row;
  row.layers = static_cast<double>(layers.size());
  row.layers_note = "layers=";
  std::map<std::string, std::vector<double>>& v = row.vectors;
  double zeros = 0, elements = 0;
  for (const LayerCounts& layer : layers) {
    const LayerSparsity s = Summarize(layer.counts);
    zeros += static_cast<double>(layer.counts.zeros);
    elements += static_cast<double>(s.elements);
    row.mean_zero_fraction += s.zero_fraction / row.layers;
    absl::StrAppend(&row.layers_note, &layer == &layers.front() ? "" : " ", layer.name);
    v["zero_fraction"].push_back(s.zero_fraction);
    v["warp_zero_fraction"].push_back(s.warp_zero_fraction);
    v["tile_zero_fraction"].push_back(s.tile_zero_fraction);
    v["two_four_fraction"].push_back(s.two_four_fraction);
    v["dead_channel_fraction"].push_back(s.dead_channel_fraction);
    v["channel_min"].push_back(s.channel_min);
    v["channel_median"].push_back(s.channel_median);
    v["channel_max"].push_back(s.channel_max);
    v["channel_offset"].push_back(static_cast<double>(v["channel_sparsity"].size()));
    v["channel_sparsity"].insert(v["channel_sparsity"].end(), s.channel_sparsity.begin(),
                                 s.channel_sparsity.end());
  }
  row.overall_zero_fraction = zeros / elements;
  return row;
}

}  // namespace dissect::sparsity
