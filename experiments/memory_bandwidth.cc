// Question: what bandwidth do streaming reads, writes and copies reach from
//           L1, L2 and DRAM, at 32-, 64- and 128-bit access widths, and how
//           many bytes must each thread have in flight to reach it?
// Timed:    one tiled kernel per (op, width, bytes in flight) over
//           footprint_bytes of global memory (copy: half source, half
//           destination). Each thread issues bytes_in_flight_per_thread /
//           (width / 8) independent loads (read, copy; stores for write)
//           before it uses any, then the next tile. Inside one launch every
//           thread touches the same elements in each of P passes, P chosen
//           so that a launch moves at least 1 GiB. The grid is found once
//           per point; CUDA events around each launch, which does nothing
//           but launch, back to back (hot). Bandwidth counts bytes read plus
//           bytes written: P × footprint. Reads, writes and copies are
//           checked on the host after the timed launches. sharing=roaming
//           (reads only): every block reads the whole footprint in each
//           pass, starting at its own tile (spread evenly over the
//           footprint) and stepping its own odd number of tiles at a time,
//           wrapping around, so each SM's footprint is all of it and no
//           two blocks read the tiles in step; a pass moves blocks ×
//           footprint.
// Expected: reads and copies step down as the footprint grows: an L1 plateau
//           while footprint / SMs fits one SM's L1 (the kernels ask for the
//           largest L1 carveout, recorded as context l1_carveout max_l1,
//           as memory_latency's chase does; far above the DRAM ceiling),
//           an L2 plateau while the footprint fits L2, then DRAM, near but
//           below device_dram_peak_gbps. Writes do not allocate in L1 (it is
//           write-through), so they start at the L2 plateau. Footprints with
//           fewer tiles than the full grid has blocks leave SMs idle, so
//           bandwidth also falls toward the smallest footprints, the sooner
//           the more bytes each thread has in flight; 32-bit accesses need
//           4x the instructions per byte of 128-bit ones and may fall short
//           of the L1 plateau the wide ones reach. At DRAM footprints, too
//           few bytes in flight (16 B) may stop short of the DRAM plateau;
//           the best over bytes_in_flight_per_thread is the device's
//           (copy: about 85-90% of device_dram_peak_gbps on an H100 SXM).
//           Own shares keep the L1 plateau up to SMs × L1 (~30 MiB on an
//           H100), close to the L2's size, so they leave at most a point
//           or two L2-bound; roaming reads leave L1 beyond one SM's L1
//           (~256 KiB) and stay in L2 up to its capacity: the L2 read
//           bandwidth (8.3-9.5 TB/s published for an H100 SXM), then DRAM.
// Could be confused with: the compiler's work for the hardware's (fewer
//           loads in flight than bytes_in_flight_per_thread says, loads of
//           an unused value dropped, dead stores):
//           //experiments:bandwidth_sass_test (StreamTileLoopsHoldTheBytes-
//           InFlight: each tile loop holds exactly B loads / stores at the
//           width, all loads before the first use) and
//           //experiments:bandwidth_ptx_test (every pass loads or stores at
//           its width and the read kernel keeps its sum); the tiling covers
//           every element once, and roaming every block every element
//           once a pass from spread starts: //experiments:tiled_stream_test
//           (the roaming tile loop: StreamTileLoopsHoldTheBytesInFlight
//           checks the roaming read kernels too). Roaming blocks walking
//           in step (each a fixed distance behind another, as all did
//           when they walked the tiles in order): their reads of a line
//           come close together and most never cost the L2 a read, so the
//           "L2" bandwidth doubles, past the L2's capacity too (an H100:
//           16.4 TB/s at 8 MiB, 17.7 at 64 MiB, ld.global.cg or not);
//           RoamingBlocksNeverWalkInStep (tiled_stream_test). Host time
//           inside the event pair: //probes:event_timer_test. L2 for DRAM:
//           dram_peak_pct is NaN, and the row says L2-resident, below
//           2 x device_l2_bytes (experiments/framework/l2_residency.h,
//           //experiments/framework:l2_residency_test; the report shows
//           "L2-resident", //analysis/sections:report_test);
//           memory_bandwidth_gpu_test (GPU) keeps a 256 MiB row within
//           20-110 % of the DRAM peak. Not yet ruled out by a test: which
//           level serves a given footprint; a counters variant
//           (cupti/dram_bytes_read against the bytes moved, and the L1 hit
//           rate on the L1 plateau) would.
#include <algorithm>
#include <functional>
#include <iterator>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "experiments/framework/experiment.h"
#include "experiments/framework/l2_residency.h"
#include "kernels/bandwidth.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

