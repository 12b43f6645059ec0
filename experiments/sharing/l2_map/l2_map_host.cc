// Host side of l2_sm_map; see l2_map_host.h.
#include "experiments/sharing/l2_map/l2_map_host.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "kernels/l2_map/l2_map.h"

namespace dissect {

absl::Status ValidateL2MapAxes(int64_t lines, int64_t hops, int64_t sm_stride) {
  if (lines < 1 || lines > kL2MapMaxLines) {
    return absl::InvalidArgumentError(
        absl::StrCat("lines must be in 1..", kL2MapMaxLines, " (got ", lines, ")"));
  }
  if (hops < 1 || hops % kL2MapUnroll != 0 || hops > kL2MapMaxHops) {
    return absl::InvalidArgumentError(
        absl::StrCat("hops must be a positive multiple of ", kL2MapUnroll, " up to ", kL2MapMaxHops,
                     " (got ", hops, "): the timed loop chases ", kL2MapUnroll, " loads a trip"));
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

std::vector<unsigned long long> SelfPointingImage(uint64_t base,
                                                  const std::vector<uint64_t>& offsets,
                                                  uint64_t words) {
  std::vector<unsigned long long> image(words, 0);
  for (uint64_t offset : offsets) {
    if (offset / 8 < words) image[offset / 8] = base + offset;
  }
  return image;
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
