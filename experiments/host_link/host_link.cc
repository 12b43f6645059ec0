// Question: how fast do host-to-device and device-to-host copies run, pinned
//           and pageable, by size, and both ways at once?
// Timed:    cudaMemcpyAsync of `bytes` between a host buffer (pinned:
//           cudaHostAlloc; pageable: ordinary memory, touched before the
//           copies) and a device buffer, CUDA events around each copy on the
//           point's stream. bidirectional: an H2D and a D2H copy of `bytes`
//           each, on two streams, issued together; the events on the first
//           stream bracket both (the second stream waits on the start and
//           the first waits on the second's end), so the time runs from
//           the first start to the last end. Pinned samples are queued behind
//           the harness's guard spin (host time kept out); pageable ones are
//           not: the driver stages a pageable copy through its own pinned
//           buffer with host memcpys, and a pageable D2H copy returns only
//           when done, so the host's staging is part of what a pageable copy
//           costs and lies inside its events. bandwidth_gbps is bytes moved
//           / time (bidirectional counts both directions, 2 x bytes);
//           latency_us is the time of the copy. After the samples a sample of
//           the destination's bytes is checked on the host against the
//           source's pattern (outside the events).
// Expected: pinned copies reach most of the host link from a few MiB up
//           (PCIe 5.0 x16 on H100 SXM: roughly 50 GB/s one way); small copies
//           are latency-bound (a few us) and their bandwidth tiny. Pageable
//           copies are slower (the staging host memcpy). Pinned
//           bidirectional exceeds one direction, below twice it; pageable
//           bidirectional may not overlap at all, since the driver stages
//           pageable copies: it is measured anyway.
// Could be confused with: a copy that did not happen (the destination is
//           poisoned before the copies and a sample of it checked after);
//           host time for copy time in pinned rows (the guard spin,
//           //probes:event_timer_test); the staging's host memcpy for the
//           link in pageable rows (it is part of a pageable copy, by
//           design: compare the pinned rows for the link itself).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/framework/experiment.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"
#include "probes/event_timer.h"
#include "probes/pinned_buffer.h"

namespace dissect {
namespace {

constexpr uint8_t kPoison = 0xa5;
// Destination bytes checked on the host after a copy (evenly spaced, plus
// the last).
constexpr int64_t kCheckedBytes = 1024;

// The source pattern: not constant, so that a stale or partial copy shows.
uint8_t PatternByte(int64_t i, uint8_t seed) {
  return static_cast<uint8_t>((i * 131 + (i >> 13) + seed) & 0xff);
}

// Host memory for a copy: pinned (cudaHostAlloc) or pageable (new[]),
// released with the matching call.
class HostBuffer {
 public:
  static absl::StatusOr<std::unique_ptr<HostBuffer>> Allocate(size_t bytes, bool pinned) {
    auto buffer = std::make_unique<HostBuffer>();
    if (pinned) {
      DISSECT_ASSIGN_OR_RETURN(buffer->pinned_, PinnedBuffer<uint8_t>::Allocate(bytes));
      buffer->data_ = buffer->pinned_.get();
    } else {
      buffer->pageable_.reset(new uint8_t[bytes]);
      buffer->data_ = buffer->pageable_.get();
    }
    return buffer;
  }
  uint8_t* get() const { return data_; }

 private:
  PinnedBuffer<uint8_t> pinned_;
  std::unique_ptr<uint8_t[]> pageable_;
  uint8_t* data_ = nullptr;
};

// A stream released on destruction (the bidirectional D2H copies' own).
class OwnedStream {
 public:
  OwnedStream() = default;
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  ~OwnedStream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    if (start_ != nullptr) cudaEventDestroy(start_);
    if (end_ != nullptr) cudaEventDestroy(end_);
  }
  absl::Status Init() {
    DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&start_, cudaEventDisableTiming));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&end_, cudaEventDisableTiming));
    return absl::OkStatus();
  }
  cudaStream_t stream() const { return stream_; }
  cudaEvent_t start() const { return start_; }
  cudaEvent_t end() const { return end_; }

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;  // the first stream's start, for the second to wait on
  cudaEvent_t end_ = nullptr;    // the second stream's end, for the first to wait on
};

