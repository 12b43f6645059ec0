#include "experiments/sharing/coop/coop_host.h"

#include <algorithm>
#include <cstddef>
#include <limits>

#include "absl/strings/str_cat.h"
#include "experiments/framework/experiment.h"
#include "kernels/coop/coop_tiling.h"
#include "probes/cuda_status.h"
#include "probes/stats.h"

namespace dissect::coop {

std::vector<std::string> CoopKernelNames() { return {"conv3x3", "gemv"}; }

absl::StatusOr<CoopKernel> ParseCoopKernel(absl::string_view name) {
  if (name == "conv3x3") return CoopKernel::kConv3x3;
  if (name == "gemv") return CoopKernel::kGemv;
  return absl::InvalidArgumentError(absl::StrCat("unknown kernel '", name, "' (conv3x3 or gemv)"));
}

layers::LayerKernel LayerKernelOf(CoopKernel kernel) {
  return kernel == CoopKernel::kConv3x3 ? layers::LayerKernel::kConv : layers::LayerKernel::kGemv;
}

int64_t CoopStaticSharedBytes(CoopKernel kernel) {
  return kernel == CoopKernel::kConv3x3 ? kConvStaticSharedBytes : kGemvStaticSharedBytes;
}

absl::StatusOr<size_t> CoopLaunchSharedBytes(const SmSharedMemory& sm) {
  // The kernels keep no buffer in dynamic shared memory: all of it is padding.
  DISSECT_ASSIGN_OR_RETURN(const int64_t shared, OneBlockPerSmSharedBytes(sm, 0));
  return static_cast<size_t>(shared);
}

absl::StatusOr<double> ClusterSameSmFraction(const std::vector<int>& block_sm, int cluster_size) {
  const size_t size = static_cast<size_t>(std::max(cluster_size, 1));
  if (block_sm.empty() || cluster_size < 1 || block_sm.size() % size != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(block_sm.size(), " blocks in clusters of ", cluster_size));
  }
  if (const auto it = std::find_if(block_sm.begin(), block_sm.end(), [](int sm) { return sm < 0; });
      it != block_sm.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("block ", it - block_sm.begin(), " recorded no SM"));
  }
  size_t shared = 0;
  for (size_t first = 0; first < block_sm.size(); first += size) {
    const auto begin = block_sm.begin() + static_cast<std::ptrdiff_t>(first);
    const auto end = begin + static_cast<std::ptrdiff_t>(size);
    for (auto b = begin; b != end; ++b) {
      if (std::count(begin, end, *b) > 1) ++shared;
    }
  }
  return static_cast<double>(shared) / static_cast<double>(block_sm.size());
}

std::vector<std::string> VariantNames() { return {kVariantLayer, kVariantTiled, kVariantCoop}; }

std::string NotApplicable(CoopKernel kernel, const l1_bypass::LayerShape& layer) {
  using l1_bypass::LayerType;
  if (kernel == CoopKernel::kGemv) {
    return layer.type == LayerType::kFc
               ? ""
               : absl::StrCat("gemv runs fc layers; ", layer.name, " is not one");
  }
  if (layer.type != LayerType::kConv) {
    return absl::StrCat("conv3x3 runs conv layers; ", layer.name, " is not one");
  }
  if (layer.r != 3 || layer.s != 3 || layer.stride != 1 || layer.pad != 1) {
    return absl::StrCat("conv3x3 runs 3 x 3 windows at stride 1 and padding 1; ", layer.name,
                        " has ", layer.r, " x ", layer.s, ", stride ", layer.stride, ", padding ",
                        layer.pad);
  }
  return "";
}

CoopDims CoopDimsOf(const layers::LayerDims& d) {
  CoopDims c;
  c.n = d.n;
  c.c = d.c;
  c.h = d.h;
  c.w = d.w;
  c.k = d.k;
  return c;
}

