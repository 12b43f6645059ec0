// gpu-benches' parsed logs mapped to dissect result files (experiment,
// axes, counters and method per tool).

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "analysis/importers/import.h"
#include "analysis/importers/import_internal.h"
#include "analysis/results/results.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis {
namespace {

using import_internal::FileError;
using import_internal::Int;
using import_internal::LineError;
using import_internal::kGpuBenches;
using import_internal::OutFile;
using import_internal::OutRow;
using import_internal::Render;
using import_internal::RequireDeviceName;
using import_internal::Sv;

}  // namespace

absl::StatusOr<ImportedFile> MapGpuLatency(const GpuLatencyLog& log, std::string_view path_in,
                                           const ImportOptions& options) {
  const absl::string_view path = Sv(path_in);

  if (absl::Status named = RequireDeviceName(path, options); !named.ok()) return named;
  const double stride = options.stride_bytes.value_or(128);
  OutFile file;
  file.format = "gpu-latency";
  file.experiment = "memory_latency";
  file.source_method = absl::StrCat(
      "pointer chase (64-bit addresses, one random cycle over the footprint) by one block of 64 "
      "threads; host wall-clock time of the whole launch over >= 1e6 chased loads (column 1; "
      "minimum of 7 runs in the source read), converted to cycles per load at the fixed SM clock "
      "of column 2; columns 5-8 are the typical value, median, 5th and 95th percentile of cycles "
      "per load, cycles_per_load is the median; the loads are plain ld.global (L1-cached: path "
      "global_ca); ",
      options.stride_bytes.has_value()
          ? absl::StrCat("stride_bytes ", Int(stride), " as given by --stride_bytes")
          : absl::StrCat("stride_bytes ", Int(stride),
                         " is the importer's assumption, not in the log (the source read "
                         "places the chased pointers 64 B apart; pass --stride_bytes)"));
  file.row_method = "pointer chase, 1 block x 64 threads, host-timed launch, cycles at column 2";
  file.axes = {{"path", "-", "string"},
               {"footprint_bytes", "B", "int64"},
               {"stride_bytes", "B", "int64"},
               {"order", "-", "string"},
               {"loads", "loads", "int64"}};
  file.metrics = {
      {"cycles_per_load", "cycles/load"}, {"ns_per_load", "ns/load"}, {"clock_mhz", "MHz"}};
  file.headline_metric = "cycles_per_load";
  for (const GpuLatencyRow& r : log.rows) {
    OutRow row;
    row.axes = {{"path", "global_ca"},
                {"footprint_bytes", Int(r.footprint_kb * 1024)},
                {"stride_bytes", Int(stride)},
                {"order", "random"},
                {"loads", Int(r.iterations)}};
    row.counters = {{"cycles_per_load", r.cycles_median},
                    {"ns_per_load", r.cycles_median / r.clock_mhz * 1000},
                    {"clock_mhz", r.clock_mhz},
                    {"cycles_per_load.typical", r.cycles_typical},
                    {"cycles_per_load.p05", r.cycles_p05},
                    {"cycles_per_load.p95", r.cycles_p95}};
    row.real_time = r.time_ms;
    file.rows.push_back(std::move(row));
  }
  // Duplicate footprints merge in Render; the loads axis is part of the
  // name, so rows of one footprint must agree on it first: take the median.
  std::map<std::string, std::vector<double>> loads;
  for (const OutRow& row : file.rows) {
    loads[row.axes[1].second].push_back(std::stod(row.axes[4].second));
  }
  for (OutRow& row : file.rows) row.axes[4].second = Int(Median(loads[row.axes[1].second]));
  return Render(std::move(file), kGpuBenches, path, options);
}

