// Host side of the pointer-chase experiments; see chase_common.h.
#include "experiments/chase_common.h"

#include <algorithm>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "probes/cuda_status.h"

namespace dissect {
namespace {

constexpr uint64_t kChainSeed = 0x5eed;

struct PathName {
  ChasePath path;
  const char* name;
};

constexpr PathName kPaths[] = {
    {ChasePath::kShared, "shared"},
    {ChasePath::kGlobalCa, "global_ca"},
    {ChasePath::kGlobalCg, "global_cg"},
    {ChasePath::kLdg, "ldg"},
    {ChasePath::kTex, "tex"},
    {ChasePath::kConst, "const"},
};

}  // namespace

std::vector<std::string> ChasePathNames() {
  std::vector<std::string> names;
  for (const PathName& p : kPaths) names.emplace_back(p.name);
  return names;
}

absl::StatusOr<ChasePath> ParseChasePath(absl::string_view name) {
  for (const PathName& p : kPaths) {
    if (name == p.name) return p.path;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown path '", name, "' (paths: ", absl::StrJoin(ChasePathNames(), ", "), ")"));
}

absl::StatusOr<DeviceChain> DeviceChain::Create(const DeviceInfo& device, ChasePath path,
                                                int64_t footprint_bytes, int64_t stride_bytes,
                                                ChainOrder order, size_t reserved_shared_bytes,
                                                cudaStream_t stream, int64_t group_pages) {
  if (path == ChasePath::kShared && footprint_bytes + static_cast<int64_t>(reserved_shared_bytes) >
                                        device.shared_per_block_optin_bytes) {
    return Skipped(absl::StrCat("footprint ", footprint_bytes, " B (+", reserved_shared_bytes,
                                " B the kernel uses itself) exceeds the ",
                                device.shared_per_block_optin_bytes,
                                " B of shared memory a block may use"));
  }
  if (path == ChasePath::kConst && footprint_bytes > static_cast<int64_t>(kConstChainBytes)) {
    return Skipped(absl::StrCat("footprint ", footprint_bytes, " B exceeds the ", kConstChainBytes,
                                " B constant bank"));
  }
  if (path == ChasePath::kTex) {
    int max_width = 0;
    DISSECT_CUDA_RETURN_IF_ERROR(
        cudaDeviceGetAttribute(&max_width, cudaDevAttrMaxTexture1DLinearWidth, device.index));
    if (footprint_bytes / 4 > max_width) {
      return Skipped(absl::StrCat("footprint ", footprint_bytes,
                                  " B exceeds the 1-D linear texture limit of ", max_width,
                                  " elements"));
    }
  }
  DeviceChain chain;
  chain.path_ = path;
  DISSECT_ASSIGN_OR_RETURN(chain.words_,
                           BuildChain(footprint_bytes, stride_bytes, order, kChainSeed, group_pages));
  chain.slots_ = static_cast<uint64_t>(footprint_bytes / stride_bytes);
  DISSECT_ASSIGN_OR_RETURN(chain.device_, DeviceBuffer<uint32_t>::Allocate(chain.words_.size()));
  // What the path reads: 64-bit device addresses on the global paths, byte
  // offsets on shared and const, word indices on tex.
  std::vector<uint64_t> pointers;
  std::vector<uint32_t> offsets;
  const void* stored = nullptr;
  if (ChasesPointers(path)) {
    DISSECT_ASSIGN_OR_RETURN(pointers, ChainAsPointers(chain.words_, stride_bytes, chain.Base()));
    stored = pointers.data();
  } else {
    offsets = chain.words_;
    if (path != ChasePath::kTex) {
      for (uint32_t& w : offsets) w *= static_cast<uint32_t>(sizeof(uint32_t));
    }
    stored = offsets.data();
  }
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(chain.device_.get(), stored, chain.device_.bytes(),
                                               cudaMemcpyHostToDevice, stream));
  if (path == ChasePath::kConst) {
    DISSECT_CUDA_RETURN_IF_ERROR(CopyChainToConstant(offsets.data(), offsets.size(), stream));
  }
  if (path == ChasePath::kTex) {
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeLinear;
    resource.res.linear.devPtr = chain.device_.get();
    resource.res.linear.desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindUnsigned);
    resource.res.linear.sizeInBytes = chain.device_.bytes();
    cudaTextureDesc texture{};
    texture.readMode = cudaReadModeElementType;
    DISSECT_CUDA_RETURN_IF_ERROR(
        cudaCreateTextureObject(&chain.texture_, &resource, &texture, nullptr));
  }
  // The copies read `pointers` or `offsets`, which die here.
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  return chain;
}

