// The activation-sparsity section of the report, after "Inducing
// and Exploiting Activation Sparsity for Fast Neural Network Inference"
// (Kurtz et al., 2020): per device, the sparsity of each layer's activations
// and of its channels (activation_sparsity), the sparsity each FATReLU
// threshold gives, the crossover sparsity at which a sparse method beats the
// dense GEMM (sparsity_speed), the 2:4 structured-sparse MMA against the
// dense one (sparse24_gemm) and compressible memory (compressible_bandwidth).
// Contracts of these experiments: analysis/README.md, "Activation sparsity".
//
// The builders turn result files into plain rows (SparsityDevice); the
// renderers turn rows into markdown; figures.cc draws the same rows.

#ifndef DISSECT_ANALYSIS_SECTIONS_SPARSITY_H_
#define DISSECT_ANALYSIS_SECTIONS_SPARSITY_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/format/format.h"
#include "analysis/results/results.h"

namespace dissect::analysis {

// True for the experiments this section reads.
bool IsSparsityExperiment(std::string_view experiment);

// Values that are absent or NaN in the file are nullopt. A point that was not
// measured keeps its row with `note` "skipped: <why>" or "error: <status>".

// One layer of one activation_sparsity pass. Fractions are 0-1.
struct LayerSparsity {
  std::string name;  // from the row's `layers=` note; the index if missing
  std::optional<double> zero, warp_zero, tile_zero, two_four;
  std::optional<double> dead_channels, channel_min, channel_median, channel_max;
  // The layer's slice of `channel_sparsity`, as written (sorted ascending).
  std::vector<double> channels;
};

// One activation_sparsity row: one forward pass (or one folder of dumps).
struct ActivationPass {
  std::string network, source, threshold, batch;
  std::optional<double> layer_count, mean_zero, overall_zero;
  std::vector<LayerSparsity> layers;
  std::string note;
};

// One point of a speedup-vs-sparsity curve (sparsity_speed, sparse24_gemm).
struct SpeedPoint {
  double sparsity_pct = 0;
  std::optional<double> achieved_sparsity;
  std::optional<double> speedup, speedup_min, speedup_max, speedup_spread;
  std::optional<double> kernel_ms;  // the row's real_time (median)
  std::optional<double> end_to_end_ms, end_to_end_max_ms;
  std::optional<double> power_w, max_rel_error, kept_magnitude;
  // sparse24_gemm: the most speedup its load-bound kernel can show.
  std::optional<double> load_bound;
  std::string note;
};

// One sparsity_speed (or sparse24_gemm) method at one shape, structure and
// batch, points ascending by sparsity_pct.
struct SpeedCurve {
  std::string shape, method, structure, batch;
  std::vector<SpeedPoint> points;
};

// One compressible_bandwidth point: ordinary and compressible allocations
// at one zero_pct and size.
struct CompressionRow {
  std::string zero_pct, bytes;
  std::optional<double> ordinary_gbps, compressible_gbps, granted;
  std::vector<std::string> notes;  // "<allocation>: skipped: <why>"
};

struct SparsityDevice {
  std::string title;        // device name, "(<source>)" for imported results
  std::string device_line;  // "<name> · cc 9.0 · 132 SMs"
  std::vector<std::string> paths;
  std::vector<ActivationPass> passes;
  std::vector<SpeedCurve> speed;     // sparsity_speed, first-seen order
  std::vector<SpeedCurve> sparse24;  // sparse24_gemm
  std::vector<CompressionRow> compression;
};

// One SparsityDevice per device (name, compute capability, SM count) and
// source with any of the experiments, in first-seen order.
std::vector<SparsityDevice> BuildSparsity(const std::vector<const ResultFile*>& files);

// The crossover of one speedup curve. Each point is (sparsity %, speedup);
// a point wins when its speedup is > 1 (nullopt: not measured, ignored).
// The crossover is the first SUSTAINED win: the first winning point after
// which every measured point wins (a win followed by a loss, on a noisy or
// non-monotonic curve, does not count). With a losing point before it, the
// crossover is interpolated linearly between the last loss and that first
// win to where the speedup crosses 1; a curve that wins from its first point
// crosses at that point's sparsity (0 % when it starts at 0).
struct CrossoverPoint {
  double sparsity_pct = 0;
  std::optional<double> speedup;
};
struct Crossover {
  std::optional<double> sparsity_pct;  // nullopt: never wins (sustained)
  int first_win = -1;                  // index of the first point of the sustained win, -1 if none
  int last_loss = -1;                  // index of the last losing point, -1 if none
  bool interpolated = false;
  std::optional<double> max_pct;  // the highest measured sparsity
};
Crossover FindCrossover(const std::vector<CrossoverPoint>& points);

// The curve's crossover beyond noise: a point wins when even its slowest
// sample's ratio does (speedup_vs_dense.min > 1).
Crossover NoiseCrossover(const SpeedCurve& curve);
// The nominal crossover: a point wins when its median speedup does.
Crossover NominalCrossover(const SpeedCurve& curve);
// The end-to-end crossover (conversion included) of a curve against the
// dense time `dense_ms` (dense_cublas at sparsity 0, same shape, structure
// and batch): a point wins when dense_ms / end_to_end_ms.max > 1.
Crossover EndToEndCrossover(const SpeedCurve& curve, double dense_ms);

// "37.5 %", "0 %" or "never (up to 99 %)".
std::string CrossoverText(const Crossover& crossover);

// The table builders of the section.
MarkdownTable LayerTable(const ActivationPass& pass);
MarkdownTable ThresholdTable(const std::vector<ActivationPass>& passes);
MarkdownTable CrossoverTable(const std::vector<SpeedCurve>& curves);
MarkdownTable DenseOnZerosTable(const std::vector<SpeedCurve>& curves);
MarkdownTable Sparse24Table(const std::vector<SpeedCurve>& curves);
MarkdownTable CompressionTable(const std::vector<CompressionRow>& rows);

// The dense_cublas curve of the same shape, structure and batch, or null.
const SpeedCurve* DenseCurve(const std::vector<SpeedCurve>& curves, const SpeedCurve& curve);

// Up to `count` layer indices spread evenly over `layers` layers, first and
// last included: the layers whose channel curves are drawn.
std::vector<int> SelectedLayers(int layers, int count);

// "## activation sparsity: <title>" and its tables; ends with a newline.
std::string RenderSparsity(const SparsityDevice& device);

// The sections of every device with sparsity experiments, "" if none.
std::string RenderSparsitySections(const std::vector<ResultFile>& files);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_SPARSITY_H_
