#include "experiments/framework/l2_residency.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace dissect {

bool BeyondTwiceL2(double working_set_bytes, int64_t l2_bytes) {
  return l2_bytes > 0 && working_set_bytes >= 2.0 * static_cast<double>(l2_bytes);
}

MetricSpec Beyond2xL2Metric() {
  return {kBeyond2xL2Metric, "-",
          "1 when the working set is >= 2 x device_l2_bytes (its traffic may be read as "
          "DRAM's), else 0: L2-resident, dram_peak_pct NaN"};
}

std::vector<MetricSpec> L2ResidencyMetrics(absl::string_view working_set_help) {
  return {{kWorkingSetBytesMetric, "B", std::string(working_set_help)}, Beyond2xL2Metric()};
}

absl::StatusOr<bool> AddL2Residency(PointContext& ctx, double working_set_bytes,
                                    absl::string_view working_set_metric) {
  const int64_t l2 = ctx.device().l2_bytes;
  const bool dram = BeyondTwiceL2(working_set_bytes, l2);
  if (auto s = ctx.AddSamples(working_set_metric, {working_set_bytes}); !s.ok()) return s;
  if (auto s = ctx.AddSamples(kBeyond2xL2Metric, {dram ? 1.0 : 0.0}); !s.ok()) return s;
  if (!dram) {
    ctx.AddNote(absl::StrCat("L2-resident: working set ", static_cast<int64_t>(working_set_bytes),
                             " B below 2 x the ", l2, " B L2, no % of the DRAM peak"));
  }
  return dram;
}

absl::Status AddDramPeakPct(PointContext& ctx, const std::vector<double>& gbps,
                            double working_set_bytes, absl::string_view working_set_metric) {
  const absl::StatusOr<bool> dram = AddL2Residency(ctx, working_set_bytes, working_set_metric);
  if (!dram.ok()) return dram.status();
  const double peak = ctx.device().DramPeakGbps();
  std::vector<double> pct;
  for (double g : gbps) pct.push_back(*dram && peak > 0 ? 100.0 * g / peak : std::nan(""));
  return ctx.AddSamples(kDramPeakPctMetric, std::move(pct));
}

}  // namespace dissect