DeviceChain::DeviceChain(DeviceChain&& other) noexcept
    : path_(other.path_),
      words_(std::move(other.words_)),
      device_(std::move(other.device_)),
      texture_(std::exchange(other.texture_, 0)),
      slots_(other.slots_) {}

DeviceChain::~DeviceChain() {
  if (texture_ != 0) cudaDestroyTextureObject(texture_);
}

uint64_t DeviceChain::Base() const { return reinterpret_cast<uint64_t>(device_.get()); }

ChaseArgs DeviceChain::Args() const {
  ChaseArgs a;
  a.path = path_;
  a.chain = device_.get();
  a.chain_bytes = device_.bytes();
  a.texture = texture_;
  return a;
}

uint64_t DeviceChain::ValueAfter(uint64_t loads) const {
  const uint64_t word = WalkChain(words_, loads % slots_);
  if (ChasesPointers(path_)) return Base() + word * sizeof(uint32_t);
  return path_ == ChasePath::kTex ? word : word * sizeof(uint32_t);
}

uint64_t DeviceChain::ByteAddress(uint64_t value) const {
  if (ChasesPointers(path_)) return value - Base();
  return path_ == ChasePath::kTex ? value * sizeof(uint32_t) : value;
}

std::vector<MetricSpec> ChaseLatencyMetrics() {
  return {
      {"cycles_per_load", "cycles/load", "slope of %clock64 cycles over the two segments' loads"},
      {"overhead_cycles", "cycles", "intercept of that fit: the fixed cost of one timed segment"},
      {"ns_per_load", "ns/load", "cycles_per_load at clock_mhz"},
      {"clock_mhz", "MHz", "SM clock: %clock64 / %globaltimer over the segments, else NVML"},
      {"clock_source", "-",
       "0: in-kernel timers; 1: NVML SM clock (the chase ran < 50 us); 2: the rated maximum "
       "clock (no measurement)"},
  };
}

