// Question: does Hopper's generic memory compression raise the read
//           bandwidth of an activation tensor as its fraction of zeros
//           grows (Kurtz et al. 2020, exploiting activation sparsity without
//           changing the kernel)?
// Timed:    the streaming read kernel of memory_bandwidth (kernels/bandwidth,
//           128-bit loads, 64 bytes in flight per thread, one pass) over
//           `bytes` of device memory from cuMemCreate, with
//           CU_MEM_ALLOCATION_COMP_GENERIC (compressible) or without it
//           (ordinary: the same virtual-memory path, so the two differ only
//           in the compression flag). The buffer holds zero_pct % zero
//           32-bit words at uniformly random positions (selection sampling;
//           a flat buffer with this experiment's own placement, not
//           probes/sparsity masks) and random non-zero words elsewhere,
//           copied in with cudaMemcpy. CUDA events around each launch,
//           cold: L2 is flushed before every launch (CacheState::kCold), and
//           the 256 MiB default is five times the 50 MiB L2 besides. The
//           kernel's sum is checked against the host's after timing.
// Expected: from the literature, not measured: ordinary rows flat in
//           zero_pct near the DRAM read ceiling; compressible rows (where
//           compression is granted) rising with zero_pct, most at 100 %
//           (all-zero lines compress best). Uniformly random zero words
//           leave few all-zero compression blocks until zero_pct is high,
//           so the rise may only show at 90-100 %. Devices or drivers
//           without generic compression skip the compressible rows.
// Could be confused with: an ordinary allocation for a compressible one
//           (the driver may refuse compression silently): compression_granted
//           comes from cuMemGetAllocationPropertiesFromHandle on every row;
//           on a GPU, compressible_bandwidth_compressible_gpu_test expects 1
//           and compressible_bandwidth_gpu_test 0 (ordinary rows). Another
//           zero fraction than zero_pct: //experiments/sparsity/structured:
//           compressible_memory_test (exact zero count, all other words
//           non-zero, zeros spread over the buffer); that the non-zero words
//           are full 32-bit random values (not themselves compressible) is
//           by construction, untested. L2 for DRAM: cold launches over
//           256 MiB (5x the L2), and //probes:event_timer_gpu_test
//           (ColdFlushGpuTest, GPU) shows the flush leaves no write-backs to
//           the timed kernel. Not yet ruled out by a test: that compression
//           changes DRAM traffic rather than the time alone; a counters
//           variant (cupti/dram_bytes_read falling with zero_pct on
//           compressible rows) would.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "experiments/framework/experiment.h"
#include "experiments/sparsity/structured/compressible_memory.h"
#include "kernels/bandwidth.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