namespace dissect {
namespace {

// Each launch moves at least this many bytes, so that even an L1-resident
// footprint runs for tens of microseconds: far above event resolution and
// launch overhead.
constexpr int64_t kMinTrafficBytes = int64_t{1} << 30;
// Device memory left free beyond the buffers (sink, runtime's own needs).
constexpr size_t kMemorySlackBytes = size_t{64} << 20;
constexpr int64_t kMaxFootprintBytes = int64_t{1} << 40;

absl::StatusOr<StreamOp> ParseOp(absl::string_view name) {
  if (name == "read") return StreamOp::kRead;
  if (name == "write") return StreamOp::kWrite;
  if (name == "copy") return StreamOp::kCopy;
  return absl::InvalidArgumentError(
      absl::StrCat("op must be read, write or copy, not '", name, "'"));
}

// Passes in one launch, each moving bytes_per_pass.
int64_t Passes(int64_t bytes_per_pass) {
  return std::max<int64_t>(1, (kMinTrafficBytes + bytes_per_pass - 1) / bytes_per_pass);
}

absl::Status Validate(const Point& p) {
  const int64_t width = p.Int("width_bits");
  if (width != 32 && width != 64 && width != 128) {
    return absl::InvalidArgumentError(
        absl::StrCat("width_bits must be 32, 64 or 128 (got ", width, ")"));
  }
  const int64_t in_flight = p.Int("bytes_in_flight_per_thread");
  if (std::find(std::begin(kStreamBytesInFlight), std::end(kStreamBytesInFlight), in_flight) ==
      std::end(kStreamBytesInFlight)) {
    return absl::InvalidArgumentError(absl::StrCat("bytes_in_flight_per_thread must be one of ",
                                                   absl::StrJoin(kStreamBytesInFlight, ", "),
                                                   " (got ", in_flight, ")"));
  }
  const int64_t footprint = p.Int("footprint_bytes");
  if (footprint <= 0 || footprint % 16 != 0 || footprint > kMaxFootprintBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "footprint_bytes must be a positive multiple of 16 up to 1 TiB (got ", footprint, ")"));
  }
  if (p.Str("op") == "copy" && footprint % 32 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("copy splits footprint_bytes into source and destination: it must be a "
                     "multiple of 32 (got ",
                     footprint, ")"));
  }
  return ParseOp(p.Str("op")).status();
}

// Word w of the device buffer must be want(w).
absl::Status CheckWords(const char* what, const uint32_t* d_words, size_t words,
                        const std::function<uint32_t(size_t)>& want) {
  std::vector<uint32_t> got(words);
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(got.data(), d_words, words * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  for (size_t w = 0; w < words; ++w) {
    if (got[w] != want(w)) {
      return absl::InternalError(
          absl::StrCat(what, ": wrong word ", w, ": ", got[w], ", expected ", want(w)));
    }
  }
  return absl::OkStatus();
}

// Sum (mod 2^32) of `count` device words.
absl::StatusOr<uint32_t> SumWords(const uint32_t* d_words, size_t count) {
  std::vector<uint32_t> host(count);
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(host.data(), d_words, count * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  uint32_t sum = 0;
  for (uint32_t v : host) sum += v;
  return sum;
}

// The point's device buffers: the source (holding the write kernel's
// first-pass pattern), the poisoned destination and the read kernel's sink,
// as `op` needs them.
struct StreamBuffers {
  DeviceBuffer<uint32_t> src;
  DeviceBuffer<uint32_t> dst;
  DeviceBuffer<uint32_t> sink;
};

// Allocates and fills the buffers of `args` (its grid already set) and
// points `args` at them.
absl::StatusOr<StreamBuffers> PrepareBuffers(PointContext& ctx, size_t words, StreamArgs& args) {
  StreamBuffers b;
  const StreamOp op = args.op;
  const int width_bits = args.width_bits;
  const int bytes_in_flight = args.bytes_in_flight;
  const size_t buffer_bytes = args.bytes;
  if (op != StreamOp::kWrite) {
    DISSECT_ASSIGN_OR_RETURN(b.src, DeviceBuffer<uint32_t>::Allocate(words));
    // The source holds the write kernel's first-pass pattern.
    StreamArgs fill = args;
    fill.op = StreamOp::kWrite;
    fill.dst = b.src.get();
    fill.passes = 1;
    fill.roaming = false;
    DISSECT_CUDA_RETURN_IF_ERROR(StreamGridBlocks(StreamOp::kWrite, width_bits, bytes_in_flight,
                                                  buffer_bytes, &fill.blocks));
    DISSECT_CUDA_RETURN_IF_ERROR(LaunchStream(fill, ctx.stream()));
    args.src = b.src.get();
  }
  if (op != StreamOp::kRead) {
    DISSECT_ASSIGN_OR_RETURN(b.dst, DeviceBuffer<uint32_t>::Allocate(words));
    // Poison the destination so that unwritten words show.
    DISSECT_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(b.dst.get(), 0xff, buffer_bytes, ctx.stream()));
    args.dst = b.dst.get();
  }
  if (op == StreamOp::kRead) {
    const size_t sink_words = static_cast<size_t>(args.blocks) * kStreamWarpsPerBlock;
    DISSECT_ASSIGN_OR_RETURN(b.sink, DeviceBuffer<uint32_t>::Allocate(sink_words));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(b.sink.get(), 0, b.sink.bytes(), ctx.stream()));
    args.sink = b.sink.get();
  }
  return b;
}