absl::Status Validate(const Point& p) {
  const int64_t bytes = p.Int("bytes");
  if (bytes <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("bytes must be positive (got ", bytes, ")"));
  }
  return absl::OkStatus();
}

// Checks evenly spaced bytes of a host destination against the pattern.
absl::Status CheckHostBytes(const uint8_t* host, int64_t bytes, uint8_t seed,
                            absl::string_view what) {
  const int64_t step = bytes > kCheckedBytes ? bytes / kCheckedBytes : 1;
  for (int64_t i = 0; i < bytes; i += step) {
    if (host[i] != PatternByte(i, seed)) {
      return absl::InternalError(absl::StrCat(what, " copy wrong at byte ", i, ": ",
                                              static_cast<int>(host[i]), ", expected ",
                                              static_cast<int>(PatternByte(i, seed))));
    }
  }
  if (host[bytes - 1] != PatternByte(bytes - 1, seed)) {
    return absl::InternalError(absl::StrCat(what, " copy wrong at its last byte"));
  }
  return absl::OkStatus();
}

// Copies the whole device destination back (outside the events) and checks
// a sample of it.
absl::Status CheckDeviceBytes(const uint8_t* device, int64_t bytes, uint8_t seed) {
  std::vector<uint8_t> back(static_cast<size_t>(bytes));
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(back.data(), device, static_cast<size_t>(bytes), cudaMemcpyDeviceToHost));
  return CheckHostBytes(back.data(), bytes, seed, "H2D");
}

struct Buffers {
  std::unique_ptr<HostBuffer> host_src;  // H2D source
  std::unique_ptr<HostBuffer> host_dst;  // D2H destination
  DeviceBuffer<uint8_t> device_dst;      // H2D destination
  DeviceBuffer<uint8_t> device_src;      // D2H source
};

constexpr uint8_t kH2dSeed = 3;
constexpr uint8_t kD2hSeed = 77;

// Allocates what the direction needs, sources filled with their patterns,
// destinations poisoned.
absl::StatusOr<Buffers> Prepare(int64_t bytes, bool pinned, bool h2d, bool d2h) {
  const size_t n = static_cast<size_t>(bytes);
  Buffers b;
  if (h2d) {
    DISSECT_ASSIGN_OR_RETURN(b.host_src, HostBuffer::Allocate(n, pinned));
    for (size_t i = 0; i < n; ++i) b.host_src->get()[i] = PatternByte(i, kH2dSeed);
    DISSECT_ASSIGN_OR_RETURN(b.device_dst, DeviceBuffer<uint8_t>::Allocate(n));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaMemset(b.device_dst.get(), kPoison, n));
  }
  if (d2h) {
    DISSECT_ASSIGN_OR_RETURN(b.host_dst, HostBuffer::Allocate(n, pinned));
    std::memset(b.host_dst->get(), kPoison, n);
    std::vector<uint8_t> pattern(n);
    for (size_t i = 0; i < n; ++i) pattern[i] = PatternByte(i, kD2hSeed);
    DISSECT_ASSIGN_OR_RETURN(b.device_src, DeviceBuffer<uint8_t>::Allocate(n));
    DISSECT_CUDA_RETURN_IF_ERROR(
        cudaMemcpy(b.device_src.get(), pattern.data(), n, cudaMemcpyHostToDevice));
  }
  return b;
}

// Queues an H2D copy on `s` and a D2H copy on the second stream, both
// between events on `s`: the second stream starts when `s` reaches the
// copies and `s` ends only after the second stream's copy.
cudaError_t QueueBothWays(const Buffers& b, size_t n, const OwnedStream& second, cudaStream_t s) {
  cudaError_t e = cudaEventRecord(second.start(), s);
  if (e == cudaSuccess) e = cudaStreamWaitEvent(second.stream(), second.start(), 0);
  if (e == cudaSuccess) {
    e = cudaMemcpyAsync(b.device_dst.get(), b.host_src->get(), n, cudaMemcpyHostToDevice, s);
  }
  if (e == cudaSuccess) {
    e = cudaMemcpyAsync(b.host_dst->get(), b.device_src.get(), n, cudaMemcpyDeviceToHost,
                        second.stream());
  }
  if (e == cudaSuccess) e = cudaEventRecord(second.end(), second.stream());
  if (e == cudaSuccess) e = cudaStreamWaitEvent(s, second.end(), 0);
  return e;
}

