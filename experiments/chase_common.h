// Host side of the pointer-chase experiments (shared_latency,
// memory_latency, latency_trace): builds a chain, places it where the chosen
// memory path reads it, runs the chase and turns its timings into metrics.
#ifndef DISSECT_EXPERIMENTS_CHASE_COMMON_H_
#define DISSECT_EXPERIMENTS_CHASE_COMMON_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "experiments/harness/experiment.h"
#include "kernels/pointer_chase.h"
#include "probes/device_buffer.h"
#include "probes/device_info.h"
#include "probes/pointer_chain.h"

namespace dissect {

// "shared", "global_ca", "global_cg", "ldg", "tex", "const".
std::vector<std::string> ChasePathNames();
absl::StatusOr<ChasePath> ParseChasePath(absl::string_view name);

// Warm-up loads are one lap of the chain, at most this many.
inline constexpr uint64_t kMaxWarmupLoads = uint64_t{1} << 20;

// A chain placed on the device for one path. Move-only; owns the device
// buffer and (for the texture path) the texture object.
class DeviceChain {
 public:
  // Returns a Skipped status when the chain does not fit the path on this
  // device (shared memory, the 64 KiB constant bank, texture width).
  // `reserved_shared_bytes` is static shared memory the kernel also uses.
  static absl::StatusOr<DeviceChain> Create(const DeviceInfo& device, ChasePath path,
                                            int64_t footprint_bytes, int64_t stride_bytes,
                                            ChainOrder order, size_t reserved_shared_bytes,
                                            cudaStream_t stream);
  DeviceChain(DeviceChain&& other) noexcept;
  DeviceChain& operator=(DeviceChain&&) = delete;
  DeviceChain(const DeviceChain&) = delete;
  ~DeviceChain();

  // Path, chain pointer, words and texture filled in.
  ChaseArgs Args() const;
  uint64_t slots() const { return slots_; }
  // The chain value thread 0 holds after `loads` loads from the start, in
  // the units the path stores (byte offsets, or word indices for tex).
  uint32_t ValueAfter(uint64_t loads) const;
  // Converts a stored chain value to a byte address within the chain.
  uint64_t ByteAddress(uint32_t value) const;

 private:
  DeviceChain() = default;
  ChasePath path_ = ChasePath::kShared;
  std::vector<uint32_t> words_;  // word indices, as BuildChain made them
  DeviceBuffer<uint32_t> device_;
  cudaTextureObject_t texture_ = 0;
  uint64_t slots_ = 0;
};

// Validates footprint/stride (and loads, if the point has that axis).
absl::Status ValidateChasePoint(const Point& point);

// Times `timed_loads` dependent loads per launch on `path` and records
// cycles_per_load, ns_per_load and clock_mhz. Checks every launch reached
// the chain position the host predicts.
absl::Status MeasureChaseLatency(PointContext& ctx, ChasePath path, int64_t footprint_bytes,
                                 int64_t stride_bytes, ChainOrder order,
                                 uint64_t timed_loads);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_CHASE_COMMON_H_
