// See probe_timing.h.
#include "experiments/tensor/probe_timing.h"

#include <algorithm>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "probes/stats.h"

namespace dissect {

bool AllBuilt(absl::Span<const TensorTiming> records) {
  return std::all_of(records.begin(), records.end(),
                     [](const TensorTiming& t) { return t.built == 1; });
}

absl::StatusOr<double> CyclesPerInstruction(absl::Span<const TensorTiming> records,
                                            int64_t per_record) {
  struct Span {
    unsigned long long start = ~0ull;
    unsigned long long stop = 0;
    int64_t records = 0;
  };
  if (records.empty() || per_record < 1) {
    return absl::InvalidArgumentError("no records or no instructions per record");
  }
  std::map<uint32_t, Span> per_sm;
  for (size_t i = 0; i < records.size(); ++i) {
    const TensorTiming& t = records[i];
    if (t.stop <= t.start) {
      return absl::InternalError(absl::StrCat("record ", i, ": %clock64 did not advance"));
    }
    Span& s = per_sm[t.smid];
    s.start = std::min(s.start, t.start);
    s.stop = std::max(s.stop, t.stop);
    ++s.records;
  }
  std::vector<double> cpi;
  for (const auto& [smid, s] : per_sm) {
    cpi.push_back(static_cast<double>(s.stop - s.start) /
                  static_cast<double>(s.records * per_record));
  }
  absl::StatusOr<Summary> summary = Summarize(cpi);
  if (!summary.ok()) return summary.status();
  return summary->median;
}

}  // namespace dissect