// Whether the timed kernel did its work: the read kernel's sums, the write
// kernel's last pattern, the copy of the first.
absl::Status CheckStreamed(const StreamArgs& args, const StreamBuffers& b, size_t words,
                           int64_t passes) {
  const bool roaming = args.roaming;
  switch (args.op) {
    case StreamOp::kRead: {
      // Every word was read in every pass (roaming: by every block): the
      // warps' sums add up to passes × the sum of the source (× blocks).
      DISSECT_ASSIGN_OR_RETURN(const uint32_t source_sum, SumWords(b.src.get(), words));
      DISSECT_ASSIGN_OR_RETURN(const uint32_t read_sum, SumWords(b.sink.get(), b.sink.size()));
      const uint32_t want = source_sum * static_cast<uint32_t>(passes) *
                            static_cast<uint32_t>(roaming ? args.blocks : 1);
      if (read_sum != want) {
        return absl::InternalError(
            absl::StrCat("read kernel summed ", read_sum, ", expected ", want));
      }
      break;
    }
    case StreamOp::kWrite: {
      const int last = static_cast<int>(passes) - 1;
      DISSECT_RETURN_IF_ERROR(CheckWords("write", b.dst.get(), words,
                                         [last](size_t w) { return StreamPatternWord(w, last); }));
      break;
    }
    case StreamOp::kCopy:
      DISSECT_RETURN_IF_ERROR(
          CheckWords("copy", b.dst.get(), words, [](size_t w) { return StreamPatternWord(w, 0); }));
      break;
  }
  return absl::OkStatus();
}

