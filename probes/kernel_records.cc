// Host-only logic around kernel activity records; see kernel_records.h.
#include "probes/kernel_records.h"

#include <cxxabi.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "probes/stats.h"

namespace dissect {

double KernelRecord::duration_ms() const {
  if (end_ns <= start_ns) return 0;
  return static_cast<double>(end_ns - start_ns) * 1e-6;
}

std::string DemangleKernelName(absl::string_view name) {
  const std::string mangled(name);
  // Only Itanium C++ ABI names; anything else (extern "C" kernels, names
  // CUPTI already demangled) is returned as is.
  if (!absl::StartsWith(mangled, "_Z")) return mangled;
  int status = 0;
  char* demangled =
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) {
    std::free(demangled);
    return mangled;
  }
  std::string out(demangled);
  std::free(demangled);
  return out;
}

void KernelRecordCollector::Add(KernelRecord record) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (record.start_ns == 0 || record.end_ns == 0 ||
      record.end_ns < record.start_ns) {
    ++untimed_;
    return;
  }
  records_.push_back(std::move(record));
}

void KernelRecordCollector::AddDropped(size_t count) {
  std::lock_guard<std::mutex> lock(mutex_);
  dropped_ += count;
}

void KernelRecordCollector::AddError(absl::Status status) {
  if (status.ok()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (error_.ok()) error_ = std::move(status);
}

absl::StatusOr<std::vector<KernelRecord>> KernelRecordCollector::Take() {
  std::vector<KernelRecord> records;
  size_t dropped = 0;
  size_t untimed = 0;
  absl::Status error;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    records.swap(records_);
    std::swap(dropped, dropped_);
    std::swap(untimed, untimed_);
    std::swap(error, error_);
  }
  if (!error.ok()) return error;
  if (dropped > 0 || untimed > 0) {
    std::vector<std::string> problems;
    if (dropped > 0) {
      problems.push_back(
          absl::StrCat("CUPTI dropped ", dropped,
                       " activity record(s) for lack of buffer space"));
    }
    if (untimed > 0) {
      problems.push_back(absl::StrCat(
          untimed,
          " kernel record(s) came without valid timestamps (kernel not "
          "finished at the flush, or no device memory for timing)"));
    }
    return absl::DataLossError(
        absl::StrCat(absl::StrJoin(problems, "; "), "; the ", records.size(),
                     " complete record(s) of this period are discarded"));
  }
  std::stable_sort(records.begin(), records.end(),
                   [](const KernelRecord& a, const KernelRecord& b) {
                     if (a.start_ns != b.start_ns) {
                       return a.start_ns < b.start_ns;
                     }
                     return a.correlation_id < b.correlation_id;
                   });
  return records;
}

void KernelRecordCollector::Reset() {
  std::lock_guard<std::mutex> lock(mutex_);
  records_.clear();
  dropped_ = 0;
  untimed_ = 0;
  error_ = absl::OkStatus();
}

std::vector<KernelRecord> MatchingKernels(
    const std::vector<KernelRecord>& records, absl::string_view name_fragment) {
  std::vector<KernelRecord> out;
  for (const KernelRecord& r : records) {
    if (absl::StrContains(r.name, name_fragment)) out.push_back(r);
  }
  return out;
}

std::vector<double> KernelDurationsMs(const std::vector<KernelRecord>& records,
                                      absl::string_view name_fragment) {
  std::vector<double> out;
  for (const KernelRecord& r : records) {
    if (absl::StrContains(r.name, name_fragment)) {
      out.push_back(r.duration_ms());
    }
  }
  return out;
}

absl::StatusOr<std::vector<double>> LaunchSpansMs(
    const std::vector<KernelRecord>& records, size_t launches) {
  if (launches == 0 || records.size() % launches != 0 || records.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        records.size(), " kernel record(s) cannot be split evenly into ",
        launches, " launch(es)"));
  }
  const size_t per_launch = records.size() / launches;
  std::vector<double> out;
  for (size_t launch = 0; launch < launches; ++launch) {
    uint64_t first = records[launch * per_launch].start_ns;
    uint64_t last = records[launch * per_launch].end_ns;
    for (size_t i = launch * per_launch; i < (launch + 1) * per_launch; ++i) {
      first = std::min(first, records[i].start_ns);
      last = std::max(last, records[i].end_ns);
    }
    out.push_back(last > first ? static_cast<double>(last - first) * 1e-6 : 0);
  }
  return out;
}

absl::StatusOr<KernelDurationSummary> SummarizeKernelDurations(
    const std::vector<KernelRecord>& records, absl::string_view name_fragment) {
  const std::vector<double> ms = KernelDurationsMs(records, name_fragment);
  if (ms.empty()) {
    std::set<std::string> seen;
    for (const KernelRecord& r : records) seen.insert(r.name);
    return absl::NotFoundError(absl::StrCat(
        "no kernel record whose name contains '", name_fragment, "' among ",
        records.size(), " record(s)",
        seen.empty()
            ? ""
            : absl::StrCat(" (kernels: ", absl::StrJoin(seen, ", "), ")")));
  }
  absl::StatusOr<Summary> summary = Summarize(ms);
  if (!summary.ok()) return summary.status();
  KernelDurationSummary out;
  out.count = ms.size();
  for (double v : ms) out.total_ms += v;
  out.min_ms = summary->min;
  out.median_ms = summary->median;
  out.max_ms = summary->max;
  return out;
}

double AgreementPercent(double activity_ms, double event_ms) {
  if (!std::isfinite(activity_ms) || !std::isfinite(event_ms) ||
      event_ms <= 0) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return 100.0 * (activity_ms - event_ms) / event_ms;
}

absl::StatusOr<std::vector<double>> CheckAgreement(
    const std::vector<double>& activity_ms, const std::vector<double>& event_ms,
    double tolerance_percent) {
  if (activity_ms.size() != event_ms.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(activity_ms.size(), " activity duration(s) but ",
                     event_ms.size(), " event timing(s); cannot pair them"));
  }
  if (activity_ms.empty()) {
    return absl::InvalidArgumentError("no durations to compare");
  }
  std::vector<double> percents;
  for (size_t i = 0; i < activity_ms.size(); ++i) {
    const double pct = AgreementPercent(activity_ms[i], event_ms[i]);
    if (!(std::fabs(pct) <= tolerance_percent)) {
      return absl::OutOfRangeError(absl::StrFormat(
          "launch %d: CUPTI activity %.6g ms vs CUDA events %.6g ms differ by "
          "%.3g%%, more than %.3g%%",
          i, activity_ms[i], event_ms[i], pct, tolerance_percent));
    }
    percents.push_back(pct);
  }
  return percents;
}

}  // namespace dissect
