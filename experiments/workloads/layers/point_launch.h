// One point's launch, split so that the timed callback does nothing but
// enqueue the kernel: Prepare() does all the host work of a point before the
// events (VariantKernels::prepare, i.e. the L1 carveout attribute and the
// occupancy query; the grid size; the L2 access-policy window of a runtime
// variant), and Launch(), the callback that TimeKernel times, is one
// VariantKernels::launch call. Host work inside the callback would be timed
// along with a microsecond kernel: when the host side takes longer than the
// kernel, the start event fires at once and the interval measures the host.
#ifndef DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_POINT_LAUNCH_H_
#define DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_POINT_LAUNCH_H_

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "experiments/workloads/layers/l2_window.h"
#include "kernels/layers/layers.h"

namespace dissect::l1_bypass {

class PreparedLaunch {
 public:
  // Applies a runtime setting and returns the object that undoes it when
  // destroyed (null: nothing to undo).
  using SettingFn = std::function<absl::StatusOr<std::unique_ptr<L2AccessWindow>>()>;

  // Calls kernels.prepare(args.kernel) once, sets args.blocks to
  // occupancy_pct % of the resident blocks per SM (at least 1) times
  // sm_count, then applies `setting` if given. The setting stays in force
  // until Release() or destruction.
  static absl::StatusOr<PreparedLaunch> Prepare(const layers::VariantKernels& kernels,
                                                layers::LayerArgs args, int occupancy_pct,
                                                int sm_count, const SettingFn& setting = nullptr);

  // The timed callback: enqueues the kernel on `stream`, nothing else.
  cudaError_t Launch(cudaStream_t stream) const { return kernels_->launch(args_, stream); }

  int blocks_per_sm() const { return blocks_per_sm_; }
  const layers::LayerArgs& args() const { return args_; }
  // Undoes the runtime setting now.
  void Release() { setting_.reset(); }

 private:
  PreparedLaunch() = default;

  const layers::VariantKernels* kernels_ = nullptr;
  layers::LayerArgs args_;
  int blocks_per_sm_ = 0;
  std::unique_ptr<L2AccessWindow> setting_;
};

}  // namespace dissect::l1_bypass

#endif  // DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_POINT_LAUNCH_H_
