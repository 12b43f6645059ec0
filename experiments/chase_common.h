// Host side of the pointer-chase experiments (shared_latency,
// memory_latency, latency_trace): builds a chain, places it where the chosen
// memory path reads it, runs the chase and turns its timings into metrics.
#ifndef DISSECT_EXPERIMENTS_CHASE_COMMON_H_
#define DISSECT_EXPERIMENTS_CHASE_COMMON_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "experiments/framework/experiment.h"
#include "experiments/workloads/inputs/pointer_chain.h"
#include "kernels/pointer_chase.h"
#include "probes/device_buffer.h"
#include "probes/device_info.h"

namespace dissect {

// "shared", "global_ca", "global_cg", "ldg", "tex", "const".
std::vector<std::string> ChasePathNames();
absl::StatusOr<ChasePath> ParseChasePath(absl::string_view name);

// Warm-up loads are one lap of the chain, at most this many.
inline constexpr uint64_t kMaxWarmupLoads = uint64_t{1} << 20;

// latency_trace's default footprints. A100 and Hopper keep a copy of a far
// L2 partition's line in the reader's near partition, so a warm walk shows
// the far partition only where one partition's share of the L2 cannot hold
// the walk's near-homed lines and copies of the far-homed ones together:
// beyond half the L2. 4 MiB fits half of A100's and Hopper's L2 (a warm
// walk: one level, near hits; line and sector sizes come from its cold
// walks); 32 MiB lies between half and all of an L2 of 32 to 64 MiB
// (A100's 40, H100's and H200's 50), where the warm walk meets near and
// far hits (latency_trace_method_test). Other L2 sizes need a footprint of
// their own (--axis=footprint_bytes). A warm walk at an 8 B stride over
// 32 MiB exceeds kMaxWarmupLoads and is skipped.
inline constexpr int64_t kTraceFootprints[] = {int64_t{4} << 20, int64_t{32} << 20};

// The loads latency_trace's thread issues before the traced ones: warm, one
// full lap of the chain (every slot loaded once); cold, none. Skipped when a
// warm lap exceeds kMaxWarmupLoads.
absl::StatusOr<uint64_t> TraceWarmupLoads(uint64_t slots, bool warm);

// A chain placed on the device for one path. Move-only; owns the device
// buffer and (for the texture path) the texture object.
class DeviceChain {
 public:
  // Returns a Skipped status when the chain does not fit the path on this
  // device (shared memory, the 64 KiB constant bank, texture width).
  // `reserved_shared_bytes` is static shared memory the kernel also uses.
  // The caller then calls PrepareChase or PrepareChaseTrace on Args(), once,
  // so that the timed launches only launch.
  // `group_pages`: page-local order's pages visited together (BuildChain).
  static absl::StatusOr<DeviceChain> Create(const DeviceInfo& device, ChasePath path,
                                            int64_t footprint_bytes, int64_t stride_bytes,
                                            ChainOrder order, size_t reserved_shared_bytes,
                                            cudaStream_t stream, int64_t group_pages = 1);
  DeviceChain(DeviceChain&& other) noexcept;
  DeviceChain& operator=(DeviceChain&&) = delete;
  DeviceChain(const DeviceChain&) = delete;
  ~DeviceChain();

  // Path, chain pointer, bytes and texture filled in.
  ChaseArgs Args() const;
  uint64_t slots() const { return slots_; }
  // The chain value thread 0 holds after `loads` loads from the start, in
  // the units the path stores (device addresses on the global paths, byte
  // offsets on shared and const, word indices on tex).
  uint64_t ValueAfter(uint64_t loads) const;
  // Converts a stored chain value to a byte offset within the chain.
  uint64_t ByteAddress(uint64_t value) const;

 private:
  DeviceChain() = default;
  uint64_t Base() const;  // the device address of the chain
  ChasePath path_ = ChasePath::kShared;
  std::vector<uint32_t> words_;  // word indices, as BuildChain made them
  DeviceBuffer<uint32_t> device_;
  cudaTextureObject_t texture_ = 0;
  uint64_t slots_ = 0;
};

// Validates footprint/stride, the stride's word size on the path (8-byte
// pointers on the global paths), loads (a positive multiple of
// kChaseUnroll) and group_pages (>= 1, above 1 only in page_local order),
// for the axes the point has.
absl::Status ValidateChasePoint(const Point& point);

// The metrics of the timed chase (shared_latency, memory_latency):
// cycles_per_load (slope over the two segments), overhead_cycles,
// ns_per_load, clock_mhz and clock_source.
std::vector<MetricSpec> ChaseLatencyMetrics();

// The shortest %globaltimer span from which a launch's SM clock is taken:
// the timer ticks in up to 1 us steps, so 50 us keeps its error under 2%.
inline constexpr uint64_t kMinClockSpanNs = 50'000;

// Where clock_mhz (and so ns_per_load) came from.
enum class ChaseClockSource : int {
  kTimers = 0,  // %clock64 / %globaltimer over each launch's timed span
  kNvml = 1,    // the NVML SM clock read around the samples
  kRated = 2,   // the device's rated maximum SM clock (nothing measured)
};

// The metrics of one memory_latency / shared_latency point.
struct ChaseLatencySamples {
  std::vector<double> cycles_per_load;  // per launch: the fitted slope
  std::vector<double> overhead_cycles;  // per launch: the fitted intercept
  std::vector<double> ns_per_load;
  std::vector<double> clock_mhz;
  ChaseClockSource clock_source = ChaseClockSource::kTimers;
};

// Fits each launch's segment cycles against the segments' loads
// (timed_loads << s): the slope is cycles per load, free of the fixed cost
// of a timed segment (clock reads, loop entry, the wait for the last load),
// which is the intercept. The SM clock is each launch's span_cycles /
// span_ns when span_ns >= kMinClockSpanNs; when no launch ran that long,
// `nvml_mhz`, else `rated_mhz`. ns_per_load is cycles per load at that
// clock. InvalidArgument if `timings` is empty or timed_loads is 0.
absl::StatusOr<ChaseLatencySamples> ReduceChaseTimings(const std::vector<ChaseTiming>& timings,
                                                       uint64_t timed_loads,
                                                       std::optional<double> nvml_mhz,
                                                       double rated_mhz);

// Loads one launch chases over all its segments, for timed_loads.
uint64_t ChaseLoadsPerLaunch(uint64_t timed_loads);

// Times the chase on `path` (kChaseSegments segments per launch, the first
// of `timed_loads` loads) and records cycles_per_load, overhead_cycles,
// ns_per_load, clock_mhz and clock_source (ReduceChaseTimings). Checks
// every launch reached the chain position the host predicts.
absl::Status MeasureChaseLatency(PointContext& ctx, ChasePath path, int64_t footprint_bytes,
                                 int64_t stride_bytes, ChainOrder order, uint64_t timed_loads,
                                 int64_t group_pages = 1);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_CHASE_COMMON_H_
