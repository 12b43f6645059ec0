// The l2_sm_map method as data; see l2_map_plan.h.
#include "experiments/sharing/l2_map/l2_map_plan.h"

#include <algorithm>
#include <cstddef>

#include "experiments/sharing/l2_map/l2_map_host.h"
#include "experiments/sharing/l2_map/l2_partitions.h"

namespace dissect {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

L2MapPlan MakeL2MapPlan(int lines, int laps, uint64_t l2_bytes, int sweep_percent) {
  L2MapPlan plan;
  plan.line_offsets = L2MapLineOffsets(lines, kL2MapPageBytes);
  plan.laps = laps;
  const uint64_t bytes = l2_bytes / 100 * static_cast<uint64_t>(sweep_percent);
  plan.sweep_bytes = bytes / kL2MapSweepGrainBytes * kL2MapSweepGrainBytes;
  return plan;
}

std::vector<L2MapAccess> L2MapAccesses(const L2MapPlan& plan, uint64_t lines_base,
                                       uint64_t sweep_base) {
  std::vector<L2MapAccess> out;
  for (int lap = 0; lap < plan.laps; ++lap) {
    for (uint64_t b = 0; b < plan.sweep_bytes; b += kL2MapSectorBytes) {
      L2MapAccess a;
      a.address = sweep_base + b;
      out.push_back(a);
    }
    for (size_t i = 0; i < plan.line_offsets.size(); ++i) {
      L2MapAccess a;
      a.lap = lap;
      a.line = static_cast<int>(i);
      a.address = lines_base + plan.line_offsets[i];
      a.load = L2MapLoad::kFirstTouch;
      out.push_back(a);
      a.address += kL2MapRetouchOffset;
      a.load = L2MapLoad::kRetouch;
      out.push_back(a);
    }
  }
  return out;
}

std::vector<unsigned long long> L2MapRingImage(uint64_t base, const std::vector<uint64_t>& offsets,
                                               uint64_t words) {
  std::vector<unsigned long long> image(words, 0);
  for (size_t i = 0; i < offsets.size(); ++i) {
    const uint64_t next = base + offsets[(i + 1) % offsets.size()];
    for (uint64_t word : {offsets[i] / 8, (offsets[i] + kL2MapRetouchOffset) / 8}) {
      if (word < words) image[word] = next;
    }
  }
  return image;
}

L2MapLineCycles ReduceL2MapLaps(const L2MapLapCycles& raw, int lines, int laps) {
  L2MapLineCycles out;
  const size_t n = static_cast<size_t>(lines) * static_cast<size_t>(laps);
  if (lines < 1 || laps < 1 || raw.empty.size() != n || raw.first_touch.size() != n ||
      raw.retouch.size() != n) {
    return out;
  }
  for (int line = 0; line < lines; ++line) {
    std::vector<double> first;
    std::vector<double> again;
    for (int lap = 0; lap < laps; ++lap) {
      const size_t k = static_cast<size_t>(lap) * lines + line;
      first.push_back(raw.first_touch[k] - raw.empty[k]);
      again.push_back(raw.retouch[k] - raw.empty[k]);
    }
    out.first_touch.push_back(Median(first));
    out.retouch.push_back(Median(again));
  }
  return out;
}

}  // namespace dissect