absl::StatusOr<ImportedFile> MapGpuCache(const GpuCacheLog& log, std::string_view path_in,
                                         const ImportOptions& options) {
  const absl::string_view path = Sv(path_in);

  if (absl::Status named = RequireDeviceName(path, options); !named.ok()) return named;
  OutFile file;
  file.format = "gpu-cache";
  file.experiment = "memory_bandwidth";
  file.source_method =
      "one block of 256 threads per SM, every block sums the same data set of floats (32-bit "
      "loads) over and over (about 1e9 / elements passes); host wall-clock time of one launch, 15 "
      "runs; Eff. bw = data set x blocks x passes / fastest run; exec time (real_time) = mean of "
      "the runs without the fastest and slowest; spread = (slowest - fastest) / that mean; the "
      "DRAM and L2 columns are the suite's hardware-counter volumes over the fastest time (0 "
      "where the build did not collect them); footprint_bytes is the data set of each SM, shared "
      "by all SMs (bandwidth_footprint per_sm_shared)";
  file.row_method = "1 block x 256 threads per SM re-reading one shared data set, host-timed";
  file.axes = {
      {"op", "-", "string"}, {"width_bits", "bits", "int64"}, {"footprint_bytes", "B", "int64"}};
  file.metrics = {{"bandwidth_gbps", "GB/s"}};
  file.headline_metric = "bandwidth_gbps";
  file.extra_context = {{"bandwidth_footprint", "per_sm_shared"}};
  for (const GpuCacheRow& r : log.rows) {
    OutRow row;
    row.axes = {
        {"op", "read"}, {"width_bits", "32"}, {"footprint_bytes", Int(r.data_set_kb * 1024)}};
    row.counters = {{"bandwidth_gbps", r.bandwidth_gbps}, {"spread_pct", r.spread_pct},
                    {"dram_read_gbps", r.dram_read_gbps}, {"dram_write_gbps", r.dram_write_gbps},
                    {"l2_read_gbps", r.l2_read_gbps},     {"l2_write_gbps", r.l2_write_gbps}};
    row.real_time = r.time_ms;
    file.rows.push_back(std::move(row));
  }
  return Render(std::move(file), kGpuBenches, path, options);
}

absl::StatusOr<ImportedFile> MapGpuL2Cache(const GpuL2CacheLog& log, std::string_view path_in,
                                           const ImportOptions& options) {
  const absl::string_view path = Sv(path_in);

  if (absl::Status named = RequireDeviceName(path, options); !named.ok()) return named;
  OutFile file;
  file.format = "gpu-l2-cache";
  file.experiment = "memory_bandwidth";
  file.source_method =
      "100000 blocks each sum one block data set (column 1, doubles: 64-bit loads); block b "
      "reads chunk b mod (footprint / block data set) of the total footprint (column 2), so "
      "every SM reads across the whole footprint (bandwidth_footprint total_roaming); host "
      "wall-clock time of one launch, fastest of 7 runs (exec time, real_time); Eff. bw = block "
      "data set x 100000 / fastest run; spread = (slowest - fastest) / mean of the runs without "
      "the fastest and slowest; the DRAM and L2 columns are the suite's hardware-counter volumes "
      "over the fastest time (0 where the build did not collect them)";
  file.row_method = "100000 blocks roaming the footprint in block-sized chunks, host-timed";
  file.axes = {
      {"op", "-", "string"}, {"width_bits", "bits", "int64"}, {"footprint_bytes", "B", "int64"}};
  file.metrics = {{"bandwidth_gbps", "GB/s"}};
  file.headline_metric = "bandwidth_gbps";
  file.extra_context = {{"bandwidth_footprint", "total_roaming"}};
  for (const GpuL2CacheRow& r : log.rows) {
    OutRow row;
    row.axes = {
        {"op", "read"}, {"width_bits", "64"}, {"footprint_bytes", Int(r.footprint_kb * 1024)}};
    row.counters = {{"bandwidth_gbps", r.bandwidth_gbps},
                    {"block_data_set_bytes", std::round(r.block_data_set_kb * 1024)},
                    {"spread_pct", r.spread_pct},
                    {"dram_read_gbps", r.dram_read_gbps},
                    {"dram_write_gbps", r.dram_write_gbps},
                    {"l2_read_gbps", r.l2_read_gbps},
                    {"l2_write_gbps", r.l2_write_gbps}};
    row.real_time = r.time_ms;
    file.rows.push_back(std::move(row));
  }
  return Render(std::move(file), kGpuBenches, path, options);
}