absl::Status Run(PointContext& ctx) {
  DISSECT_ASSIGN_OR_RETURN(const StreamOp op, ParseOp(ctx.Str("op")));
  const int width_bits = static_cast<int>(ctx.Int("width_bits"));
  const int bytes_in_flight = static_cast<int>(ctx.Int("bytes_in_flight_per_thread"));
  const int64_t footprint = ctx.Int("footprint_bytes");
  const bool roaming = ctx.Str("sharing") == "roaming";
  if (roaming && op != StreamOp::kRead) {
    return Skipped("sharing=roaming reads only (the L2 read bandwidth it is for)");
  }
  // Copy reads one half of the footprint and writes the other.
  const size_t buffer_bytes =
      static_cast<size_t>(op == StreamOp::kCopy ? footprint / 2 : footprint);
  const size_t words = buffer_bytes / sizeof(uint32_t);

  size_t free_bytes = 0, total_bytes = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (static_cast<size_t>(footprint) + kMemorySlackBytes > free_bytes) {
    return Skipped(absl::StrCat("needs ", footprint, " B of device memory plus ", kMemorySlackBytes,
                                " B slack; ", free_bytes, " B free"));
  }
  StreamArgs args;
  args.op = op;
  args.width_bits = width_bits;
  args.bytes_in_flight = bytes_in_flight;
  args.bytes = buffer_bytes;
  args.roaming = roaming;
  // The grid (and the L1 carveout) is set once, here: the timed launch does
  // nothing but launch.
  DISSECT_CUDA_RETURN_IF_ERROR(
      StreamGridBlocks(op, width_bits, bytes_in_flight, buffer_bytes, &args.blocks, roaming));
  // Roaming, every block reads the whole footprint in each pass.
  const int64_t bytes_per_pass = roaming ? footprint * args.blocks : footprint;
  const int64_t passes = Passes(bytes_per_pass);
  args.passes = static_cast<int>(passes);

  DISSECT_ASSIGN_OR_RETURN(const StreamBuffers buffers, PrepareBuffers(ctx, words, args));
  DISSECT_ASSIGN_OR_RETURN(
      std::vector<double> ms,
      ctx.TimeKernel([&](cudaStream_t s) { return LaunchStream(args, s); }, CacheState::kHot));

  DISSECT_RETURN_IF_ERROR(CheckStreamed(args, buffers, words, passes));

  const double bytes_moved = static_cast<double>(bytes_per_pass) * static_cast<double>(passes);
  std::vector<double> gbps;
  for (double t : ms) gbps.push_back(bytes_moved / (t * 1e-3) / 1e9);
  // Every pass sweeps the same footprint: it is the working set, and only
  // beyond 2 x L2 is the bandwidth DRAM's.
  DISSECT_RETURN_IF_ERROR(AddDramPeakPct(ctx, gbps, static_cast<double>(footprint)));
  return ctx.AddSamples("bandwidth_gbps", std::move(gbps));
}

std::vector<int64_t> DefaultFootprints() {
  std::vector<int64_t> out;
  for (int64_t f = int64_t{16} << 10; f <= int64_t{1} << 30; f *= 2) out.push_back(f);
  return out;
}

DISSECT_EXPERIMENT(memory_bandwidth)
    .Question(
        "What bandwidth do streaming reads, writes and copies reach from L1, L2 "
        "and DRAM at 32-, 64- and 128-bit access widths, and with how many bytes "
        "in flight per thread?")
    .AddAxis(StringAxis("op", {"read", "write", "copy"}, {},
                        "read: sum every element; write: store a pattern; "
                        "copy: dst = src (each half of the footprint)"))
    .AddAxis(IntAxis("width_bits", "bits", {32, 64, 128},
                     "bits per access (uint32_t, uint2, uint4)"))
    .AddAxis(IntAxis("bytes_in_flight_per_thread", "B",
                     std::vector<int64_t>(std::begin(kStreamBytesInFlight),
                                          std::end(kStreamBytesInFlight)),
                     "bytes each thread loads (write: stores) before using any: "
                     "bytes / (width_bits / 8) independent accesses per tile; 16, 32, 64 or 128"))
    .AddAxis(IntAxis("footprint_bytes", "B", DefaultFootprints(),
                     "bytes the kernel touches per pass (copy: source + destination)"))
    .AddAxis(StringAxis("sharing", {"own", "roaming"}, {"own"},
                        "own: each SM re-reads its 1/SMs share of the footprint in every pass; "
                        "roaming (read only): every block reads the whole footprint in every "
                        "pass from its own start, so each SM's footprint is all of it (the L2 "
                        "level; analysis: bandwidth_footprint total_roaming)"))
    .AddMetric("bandwidth_gbps", "GB/s",
               "(bytes read + bytes written) / time; passes x footprint per launch "
               "(roaming: passes x blocks x footprint)")
    .AddMetric("dram_peak_pct", "%",
               "bandwidth / device_dram_peak_gbps (2 x memory clock x bus width); NaN when "
               "L2-resident (beyond_2x_l2 0)")
    .AddMetrics(L2ResidencyMetrics("footprint_bytes: the bytes every pass touches"))
    // StreamGridBlocks asks every stream kernel for the largest L1
    // (kernels/bandwidth.cu); the L1 plateau ends where that L1 does, so
    // the analysis sets it only beside a chase at the same carveout.
    .AddContext(kL1CarveoutKey, L1CarveoutName(cudaSharedmemCarveoutMaxL1))
    .Validate(Validate)
    .Headline("bandwidth_gbps")
    .Run(Run);

}  // namespace
}  // namespace dissect
