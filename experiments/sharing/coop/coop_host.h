// Host logic of the cluster_coop experiment (no CUDA calls): which layers
// each cooperative kernel runs, its shape, the checks of a point, the
// shared memory that gives each block an SM, and the speedup over the layer
// kernel from two rows' samples.
#ifndef DISSECT_EXPERIMENTS_SHARING_COOP_COOP_HOST_H_
#define DISSECT_EXPERIMENTS_SHARING_COOP_COOP_HOST_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "experiments/framework/experiment.h"
#include "experiments/sharing/cluster_support.h"
#include "experiments/workloads/layers/layer_config.h"
#include "kernels/coop/coop.h"
#include "kernels/layers/layers.h"
#include "probes/duplication/line_bitmap.h"

namespace dissect::coop {

// Values of the `kernel` axis: "conv3x3", "gemv".
std::vector<std::string> CoopKernelNames();
absl::StatusOr<CoopKernel> ParseCoopKernel(absl::string_view name);
// The kernels/layers kernel that computes the same outputs (kConv, kGemv).
layers::LayerKernel LayerKernelOf(CoopKernel kernel);

// Values of the `variant` axis.
inline constexpr char kVariantLayer[] = "layer";  // kernels/layers' default build
inline constexpr char kVariantTiled[] = "tiled";  // coop.cu, no cluster
inline constexpr char kVariantCoop[] = "coop";    // coop.cu, clusters sharing a tile
std::vector<std::string> VariantNames();

// Why `kernel` cannot run `layer`, or "" when it can: conv3x3 needs a conv
// layer with a 3 x 3 window, stride 1 and padding 1; gemv a fc layer.
std::string NotApplicable(CoopKernel kernel, const l1_bypass::LayerShape& layer);

// The cooperative kernel's shape for the layer kernels' shape of the same
// layer (l1_bypass::MakeWorkload): conv N, C, H, W, K; gemv N, C, K.
CoopDims CoopDimsOf(const layers::LayerDims& dims);

// Checks of a point before anything runs: batch in 1..kMaxBatch, a
// cluster_size that is a power of two >= 1 (sizes above what the device
// allows are skipped when the point runs). InvalidArgument otherwise.
inline constexpr int64_t kMaxBatch = 1024;
absl::Status ValidatePoint(int64_t batch, int64_t cluster_size);

// Skipped("<variant> does not use clusters") for layer and tiled at a
// cluster size other than 1; OK otherwise.
absl::Status CheckVariantClusterSize(absl::string_view variant, int64_t cluster_size);

// The static shared memory of `kernel`'s flavours (kernels/coop/
// coop_tiling.h; coop.cu asserts its arrays match).
int64_t CoopStaticSharedBytes(CoopKernel kernel);

// Dynamic shared memory of a tiled or coop launch on an SM with `sm`'s
// limits (sm.kernel_static: the flavour's static shared memory), so that
// no two blocks share an SM: 256-thread blocks with only their static
// shared memory fit four or five to an H100 SM (registers decide, then
// threads), and ranks of one cluster could then share an SM and their tile
// "through DSM" without leaving it. Tiled
// gets the same padding so that coop and tiled differ in the staging
// alone. FailedPrecondition where no padding can keep blocks apart.
absl::StatusOr<size_t> CoopLaunchSharedBytes(const SmSharedMemory& sm);

// Of a launch in clusters of `cluster_size` blocks along x (grid.x a
// multiple of it, so that linear block indices b with the same
// b / cluster_size form one cluster), the fraction of blocks that ran on
// the same SM as another block of their cluster: their tile is shared
// without leaving the SM. block_sm[b] is the %smid of linear block
// b = x + grid.x * (y + grid.y * z). 0 for a cluster size of 1;
// InvalidArgument for no blocks, a size that does not divide them or a
// block that recorded no SM (a negative entry).
absl::StatusOr<double> ClusterSameSmFraction(const std::vector<int>& block_sm, int cluster_size);

// The layer kernel's time over this row's: the ratio of the medians, and
// its spread (hi - lo) / ratio where lo = layer min / row max and hi =
// layer max / row min. InvalidArgument for no samples or a sample <= 0.
struct Speedup {
  double ratio = 0;
  double spread = 0;
};
absl::StatusOr<Speedup> SpeedupOver(const std::vector<double>& layer_ms,
                                    const std::vector<double>& row_ms);

// The metrics of cluster_coop, in order, for Experiment::AddMetrics:
// ReportCoopRow records every one of them for every row.
std::vector<MetricSpec> CoopMetrics();

// What one row of cluster_coop measured.
struct CoopRowFigures {
  std::string variant;  // kVariantLayer, kVariantTiled or kVariantCoop
  int cluster_size = 1;
  Speedup speedup;
  int max_active_clusters = 0;  // of the timed coop build; 0 for layer and tiled
  int blocks_per_sm = 0;
  DuplicationStats lines;  // of the traced launch
  // Coop: the %smid of every block of the traced launch (ClusterSameSmFraction).
  std::vector<int> block_sm;
};

// Why a row of `variant` at `cluster_size` has no peer block for
// peer_same_sm_fraction ("tiled launches no cluster", "a cluster of 1
// block has no peer"), or "" for coop clusters of 2 or more.
std::string NoPeerReason(absl::string_view variant, int cluster_size);

// Records every metric of CoopMetrics for one row; where NoPeerReason
// gives a reason, peer_same_sm_fraction is NaN and the label says why.
// InvalidArgument where a coop row's block_sm is not whole clusters of
// recorded SMs.
absl::Status ReportCoopRow(PointContext& ctx, const CoopRowFigures& row);

}  // namespace dissect::coop

#endif  // DISSECT_EXPERIMENTS_SHARING_COOP_COOP_HOST_H_