absl::StatusOr<ImportedFile> MapGpuStream(const GpuStreamLog& log, std::string_view path_in,
                                          const ImportOptions& options) {
  const absl::string_view path = Sv(path_in);

  if (absl::Status named = RequireDeviceName(path, options); !named.ok()) return named;
  // gpu-stream's kernels: dissect op and the arrays of 128 Mi + 2 doubles
  // each moves per launch (the source's streamCount).
  struct Kernel {
    const char* name;
    const char* op;
    int streams;
  };
  constexpr Kernel kKernels[] = {{"init", "write", 1},     {"read", "read", 1},
                                 {"scale", "copy", 2},     {"triad", "triad", 3},
                                 {"3pt", "stencil3pt", 2}, {"5pt", "stencil5pt", 2}};
  constexpr double kArrayBytes = (128.0 * 1024 * 1024 + 2) * 8;
  std::vector<const Kernel*> kernels;
  for (const std::string& name : log.kernels) {
    const Kernel* found = nullptr;
    for (const Kernel& k : kKernels) {
      if (name == k.name) found = &k;
    }
    if (found == nullptr) {
      return FileError(path, absl::StrCat("unknown gpu-stream kernel '", name,
                                          "' (known: init read scale triad 3pt 5pt)"));
    }
    kernels.push_back(found);
  }
  OutFile file;
  file.format = "gpu-stream";
  file.experiment = "memory_bandwidth";
  file.source_method =
      "one thread per double over arrays of 128 Mi + 2 doubles (64-bit loads and stores), grid "
      "= elements / blockSize, 2 blocks per SM intended (threads column = SM count x blockSize; "
      "'! <n> blocks per SM' where the occupancy differs); host wall-clock time of two "
      "back-to-back launches / 2, median of 9; GB/s = streams x array bytes / time, where "
      "streams is what the source counts per kernel (init 1 write, read 1, scale 1 read + 1 "
      "write, triad 2 reads + 1 write, 3pt and 5pt stencils 1 read + 1 write, neighbours assumed "
      "cached); footprint_bytes = streams x (128 Mi + 2) x 8 B, the bytes moved per launch "
      "(bandwidth_footprint total_split); real_time = footprint / bandwidth; the device's SM "
      "count comes from the threads column";
  file.row_method = "1 double per thread, 2 blocks/SM, host-timed, median of 9";
  file.axes = {{"op", "-", "string"},
               {"width_bits", "bits", "int64"},
               {"threads_per_block", "threads", "int64"},
               {"footprint_bytes", "B", "int64"}};
  file.metrics = {{"bandwidth_gbps", "GB/s"}};
  file.headline_metric = "bandwidth_gbps";
  file.extra_context = {{"bandwidth_footprint", "total_split"}};
  std::optional<int64_t> sm_count;
  for (const GpuStreamRow& r : log.rows) {
    if (r.block_size > 0) {
      const int64_t sms = std::llround(r.threads / r.block_size);
      if (sm_count.has_value() && *sm_count != sms) {
        return LineError(
            path, r.line,
            absl::StrCat("threads / blockSize = ", sms, " SMs, earlier rows say ", *sm_count));
      }
      sm_count = sms;
    }
    for (size_t k = 0; k < kernels.size(); ++k) {
      OutRow row;
      const double footprint = kernels[k]->streams * kArrayBytes;
      row.axes = {{"op", kernels[k]->op},
                  {"width_bits", "64"},
                  {"threads_per_block", absl::StrCat(r.block_size)},
                  {"footprint_bytes", Int(footprint)}};
      row.counters = {{"bandwidth_gbps", r.gbps[k]}, {"occupancy_pct", r.occupancy_pct}};
      if (r.blocks_per_sm_note[k] != 0) {
        row.counters.emplace_back("blocks_per_sm", r.blocks_per_sm_note[k]);
        row.label =
            absl::StrCat(file.row_method, "; ", r.blocks_per_sm_note[k], " blocks per SM, not 2");
      }
      row.real_time = r.gbps[k] > 0 ? footprint / (r.gbps[k] * 1e9) * 1e3 : 0;
      file.rows.push_back(std::move(row));
    }
  }
  if (sm_count.has_value()) file.file_facts["device_sm_count"] = absl::StrCat(*sm_count);
  return Render(std::move(file), kGpuBenches, path, options);
}
}  // namespace dissect::analysis
