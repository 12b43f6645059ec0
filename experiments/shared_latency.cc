// Question: what is the load-to-use latency of shared memory on this GPU?
// Timed:    one thread of one block chases a chain of dependent 32-bit loads
//           (ld.shared) through dynamic shared memory; %clock64 and
//           %globaltimer are read in-kernel around the timed loads, so launch
//           overhead is excluded. Events time each launch for the row's time.
// Expected: flat across footprint, stride and order (shared memory is not a
//           cache: no capacity or line effects); a few tens of cycles on
//           Volta through Hopper (about 30 on H100). Points whose footprint
//           exceeds the per-block opt-in shared memory are skipped.
#include "absl/strings/str_cat.h"
#include "experiments/harness/experiment.h"
#include "kernels/pointer_chase.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"
#include "probes/pointer_chain.h"

namespace dissect {
namespace {

constexpr uint64_t kChainSeed = 0x5eed;

absl::Status Validate(const Point& p) {
  DISSECT_RETURN_IF_ERROR(
      ValidateChainGeometry(p.Int("footprint_bytes"), p.Int("stride_bytes")));
  if (p.Int("loads") < 1) return absl::InvalidArgumentError("loads must be >= 1");
  return absl::OkStatus();
}

absl::Status Run(PointContext& ctx) {
  const int64_t footprint = ctx.Int("footprint_bytes");
  const int64_t stride = ctx.Int("stride_bytes");
  if (footprint > ctx.device().shared_per_block_optin_bytes) {
    return Skipped(absl::StrCat("footprint ", footprint, " B exceeds the ",
                                ctx.device().shared_per_block_optin_bytes,
                                " B of shared memory a block may use"));
  }
  DISSECT_ASSIGN_OR_RETURN(const ChainOrder order, ParseChainOrder(ctx.Str("order")));
  DISSECT_ASSIGN_OR_RETURN(std::vector<uint32_t> chain,
                           BuildChain(footprint, stride, order, kChainSeed));
  DISSECT_ASSIGN_OR_RETURN(auto d_chain, DeviceBuffer<uint32_t>::Allocate(chain.size()));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpy(d_chain.get(), chain.data(), d_chain.bytes(),
                                          cudaMemcpyHostToDevice));
  // One result slot per launch (warm-up launches included).
  const int launches = ctx.timing().warmup + ctx.timing().samples;
  DISSECT_ASSIGN_OR_RETURN(auto d_out, DeviceBuffer<ChaseTiming>::Allocate(launches));
  SharedChaseArgs args;
  args.chain = d_chain.get();
  args.words = static_cast<uint32_t>(chain.size());
  args.warmup_loads = chain.size() / (stride / 4);  // one lap of the chain
  args.timed_loads = static_cast<uint64_t>(ctx.Int("loads"));
  int launch = 0;
  DISSECT_RETURN_IF_ERROR(ctx.TimeKernel(
                              [&](cudaStream_t stream) {
                                args.out = d_out.get() + launch++;
                                return LaunchSharedChase(args, stream);
                              },
                              CacheState::kHot)
                              .status());
  std::vector<ChaseTiming> results(launches);
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpy(results.data(), d_out.get(), d_out.bytes(),
                                          cudaMemcpyDeviceToHost));
  // The chase must have really happened: its end point is known.
  const uint32_t expected = WalkChain(chain, args.warmup_loads + args.timed_loads);
  std::vector<double> cycles, ns, mhz;
  for (int i = ctx.timing().warmup; i < launches; ++i) {
    const ChaseTiming& r = results[i];
    if (r.sink != expected) {
      return absl::InternalError(absl::StrCat("launch ", i, " ended the chase at word ",
                                              r.sink, ", expected ", expected));
    }
    cycles.push_back(static_cast<double>(r.cycles) / args.timed_loads);
    ns.push_back(static_cast<double>(r.nanoseconds) / args.timed_loads);
    if (r.nanoseconds > 0) mhz.push_back(1e3 * r.cycles / r.nanoseconds);
  }
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("cycles_per_load", std::move(cycles)));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("ns_per_load", std::move(ns)));
  return ctx.AddSamples("clock_mhz", std::move(mhz));
}

DISSECT_EXPERIMENT(shared_latency)
    .Question("What is the load-to-use latency of shared memory?")
    .AddAxis(IntAxis("footprint_bytes", "B", {4 << 10, 32 << 10, 128 << 10},
                     "bytes the chain spans in shared memory"))
    .AddAxis(IntAxis("stride_bytes", "B", {4, 128}, "distance between chain slots"))
    .AddAxis(StringAxis("order", {"strided", "random"}, {},
                        "slot visiting order: address order or a random cycle"))
    .AddAxis(IntAxis("loads", "loads", {1 << 18}, "timed dependent loads per launch"))
    .AddMetric("cycles_per_load", "cycles/load", "%clock64 delta / timed loads")
    .AddMetric("ns_per_load", "ns/load", "%globaltimer delta / timed loads")
    .AddMetric("clock_mhz", "MHz", "SM clock implied by the two timers")
    .Validate(Validate)
    .Run(Run);

}  // namespace
}  // namespace dissect
