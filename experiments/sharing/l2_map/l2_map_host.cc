// Host side of l2_sm_map; see l2_map_host.h.
#include "experiments/sharing/l2_map/l2_map_host.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace dissect {

absl::Status ValidateL2MapAxes(int64_t lines, int64_t laps, int64_t sweep_percent,
                               int64_t sm_stride) {
  if (lines < 1 || lines > kL2MapMaxLines) {
    return absl::InvalidArgumentError(
        absl::StrCat("lines must be in 1..", kL2MapMaxLines, " (got ", lines, ")"));
  }
  if (laps < 1 || laps > kL2MapMaxLaps) {
    return absl::InvalidArgumentError(
        absl::StrCat("laps must be in 1..", kL2MapMaxLaps, " (got ", laps, ")"));
  }
  if (sweep_percent < kL2MapMinSweepPercent || sweep_percent > kL2MapMaxSweepPercent) {
    return absl::InvalidArgumentError(
        absl::StrCat("sweep_percent must be in ", kL2MapMinSweepPercent, "..",
                     kL2MapMaxSweepPercent, " (got ", sweep_percent,
                     "): the sweep must outgrow one L2 partition (half the L2) "
                     "and leave room for the lines' homes"));
  }
  if (sm_stride < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("sm_stride must be at least 1 (got ", sm_stride, ")"));
  }
  return absl::OkStatus();
}

std::vector<int> L2MapTargetSms(int sm_count, int64_t sm_stride) {
  std::vector<int> sms;
  if (sm_stride < 1) return sms;
  for (int64_t s = 0; s < sm_count; s += sm_stride) sms.push_back(static_cast<int>(s));
  return sms;
}

double MeanFinite(const std::vector<std::vector<double>>& rows) {
  double sum = 0;
  int n = 0;
  for (const std::vector<double>& row : rows) {
    for (double v : row) {
      if (!std::isfinite(v)) continue;
      sum += v;
      ++n;
    }
  }
  return n == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / n;
}

std::string L2MapRetouchNote(double near_cycles, double retouch_cycles) {
  if (!std::isfinite(near_cycles) || !std::isfinite(retouch_cycles)) return "";
  if (near_cycles - retouch_cycles <= kL2MapRetouchToleranceCycles) return "";
  return absl::StrCat("near first touches (", absl::SixDigits(near_cycles),
                      " cycles) are far above the re-touches (", absl::SixDigits(retouch_cycles),
                      "): not near L2 hits; the sweep may have pushed the lines out of L2, so "
                      "near and far may be DRAM and far L2");
}

std::vector<double> Flatten(const std::vector<std::vector<double>>& rows) {
  std::vector<double> out;
  for (const std::vector<double>& row : rows) out.insert(out.end(), row.begin(), row.end());
  return out;
}

L2MapVectors MapVectors(const L2PartitionMap& map) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  L2MapVectors v;
  v.partition_of_line.assign(map.partition_of_line.begin(), map.partition_of_line.end());
  v.sm_partition_cycles = Flatten(map.sm_partition_cycles);
  for (int p : map.near_partition_of_sm) v.near_partition_of_sm.push_back(p < 0 ? kNaN : p);
  return v;
}

}  // namespace dissect
