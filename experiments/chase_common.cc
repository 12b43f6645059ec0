// Host side of the pointer-chase experiments; see chase_common.h.
#include "experiments/chase_common.h"

#include <algorithm>
#include <utility>

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
    {ChasePath::kShared, "shared"}, {ChasePath::kGlobalCa, "global_ca"},
    {ChasePath::kGlobalCg, "global_cg"}, {ChasePath::kLdg, "ldg"},
    {ChasePath::kTex, "tex"},       {ChasePath::kConst, "const"},
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
                                                ChainOrder order,
                                                size_t reserved_shared_bytes,
                                                cudaStream_t stream) {
  if (path == ChasePath::kShared &&
      footprint_bytes + static_cast<int64_t>(reserved_shared_bytes) >
          device.shared_per_block_optin_bytes) {
    return Skipped(absl::StrCat("footprint ", footprint_bytes, " B (+", reserved_shared_bytes,
                                " B of trace records) exceeds the ",
                                device.shared_per_block_optin_bytes,
                                " B of shared memory a block may use"));
  }
  if (path == ChasePath::kConst && footprint_bytes > static_cast<int64_t>(kConstChainBytes)) {
    return Skipped(absl::StrCat("footprint ", footprint_bytes, " B exceeds the ",
                                kConstChainBytes, " B constant bank"));
  }
  if (path == ChasePath::kTex) {
    int max_width = 0;
    DISSECT_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(
        &max_width, cudaDevAttrMaxTexture1DLinearWidth, device.index));
    if (footprint_bytes / 4 > max_width) {
      return Skipped(absl::StrCat("footprint ", footprint_bytes,
                                  " B exceeds the 1-D linear texture limit of ", max_width,
                                  " elements"));
    }
  }
  DeviceChain chain;
  chain.path_ = path;
  DISSECT_ASSIGN_OR_RETURN(chain.words_,
                           BuildChain(footprint_bytes, stride_bytes, order, kChainSeed));
  chain.slots_ = static_cast<uint64_t>(footprint_bytes / stride_bytes);
  std::vector<uint32_t> stored = chain.words_;
  if (path != ChasePath::kTex) {
    for (uint32_t& w : stored) w *= static_cast<uint32_t>(sizeof(uint32_t));
  }
  DISSECT_ASSIGN_OR_RETURN(chain.device_, DeviceBuffer<uint32_t>::Allocate(stored.size()));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(chain.device_.get(), stored.data(),
                                               chain.device_.bytes(), cudaMemcpyHostToDevice,
                                               stream));
  if (path == ChasePath::kConst) {
    DISSECT_CUDA_RETURN_IF_ERROR(CopyChainToConstant(stored.data(), stored.size(), stream));
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
  // The copies read `stored`, which dies here.
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

ChaseArgs DeviceChain::Args() const {
  ChaseArgs a;
  a.path = path_;
  a.chain = device_.get();
  a.words = static_cast<uint32_t>(words_.size());
  a.texture = texture_;
  return a;
}

uint32_t DeviceChain::ValueAfter(uint64_t loads) const {
  const uint32_t word = WalkChain(words_, loads % slots_);
  return path_ == ChasePath::kTex ? word : word * static_cast<uint32_t>(sizeof(uint32_t));
}

uint64_t DeviceChain::ByteAddress(uint32_t value) const {
  return path_ == ChasePath::kTex ? uint64_t{value} * sizeof(uint32_t) : value;
}

absl::Status ValidateChasePoint(const Point& point) {
  DISSECT_RETURN_IF_ERROR(
      ValidateChainGeometry(point.Int("footprint_bytes"), point.Int("stride_bytes")));
  for (const auto& [name, value] : point.values()) {
    if (name == "loads" && point.Int("loads") < 1) {
      return absl::InvalidArgumentError("loads must be >= 1");
    }
    // Global, shared and constant chains store 32-bit byte offsets; the
    // texture chain stores element indices.
    if (name == "path" && point.Str("path") != "tex" &&
        point.Int("footprint_bytes") > (int64_t{1} << 32)) {
      return absl::InvalidArgumentError(
          absl::StrCat("footprint_bytes (", point.Int("footprint_bytes"),
                       ") exceeds 4 GiB, the reach of the chain's 32-bit byte offsets"));
    }
  }
  return absl::OkStatus();
}

absl::Status MeasureChaseLatency(PointContext& ctx, ChasePath path, int64_t footprint_bytes,
                                 int64_t stride_bytes, ChainOrder order,
                                 uint64_t timed_loads) {
  DISSECT_ASSIGN_OR_RETURN(DeviceChain chain,
                           DeviceChain::Create(ctx.device(), path, footprint_bytes,
                                               stride_bytes, order, 0, ctx.stream()));
  const int launches = ctx.timing().warmup + ctx.timing().samples;
  // One record per timed launch plus a scratch one for counter passes.
  DISSECT_ASSIGN_OR_RETURN(auto d_out, DeviceBuffer<ChaseTiming>::Allocate(ctx.LaunchSlots()));
  ChaseArgs args = chain.Args();
  args.warmup_loads = std::min(chain.slots(), kMaxWarmupLoads);
  args.timed_loads = timed_loads;
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
                                          launches * sizeof(ChaseTiming),
                                          cudaMemcpyDeviceToHost));
  // The chase must really have happened: its end point is known.
  const uint32_t expected = chain.ValueAfter(args.warmup_loads + args.timed_loads);
  std::vector<double> cycles, ns, mhz;
  for (int i = ctx.timing().warmup; i < launches; ++i) {
    const ChaseTiming& r = results[i];
    if (r.sink != expected) {
      return absl::InternalError(absl::StrCat("launch ", i, " ended the chase at ", r.sink,
                                              ", expected ", expected));
    }
    cycles.push_back(static_cast<double>(r.cycles) / timed_loads);
    ns.push_back(static_cast<double>(r.nanoseconds) / timed_loads);
    if (r.nanoseconds > 0) mhz.push_back(1e3 * r.cycles / r.nanoseconds);
  }
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("cycles_per_load", std::move(cycles)));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("ns_per_load", std::move(ns)));
  return ctx.AddSamples("clock_mhz", std::move(mhz));
}

}  // namespace dissect