absl::Status ValidateChasePoint(const Point& point) {
  const int64_t stride = point.Int("stride_bytes");
  DISSECT_RETURN_IF_ERROR(ValidateChainGeometry(point.Int("footprint_bytes"), stride));
  const std::string* order = nullptr;
  for (const auto& [name, value] : point.values()) {
    if (name == "order") order = std::get_if<std::string>(&value);
  }
  for (const auto& [name, value] : point.values()) {
    if (name == "loads" && (point.Int("loads") < 1 || point.Int("loads") % kChaseUnroll != 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "loads must be a positive multiple of ", kChaseUnroll, " (got ", point.Int("loads"),
          "): the timed loop chases ", kChaseUnroll, " loads a trip"));
    }
    if (name == "group_pages" && point.Int("group_pages") < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("group_pages must be >= 1 (got ", point.Int("group_pages"), ")"));
    }
    // Other orders ignore it: a row must not claim a TLB working set it
    // did not have.
    if (name == "group_pages" && point.Int("group_pages") != 1 &&
        (order == nullptr || *order != "page_local")) {
      return absl::InvalidArgumentError(
          absl::StrCat("group_pages (", point.Int("group_pages"),
                       ") applies to order=page_local only, not order=",
                       order == nullptr ? "(none)" : *order));
    }
    if (name == "path") {
      DISSECT_ASSIGN_OR_RETURN(const ChasePath path, ParseChasePath(point.Str("path")));
      if (stride % ChainWordBytes(path) != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "stride_bytes (", stride, ") must be a multiple of ", ChainWordBytes(path), " on path ",
            point.Str("path"), ": its chain holds ", ChainWordBytes(path), "-byte words"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> TraceWarmupLoads(uint64_t slots, bool warm) {
  if (!warm) return 0;
  if (slots > kMaxWarmupLoads) {
    return Skipped(absl::StrCat("a warm trace needs one full lap of warm-up; ", slots,
                                " slots exceed ", kMaxWarmupLoads));
  }
  return slots;
}

uint64_t ChaseLoadsPerLaunch(uint64_t timed_loads) {
  uint64_t loads = 0;
  for (int s = 0; s < kChaseSegments; ++s) loads += timed_loads << s;
  return loads;
}

absl::StatusOr<ChaseLatencySamples> ReduceChaseTimings(const std::vector<ChaseTiming>& timings,
                                                       uint64_t timed_loads,
                                                       std::optional<double> nvml_mhz,
                                                       double rated_mhz) {
  if (timings.empty() || timed_loads == 0) {
    return absl::InvalidArgumentError("no chase timings to reduce");
  }
  ChaseLatencySamples out;
  std::vector<std::optional<double>> launch_mhz;
  for (const ChaseTiming& t : timings) {
    // Least squares over the segments (x: loads, y: cycles).
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int s = 0; s < kChaseSegments; ++s) {
      const double x = static_cast<double>(timed_loads << s);
      const double y = static_cast<double>(t.cycles[s]);
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    const double n = kChaseSegments;
    const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    out.cycles_per_load.push_back(slope);
    out.overhead_cycles.push_back((sy - slope * sx) / n);
    launch_mhz.push_back(t.span_ns >= kMinClockSpanNs
                             ? std::optional<double>(1e3 * static_cast<double>(t.span_cycles) /
                                                     static_cast<double>(t.span_ns))
                             : std::nullopt);
    if (launch_mhz.back()) out.clock_mhz.push_back(*launch_mhz.back());
  }
  if (out.clock_mhz.empty()) {
    out.clock_source =
        nvml_mhz && *nvml_mhz > 0 ? ChaseClockSource::kNvml : ChaseClockSource::kRated;
    out.clock_mhz.push_back(out.clock_source == ChaseClockSource::kNvml ? *nvml_mhz : rated_mhz);
  }
  std::vector<double> sorted = out.clock_mhz;
  std::sort(sorted.begin(), sorted.end());
  const double median_mhz = sorted[sorted.size() / 2];
  for (size_t i = 0; i < timings.size(); ++i) {
    const double mhz = launch_mhz[i].value_or(median_mhz);
    out.ns_per_load.push_back(mhz > 0 ? out.cycles_per_load[i] * 1e3 / mhz : 0);
  }
  return out;
}

absl::Status MeasureChaseLatency(PointContext& ctx, ChasePath path, int64_t footprint_bytes,
                                 int64_t stride_bytes, ChainOrder order, uint64_t timed_loads,
                                 int64_t group_pages) {
  DISSECT_ASSIGN_OR_RETURN(
      DeviceChain chain, DeviceChain::Create(ctx.device(), path, footprint_bytes, stride_bytes,
                                             order, kChaseSharedBytes, ctx.stream(), group_pages));
  const int launches = ctx.timing().warmup + ctx.timing().samples;
  // One record per timed launch plus a scratch one for counter passes.
  DISSECT_ASSIGN_OR_RETURN(auto d_out, DeviceBuffer<ChaseTiming>::Allocate(ctx.LaunchSlots()));
  ChaseArgs args = chain.Args();
  args.warmup_loads = std::min(chain.slots(), kMaxWarmupLoads);
  args.timed_loads = timed_loads;
  // Once per point, before anything is timed: the launches only launch.
  DISSECT_CUDA_RETURN_IF_ERROR(PrepareChase(args));
  int launch = 0;
  DISSECT_RETURN_IF_ERROR(ctx.TimeKernel(
                                 [&](cudaStream_t stream) {
                                   args.out = d_out.get() + ctx.LaunchSlot(launch++);
                                   return LaunchChase(args, stream);
                                 },
                                 CacheState::kHot)
                              .status());
  std::vector<ChaseTiming> results(launches);
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpy(results.data(), d_out.get(),
                                          launches * sizeof(ChaseTiming), cudaMemcpyDeviceToHost));
  // The chase must really have happened: its end point is known.
  const uint64_t expected = chain.ValueAfter(args.warmup_loads + ChaseLoadsPerLaunch(timed_loads));
  for (int i = ctx.timing().warmup; i < launches; ++i) {
    if (results[i].sink != expected) {
      return absl::InternalError(absl::StrCat("launch ", i, " ended the chase at ", results[i].sink,
                                              ", expected ", expected));
    }
  }
  results.erase(results.begin(), results.begin() + ctx.timing().warmup);
  DISSECT_ASSIGN_OR_RETURN(
      ChaseLatencySamples samples,
      ReduceChaseTimings(results, timed_loads, ctx.SmClockMhz(),
                         static_cast<double>(ctx.device().sm_clock_max_khz) / 1e3));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("cycles_per_load", std::move(samples.cycles_per_load)));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("overhead_cycles", std::move(samples.overhead_cycles)));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("ns_per_load", std::move(samples.ns_per_load)));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("clock_mhz", std::move(samples.clock_mhz)));
  return ctx.AddSamples("clock_source",
                        std::vector<double>(1, static_cast<double>(samples.clock_source)));
}

}  // namespace dissect
