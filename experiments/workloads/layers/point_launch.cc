// A point's host work before timing, its launch after (see point_launch.h).
#include "experiments/workloads/layers/point_launch.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "probes/cuda_status.h"

namespace dissect::l1_bypass {

absl::StatusOr<PreparedLaunch> PreparedLaunch::Prepare(const layers::VariantKernels& kernels,
                                                       layers::LayerArgs args, int occupancy_pct,
                                                       int sm_count, const SettingFn& setting) {
  int max_blocks = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(kernels.prepare(args.kernel, &max_blocks));
  if (max_blocks < 1) return absl::InternalError("the kernel cannot be resident on an SM");
  PreparedLaunch launch;
  launch.kernels_ = &kernels;
  launch.blocks_per_sm_ =
      std::max(1, static_cast<int>(std::lround(max_blocks * occupancy_pct / 100.0)));
  launch.args_ = args;
  launch.args_.blocks = launch.blocks_per_sm_ * sm_count;
  if (setting) {
    DISSECT_ASSIGN_OR_RETURN(launch.setting_, setting());
  }
  return launch;
}

}  // namespace dissect::l1_bypass