absl::Status ValidatePoint(int64_t batch, int64_t cluster_size) {
  if (batch < 1 || batch > kMaxBatch) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch must be in 1..", kMaxBatch, " (got ", batch, ")"));
  }
  if (cluster_size < 1 || (cluster_size & (cluster_size - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cluster_size must be a power of two >= 1 (got ", cluster_size, ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckVariantClusterSize(absl::string_view variant, int64_t cluster_size) {
  if (variant == kVariantCoop || cluster_size == 1) return absl::OkStatus();
  return Skipped(absl::StrCat(variant, " does not use clusters"));
}

absl::StatusOr<Speedup> SpeedupOver(const std::vector<double>& layer_ms,
                                    const std::vector<double>& row_ms) {
  if (layer_ms.empty() || row_ms.empty()) {
    return absl::InvalidArgumentError("speedup: no samples");
  }
  for (const auto* v : {&layer_ms, &row_ms}) {
    if (*std::min_element(v->begin(), v->end()) <= 0) {
      return absl::InvalidArgumentError("speedup: a sample is not positive");
    }
  }
  absl::StatusOr<Summary> layer = Summarize(layer_ms);
  if (!layer.ok()) return layer.status();
  absl::StatusOr<Summary> row = Summarize(row_ms);
  if (!row.ok()) return row.status();
  Speedup s;
  s.ratio = layer->median / row->median;
  const double lo = layer->min / row->max, hi = layer->max / row->min;
  s.spread = (hi - lo) / s.ratio;
  return s;
}

std::vector<MetricSpec> CoopMetrics() {
  return {
      {"speedup_vs_layer", "x",
       "median time of the layer kernel (same shape, same process) / this row's"},
      {"speedup_spread", "fraction",
       "(max - min) / speedup_vs_layer of the ratio from both rows' min/max samples"},
      {"lines_touched", "lines",
       "distinct 128-byte lines of input and weights that one traced launch loaded"},
      {"replication", "x", "sum over SMs of the lines each loaded / lines_touched"},
      {"duplicated_fraction", "fraction",
       "1 - lines_touched / that sum: the share of SM line loads another SM also made"},
      {"max_active_clusters", "clusters",
       "cudaOccupancyMaxActiveClusters of the coop kernel; 0 for layer and tiled"},
      {"peer_same_sm_fraction", "fraction",
       "coop: blocks of the traced launch on the SM of another rank of their cluster "
       "(%smid); 0 expected, as the padding keeps blocks apart. NaN (no peer) for layer, "
       "tiled and clusters of 1"},
      {"blocks_per_sm", "blocks",
       "blocks resident on one SM at once: 1 for tiled and coop (padded so that ranks "
       "of a cluster never share an SM), the layer kernel's full occupancy for layer"},
  };
}

std::string NoPeerReason(absl::string_view variant, int cluster_size) {
  if (variant != kVariantCoop) return absl::StrCat(variant, " launches no cluster");
  if (cluster_size == 1) return "a cluster of 1 block has no peer";
  return "";
}

absl::Status ReportCoopRow(PointContext& ctx, const CoopRowFigures& row) {
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("speedup_vs_layer", {row.speedup.ratio}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("speedup_spread", {row.speedup.spread}));
  DISSECT_RETURN_IF_ERROR(
      ctx.AddSamples("max_active_clusters", {static_cast<double>(row.max_active_clusters)}));
  DISSECT_RETURN_IF_ERROR(
      ctx.AddSamples("blocks_per_sm", {static_cast<double>(row.blocks_per_sm)}));
  DISSECT_RETURN_IF_ERROR(
      ctx.AddSamples("lines_touched", {static_cast<double>(row.lines.lines_touched)}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("replication", {row.lines.replication}));
  DISSECT_RETURN_IF_ERROR(
      ctx.AddSamples("duplicated_fraction", {row.lines.duplicated_fraction}));
  // Without a peer the fraction means nothing: NaN (the harness writes a
  // metric of NaN samples only as NaN), and the label says why.
  if (const std::string why = NoPeerReason(row.variant, row.cluster_size); !why.empty()) {
    ctx.AddNote(absl::StrCat("peer_same_sm_fraction NaN: ", why));
    return ctx.AddSamples("peer_same_sm_fraction", {std::numeric_limits<double>::quiet_NaN()});
  }
  DISSECT_ASSIGN_OR_RETURN(const double same_sm,
                           ClusterSameSmFraction(row.block_sm, row.cluster_size));
  if (same_sm > 0) {
    ctx.AddNote(absl::StrCat("a fraction ", same_sm,
                             " of the traced launch's blocks shared an SM with a rank of their "
                             "cluster: their tile did not cross the SM-to-SM network"));
  }
  return ctx.AddSamples("peer_same_sm_fraction", {same_sm});
}

}  // namespace dissect::coop
