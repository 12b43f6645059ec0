// Importers of other GPU microbenchmark suites' published results into
// dissect's result schema (analysis/SCHEMA.md), so that `report` and
// `figures` can show them beside dissect's own measurements.
//
// Supported: RRZE-HPC/gpu-benches logs (gpu-latency, gpu-cache, gpu-l2-cache,
// gpu-stream; the format is detected from the text) and caps-tum/mt4g JSON
// results. Each format has a parser into a plain struct and a mapping to a
// result file; ImportPeerText does both. Every imported row's label starts
// with `source: <suite>@<version>; method: ...` and the context says where
// the numbers came from (source, source_file, source_format, source_method,
// imported_by, import_date), never git_commit: these are not our
// measurements.

#ifndef DISSECT_ANALYSIS_IMPORTERS_IMPORT_H_
#define DISSECT_ANALYSIS_IMPORTERS_IMPORT_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace dissect::analysis {

struct ImportOptions {
  std::string from;            // "gpu-benches" or "mt4g"
  std::string source_version;  // the suite's commit or version; "" = unknown
  // Device facts the file lacks (a flag that contradicts the file is an
  // error). gpu-benches logs name no device: device_name is required there.
  std::optional<std::string> device_name, compute_capability;
  std::optional<int> sm_count;
  std::optional<double> l2_bytes, sm_clock_mhz, dram_peak_gbps, stride_bytes;
};

// One imported file.
struct ImportedFile {
  std::string format;                 // gpu-latency, gpu-cache, gpu-l2-cache, gpu-stream, mt4g
  std::string experiment;             // dissect_experiment of `json`
  std::string json;                   // the result file's text
  std::vector<std::string> warnings;  // one line each, starting with the path
  int rows = 0;
};

// Parses `text` (the contents of the file at `path`) as options.from's
// format and maps it to a dissect result file. Errors are one line starting
// with `path` (`<path>:<line>: <what>` where a line is at fault).
absl::StatusOr<ImportedFile> ImportPeerText(std::string_view text, std::string_view path,
                                            const ImportOptions& options);

// `<input basename without extension>.json`: the name of the output file.
std::string ImportedFileName(std::string_view input_path);

// A byte count: plain bytes ("52428800") or with a binary suffix ("50MiB",
// "40 KiB", "1GiB"). Error on anything else.
absl::StatusOr<double> ParseByteCount(std::string_view text);

// --- gpu-benches logs -------------------------------------------------------

// Which gpu-benches program wrote `text`: "gpu-latency", "gpu-cache",
// "gpu-l2-cache" or "gpu-stream"; an error naming the file otherwise.
absl::StatusOr<std::string> DetectGpuBenchesFormat(std::string_view text, std::string_view path);

// gpu-latency: `clock: ...` line, then rows of 8 numbers.
struct GpuLatencyRow {
  int line = 0;
  double iterations = 0;    // chased loads per launch
  double clock_mhz = 0;     // SM clock the cycles were computed with
  double footprint_kb = 0;  // kB = 1024 B, one decimal
  double time_ms = 0;       // run time of one launch
  double cycles_typical = 0, cycles_median = 0, cycles_p05 = 0, cycles_p95 = 0;
};
struct GpuLatencyLog {
  std::vector<double> clock_readings_mhz;  // the `clock:` line, if any
  std::vector<GpuLatencyRow> rows;
};
absl::StatusOr<GpuLatencyLog> ParseGpuLatencyLog(std::string_view text, std::string_view path);

// gpu-cache: header `data set  exec time  spread  Eff. bw  DRAM read ...`,
// rows `<kB> kB <ms>ms <pct>% <bw> GB/s` then four `<x> GB/s`.
struct GpuCacheRow {
  int line = 0;
  double data_set_kb = 0, time_ms = 0, spread_pct = 0, bandwidth_gbps = 0;
  double dram_read_gbps = 0, dram_write_gbps = 0, l2_read_gbps = 0, l2_write_gbps = 0;
};
struct GpuCacheLog {
  std::vector<double> clock_readings_mhz;
  std::vector<GpuCacheRow> rows;
};
absl::StatusOr<GpuCacheLog> ParseGpuCacheLog(std::string_view text, std::string_view path);

// gpu-l2-cache: rows `<block kB> kB <footprint kB> kB <ms>ms <pct>% <bw> GB/s`
// then four `<x> GB/s`.
struct GpuL2CacheRow {
  int line = 0;
  double block_data_set_kb = 0, footprint_kb = 0, time_ms = 0, spread_pct = 0;
  double bandwidth_gbps = 0;
  double dram_read_gbps = 0, dram_write_gbps = 0, l2_read_gbps = 0, l2_write_gbps = 0;
};
struct GpuL2CacheLog {
  std::vector<double> clock_readings_mhz;
  std::vector<GpuL2CacheRow> rows;
};
absl::StatusOr<GpuL2CacheLog> ParseGpuL2CacheLog(std::string_view text, std::string_view path);

// gpu-stream: header `blockSize threads %occ | init read scale triad 3pt
// 5pt`, rows `<blockSize> <threads> <occ> % | GB/s: <one GB/s per kernel>`;
// a value may be preceded by `! <n> blocks per SM` where the occupancy
// differs from the intended 2 blocks per SM.
struct GpuStreamRow {
  int line = 0;
  int block_size = 0;
  double threads = 0;        // SM count x block size
  double occupancy_pct = 0;  // as printed (assumes 2 blocks per SM)
  std::vector<double> gbps;  // one per kernel
  // Per kernel: the `! <n> blocks per SM` note, 0 where there is none.
  std::vector<int> blocks_per_sm_note;
};
struct GpuStreamLog {
  std::vector<std::string> kernels;  // header names after `|`
  std::vector<GpuStreamRow> rows;
};
absl::StatusOr<GpuStreamLog> ParseGpuStreamLog(std::string_view text, std::string_view path);

// --- mt4g JSON --------------------------------------------------------------

// One memory level of an mt4g result: every number found under it, keyed
// by dissect counter name (latency_cycles, capacity_bytes, ...), bandwidths
// already converted to GB/s.
struct Mt4gLevel {
  std::string level;  // L1, L2, DRAM, shared, ldg, tex, const, const_l1.5
  std::map<std::string, double> values;
  std::vector<std::string> methods;  // distinct `method` words, in order
  std::vector<bool> randomized;      // distinct `randomized` values
};
struct Mt4gResult {
  // Context keys known from the file (device_name, device_sm_count, ...,
  // driver_version, runtime_version, source_date), as strings.
  std::map<std::string, std::string> facts;
  std::vector<Mt4gLevel> levels;
};
absl::StatusOr<Mt4gResult> ParseMt4gJson(std::string_view text, std::string_view path);

// The mapping of each parsed format to a result file (options as for
// ImportPeerText; `path` is the input as given).
absl::StatusOr<ImportedFile> MapGpuLatency(const GpuLatencyLog& log, std::string_view path,
                                           const ImportOptions& options);
absl::StatusOr<ImportedFile> MapGpuCache(const GpuCacheLog& log, std::string_view path,
                                         const ImportOptions& options);
absl::StatusOr<ImportedFile> MapGpuL2Cache(const GpuL2CacheLog& log, std::string_view path,
                                           const ImportOptions& options);
absl::StatusOr<ImportedFile> MapGpuStream(const GpuStreamLog& log, std::string_view path,
                                          const ImportOptions& options);
absl::StatusOr<ImportedFile> MapMt4g(const Mt4gResult& result, std::string_view path,
                                     const ImportOptions& options);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_IMPORTERS_IMPORT_H_