namespace dissect::sparsity {
namespace {

constexpr int kWidthBits = 128;
constexpr int kBytesInFlight = 64;
constexpr int64_t kMaxBytes = int64_t{16} << 30;
constexpr size_t kMemorySlackBytes = size_t{64} << 20;
constexpr uint64_t kSeed = 0x5eed2024;

absl::Status Validate(const Point& p) {
  const std::string& allocation = p.Str("allocation");
  if (allocation != "ordinary" && allocation != "compressible") {
    return absl::InvalidArgumentError(
        absl::StrCat("allocation must be ordinary or compressible, not '", allocation, "'"));
  }
  const int64_t zero_pct = p.Int("zero_pct");
  if (zero_pct < 0 || zero_pct > 100) {
    return absl::InvalidArgumentError(
        absl::StrCat("zero_pct must lie in [0, 100] (got ", zero_pct, ")"));
  }
  const int64_t bytes = p.Int("bytes");
  if (bytes <= 0 || bytes % 16 != 0 || bytes > kMaxBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("bytes must be a positive multiple of 16 up to 16 GiB (got ", bytes, ")"));
  }
  return absl::OkStatus();
}

absl::Status Run(PointContext& ctx) {
  const bool compressible = ctx.Str("allocation") == "compressible";
  const int zero_pct = static_cast<int>(ctx.Int("zero_pct"));
  const size_t bytes = static_cast<size_t>(ctx.Int("bytes"));
  const size_t words = bytes / sizeof(uint32_t);
  ctx.AddNote("activation_source=controlled_mask");
  ctx.AddNote("zero_placement=uniform_random_words");

  size_t free_bytes = 0, total_bytes = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes + kMemorySlackBytes > free_bytes) {
    return Skipped(absl::StrCat("needs ", bytes, " B of device memory plus ", kMemorySlackBytes,
                                " B slack; ", free_bytes, " B free"));
  }
  DISSECT_ASSIGN_OR_RETURN(const DriverApi* api, LoadDriverApi());
  int device = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device));
  if (compressible) {
    DISSECT_ASSIGN_OR_RETURN(const bool supported, GenericCompressionSupported(*api, device));
    if (!supported) {
      return Skipped("the device reports CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED = 0");
    }
  }
  absl::StatusOr<MappedAllocation> created =
      MappedAllocation::Create(*api, device, bytes, compressible);
  if (!created.ok()) {
    if (compressible) {
      return Skipped(
          absl::StrCat("compressible cuMemCreate refused: ", created.status().message()));
    }
    return created.status();
  }
  const MappedAllocation allocation = *std::move(created);
  if (compressible && !allocation.compression_granted()) {
    ctx.AddNote("compression_requested_but_not_granted");
  }

  const std::vector<uint32_t> host = ZeroFractionWords(words, zero_pct, kSeed);
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(allocation.get(), host.data(), bytes, cudaMemcpyHostToDevice));
  uint32_t want = 0;
  for (uint32_t v : host) want += v;

  StreamArgs args;
  args.op = StreamOp::kRead;
  args.width_bits = kWidthBits;
  args.bytes_in_flight = kBytesInFlight;
  args.src = allocation.get();
  args.bytes = bytes;
  args.passes = 1;
  DISSECT_CUDA_RETURN_IF_ERROR(
      StreamGridBlocks(StreamOp::kRead, kWidthBits, kBytesInFlight, bytes, &args.blocks));
  DISSECT_ASSIGN_OR_RETURN(
      DeviceBuffer<uint32_t> sink,
      DeviceBuffer<uint32_t>::Allocate(static_cast<size_t>(args.blocks) * kStreamWarpsPerBlock));
  args.sink = sink.get();

  DISSECT_ASSIGN_OR_RETURN(
      std::vector<double> ms,
      ctx.TimeKernel([&](cudaStream_t s) { return LaunchStream(args, s); }, CacheState::kCold));

  // Every launch overwrote the sink with one pass's sums.
  std::vector<uint32_t> sums(sink.size());
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(sums.data(), sink.get(), sink.bytes(), cudaMemcpyDeviceToHost));
  uint32_t got = 0;
  for (uint32_t v : sums) got += v;
  if (got != want) {
    return absl::InternalError(absl::StrCat("read kernel summed ", got, ", expected ", want));
  }

  std::vector<double> gbps;
  for (double t : ms) gbps.push_back(static_cast<double>(bytes) / (t * 1e-3) / 1e9);
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("bandwidth_gbps", std::move(gbps)));
  return ctx.AddSamples("compression_granted", {allocation.compression_granted() ? 1.0 : 0.0});
}

DISSECT_EXPERIMENT(compressible_bandwidth)
    .Question(
        "Does generic memory compression (CU_MEM_ALLOCATION_COMP_GENERIC) raise the read "
        "bandwidth of an activation tensor as its zero fraction grows?")
    .AddAxis(StringAxis("allocation", {"ordinary", "compressible"}, {},
                        "cuMemCreate without / with CU_MEM_ALLOCATION_COMP_GENERIC"))
    .AddAxis(IntAxis("zero_pct", "%", {0, 25, 50, 75, 90, 99, 100},
                     "share of 32-bit words that are zero (uniformly random positions)"))
    .AddAxis(IntAxis("bytes", "B", {int64_t{256} << 20},
                     "buffer size (rounded up to the allocation granularity for the mapping; "
                     "the kernel reads exactly bytes)"))
    .AddMetric("bandwidth_gbps", "GB/s", "bytes / median cold read-kernel time")
    .AddMetric("compression_granted", "-",
               "1 if cuMemGetAllocationPropertiesFromHandle reports COMP_GENERIC, else 0")
    .Validate(Validate)
    .Headline("bandwidth_gbps")
    .Run(Run);

}  // namespace
}  // namespace dissect::sparsity
