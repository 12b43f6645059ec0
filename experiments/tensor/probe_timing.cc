// See probe_timing.h.
#include "experiments/tensor/probe_timing.h"

#include <algorithm>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "probes/stats.h"

namespace dissect {

namespace {

// One SM's records: the first start and last stop among them.
struct SmSpan {
  unsigned long long start = ~0ull;
  unsigned long long stop = 0;
  int64_t records = 0;
  double cycles() const { return static_cast<double>(stop - start); }
};

absl::StatusOr<std::map<uint32_t, SmSpan>> SpansPerSm(absl::Span<const TensorTiming> records) {
  if (records.empty()) return absl::InvalidArgumentError("no timing records");
  std::map<uint32_t, SmSpan> per_sm;
  for (size_t i = 0; i < records.size(); ++i) {
    const TensorTiming& t = records[i];
    if (t.stop <= t.start) {
      return absl::InternalError(absl::StrCat("record ", i, ": %clock64 did not advance"));
    }
    SmSpan& s = per_sm[t.smid];
    s.start = std::min(s.start, t.start);
    s.stop = std::max(s.stop, t.stop);
    ++s.records;
  }
  return per_sm;
}

}  // namespace

bool AllBuilt(absl::Span<const TensorTiming> records) {
  return std::all_of(records.begin(), records.end(),
                     [](const TensorTiming& t) { return t.built == 1; });
}

absl::StatusOr<double> CyclesPerInstruction(absl::Span<const TensorTiming> records,
                                            int64_t per_record) {
  if (per_record < 1) return absl::InvalidArgumentError("no instructions per record");
  absl::StatusOr<std::map<uint32_t, SmSpan>> per_sm = SpansPerSm(records);
  if (!per_sm.ok()) return per_sm.status();
  std::vector<double> cpi;
  for (const auto& [smid, s] : *per_sm) {
    cpi.push_back(s.cycles() / static_cast<double>(s.records * per_record));
  }
  absl::StatusOr<Summary> summary = Summarize(cpi);
  if (!summary.ok()) return summary.status();
  return summary->median;
}

absl::StatusOr<double> MeasuredSmClockMhz(absl::Span<const TensorTiming> records, double ms) {
  if (!(ms > 0)) return absl::InvalidArgumentError(absl::StrCat("event time ", ms, " ms"));
  absl::StatusOr<std::map<uint32_t, SmSpan>> per_sm = SpansPerSm(records);
  if (!per_sm.ok()) return per_sm.status();
  double longest = 0;
  for (const auto& [smid, s] : *per_sm) longest = std::max(longest, s.cycles());
  return longest / (ms * 1e3);
}

absl::Status AddProbeSamples(PointContext& ctx, absl::Span<const TensorTiming> timing,
                             int per_launch, int64_t per_record, double flops_per_instruction,
                             double flops_per_launch, const std::vector<double>& ms,
                             absl::string_view cycles_metric) {
  std::vector<double> cycles, per_clk, tflops, clock_mhz;
  for (size_t i = 0; i < ms.size(); ++i) {
    const size_t row = (1 + ctx.timing().warmup + i) * static_cast<size_t>(per_launch);
    if (row + per_launch > timing.size()) {
      return absl::InternalError("fewer timing records than timed launches");
    }
    const absl::Span<const TensorTiming> launch = timing.subspan(row, per_launch);
    absl::StatusOr<double> cpi = CyclesPerInstruction(launch, per_record);
    if (!cpi.ok()) return cpi.status();
    absl::StatusOr<double> mhz = MeasuredSmClockMhz(launch, ms[i]);
    if (!mhz.ok()) return mhz.status();
    cycles.push_back(*cpi);
    per_clk.push_back(flops_per_instruction / *cpi);
    tflops.push_back(flops_per_launch / (ms[i] * 1e-3) / 1e12);
    clock_mhz.push_back(*mhz);
  }
  if (absl::Status s = ctx.AddSamples(cycles_metric, std::move(cycles)); !s.ok()) return s;
  if (absl::Status s = ctx.AddSamples("flops_per_clk_per_sm", std::move(per_clk)); !s.ok()) {
    return s;
  }
  if (absl::Status s = ctx.AddSamples("tflops", std::move(tflops)); !s.ok()) return s;
  return ctx.AddSamples("measured_sm_clock_mhz", std::move(clock_mhz));
}

}  // namespace dissect