absl::Status Run(PointContext& ctx) {
  const int64_t bytes = ctx.Int("bytes");
  const size_t n = static_cast<size_t>(bytes);
  const std::string& direction = ctx.Str("direction");
  const bool pinned = ctx.Str("memory") == "pinned";
  const bool h2d = direction != "d2h";
  const bool d2h = direction != "h2d";
  size_t free_bytes = 0, total_bytes = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t device_bytes = (h2d && d2h ? 2 : 1) * n;
  if (device_bytes > free_bytes) {
    return Skipped(
        absl::StrCat("needs ", device_bytes, " B of device memory; ", free_bytes, " B free"));
  }
  DISSECT_ASSIGN_OR_RETURN(Buffers b, Prepare(bytes, pinned, h2d, d2h));
  OwnedStream second;
  if (h2d && d2h) DISSECT_RETURN_IF_ERROR(second.Init());
  const LaunchFn copy = [&](cudaStream_t s) -> cudaError_t {
    if (h2d && d2h) return QueueBothWays(b, n, second, s);
    if (h2d) {
      return cudaMemcpyAsync(b.device_dst.get(), b.host_src->get(), n, cudaMemcpyHostToDevice, s);
    }
    return cudaMemcpyAsync(b.host_dst->get(), b.device_src.get(), n, cudaMemcpyDeviceToHost, s);
  };
  TimingOptions options = ctx.timing();
  options.cache = CacheState::kHot;
  options.launches_per_sample = 1;
  // Pageable copies hold the host until staged (H2D) or done (D2H): behind
  // a guard spin every sample would be exposed.
  if (!pinned) options.guard_ns = 0;
  DISSECT_ASSIGN_OR_RETURN(std::vector<double> ms,
                           TimeWithEvents(copy, options, nullptr, ctx.stream()));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());
  if (h2d) DISSECT_RETURN_IF_ERROR(CheckDeviceBytes(b.device_dst.get(), bytes, kH2dSeed));
  if (d2h) DISSECT_RETURN_IF_ERROR(CheckHostBytes(b.host_dst->get(), bytes, kD2hSeed, "D2H"));
  const double moved = static_cast<double>(bytes) * (h2d && d2h ? 2.0 : 1.0);
  std::vector<double> gbps, us;
  for (double t : ms) {
    gbps.push_back(moved / (t * 1e-3) / 1e9);
    us.push_back(t * 1e3);
  }
  ctx.RecordTimeSamples(ms);
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("latency_us", std::move(us)));
  return ctx.AddSamples("bandwidth_gbps", std::move(gbps));
}

DISSECT_EXPERIMENT(host_link)
    .Question("How fast are pinned and pageable host-to-device and device-to-host copies, by "
              "size, and both ways at once?")
    .AddAxis(StringAxis("direction", {"h2d", "d2h", "bidirectional"}, {},
                        "h2d, d2h, or both at once on two streams"))
    .AddAxis(StringAxis("memory", {"pinned", "pageable"}, {},
                        "host memory: pinned (cudaHostAlloc) or pageable"))
    .AddAxis(IntAxis("bytes", "B",
                     {4 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20, int64_t{1} << 30},
                     "bytes per copy (each direction)"))
    .AddMetric("bandwidth_gbps", "GB/s",
               "bytes moved / time (bidirectional: both directions, 2 x bytes)")
    .AddMetric("latency_us", "us", "time of the copy (bidirectional: first start to last end)")
    .Validate(Validate)
    .Headline("bandwidth_gbps")
    .Run(Run);

}  // namespace
}  // namespace dissect
