// Tests of //analysis/importers:import_lib: each peer format's parser and mapping on
// the hand-made excerpts of analysis/testdata/peers, and the real files of
// the peer data folder (skipped when it is absent).

#include "analysis/importers/import.h"

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "analysis/importers/peers_test_util.h"
#include "analysis/results/results.h"
#include "tools/testing/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using ::testing::HasSubstr;

std::string Excerpt(const std::string& name) {
  return test_util::ReadText(
      test_util::Runfile("analysis/testdata/peers/" + name));
}

ImportOptions GpuBenches() {
  ImportOptions options;
  options.from = "gpu-benches";
  options.source_version = "1038c5d0d0f4";
  options.device_name = "NVIDIA GH200 480GB";
  return options;
}

ImportOptions Mt4g() {
  ImportOptions options;
  options.from = "mt4g";
  options.source_version = "4cc55662a954";
  return options;
}

// Imports an excerpt and parses the result with the result reader.
ResultFile ImportAndRead(const std::string& name, const ImportOptions& options,
                         ImportedFile* imported_out = nullptr) {
  const std::string text = Excerpt(name);
  EXPECT_FALSE(text.empty()) << name;
  absl::StatusOr<ImportedFile> imported = ImportPeerText(text, name, options);
  EXPECT_TRUE(imported.ok()) << imported.status();
  if (!imported.ok()) return ResultFile();
  absl::StatusOr<ResultFile> file = ParseResultJson(imported->json, name);
  EXPECT_TRUE(file.ok()) << file.status();
  if (!file.ok()) return ResultFile();
  EXPECT_EQ(static_cast<int>(file->rows.size()), imported->rows);
  if (imported_out != nullptr) *imported_out = *imported;
  return *file;
}

const Row* FindRow(const ResultFile& file, const std::string& axis, const std::string& value) {
  for (const Row& row : file.rows) {
    if (row.Axis(axis) == value) return &row;
  }
  return nullptr;
}

bool HasWarning(const ImportedFile& imported, const std::string& part) {
  for (const std::string& warning : imported.warnings) {
    if (absl::StrContains(warning, part)) return true;
  }
  return false;
}

// --- FindPeersDir -------------------------------------------------------------

TEST(PeersTestUtil, FindsThePeerDataFolder) {
  const std::string peers = testing::FindPeersDir();
  if (!testing::IsDirectory(peers)) GTEST_SKIP() << testing::PeersMissing(peers);
  EXPECT_TRUE(testing::IsDirectory(peers + "/gpu-benches")) << peers;
  EXPECT_TRUE(testing::IsDirectory(peers + "/mt4g")) << peers;
}

// --- detection and errors -----------------------------------------------------

TEST(Detect, EachGpuBenchesFormat) {
  for (const auto& [file, format] : std::vector<std::pair<std::string, std::string>>{
           {"gpu-latency_excerpt.txt", "gpu-latency"},
           {"gpu-cache_excerpt.txt", "gpu-cache"},
           {"gpu-l2-cache_excerpt.txt", "gpu-l2-cache"},
           {"gpu-stream_excerpt.txt", "gpu-stream"}}) {
    absl::StatusOr<std::string> detected = DetectGpuBenchesFormat(Excerpt(file), file);
    ASSERT_TRUE(detected.ok()) << detected.status();
    EXPECT_EQ(*detected, format) << file;
  }
}

TEST(Detect, UnknownAndEmptyAreOneLineErrorsNamingTheFile) {
  for (const std::string& file : {std::string("unknown_format.txt"), std::string("")}) {
    const std::string text = file.empty() ? "\n  \n" : Excerpt(file);
    absl::StatusOr<ImportedFile> imported = ImportPeerText(text, "x/" + file, GpuBenches());
    ASSERT_FALSE(imported.ok()) << file;
    const std::string message(imported.status().message());
    EXPECT_TRUE(absl::StartsWith(message, "x/" + file + ":")) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  absl::StatusOr<ImportedFile> unknown =
      ImportPeerText(Excerpt("unknown_format.txt"), "u.txt", GpuBenches());
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("u.txt:1: unknown format"));
}

TEST(Errors, MalformedRowsNameFileAndLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"gpu-latency_malformed.txt", "gpu-latency_malformed.txt:3: expected 8 fields"},
      {"gpu-cache_malformed.txt", "gpu-cache_malformed.txt:3: field 4 '11837.x' is not a number"},
      {"gpu-l2-cache_malformed.txt", "gpu-l2-cache_malformed.txt:3: expected 9 fields"},
      {"gpu-stream_malformed.txt", "gpu-stream_malformed.txt:3: expected 6 bandwidths"},
  };
  for (const auto& [file, want] : cases) {
    absl::StatusOr<ImportedFile> imported = ImportPeerText(Excerpt(file), file, GpuBenches());
    ASSERT_FALSE(imported.ok()) << file;
    EXPECT_THAT(std::string(imported.status().message()), HasSubstr(want));
    EXPECT_EQ(std::string(imported.status().message()).find('\n'), std::string::npos);
  }
}

TEST(Errors, Mt4gMalformedForeignAndText) {
  absl::StatusOr<ImportedFile> truncated =
      ImportPeerText(Excerpt("mt4g_malformed.json"), "m.json", Mt4g());
  ASSERT_FALSE(truncated.ok());
  EXPECT_THAT(std::string(truncated.status().message()), HasSubstr("malformed JSON"));
  EXPECT_TRUE(absl::StartsWith(truncated.status().message(), "m.json:"));
  absl::StatusOr<ImportedFile> foreign =
      ImportPeerText(Excerpt("mt4g_foreign.json"), "f.json", Mt4g());
  ASSERT_FALSE(foreign.ok());
  EXPECT_THAT(std::string(foreign.status().message()), HasSubstr("f.json: not an mt4g result"));
  absl::StatusOr<ImportedFile> text =
      ImportPeerText(Excerpt("gpu-latency_excerpt.txt"), "l.txt", Mt4g());
  EXPECT_FALSE(text.ok());
  absl::StatusOr<ImportedFile> empty = ImportPeerText("", "e.json", Mt4g());
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(std::string(empty.status().message()), HasSubstr("e.json: empty file"));
}

TEST(Errors, UnknownSuiteAndMissingDeviceName) {
  ImportOptions options = GpuBenches();
  options.from = "rodinia";
  EXPECT_FALSE(ImportPeerText(Excerpt("gpu-latency_excerpt.txt"), "l.txt", options).ok());
  options = GpuBenches();
  options.device_name.reset();
  absl::StatusOr<ImportedFile> imported =
      ImportPeerText(Excerpt("gpu-cache_excerpt.txt"), "c.txt", options);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(std::string(imported.status().message()), HasSubstr("--device_name"));
}

// --- gpu-latency ----------------------------------------------------------------

TEST(GpuLatency, Parser) {
  absl::StatusOr<GpuLatencyLog> log =
      ParseGpuLatencyLog(Excerpt("gpu-latency_excerpt.txt"), "l.txt");
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_EQ(log->clock_readings_mhz.size(), 12u);
  ASSERT_EQ(log->rows.size(), 8u);
  const GpuLatencyRow& row = log->rows[6];
  EXPECT_EQ(row.line, 8);
  EXPECT_EQ(row.iterations, 1000000);
  EXPECT_EQ(row.clock_mhz, 1980);
  EXPECT_DOUBLE_EQ(row.footprint_kb, 25406.8);
  EXPECT_DOUBLE_EQ(row.time_ms, 141.6);
  EXPECT_DOUBLE_EQ(row.cycles_median, 280.3);
  EXPECT_DOUBLE_EQ(log->rows[4].cycles_typical, 122.1);
  EXPECT_DOUBLE_EQ(log->rows[4].cycles_p05, 121.5);
  EXPECT_DOUBLE_EQ(log->rows[4].cycles_p95, 122.8);
}

TEST(GpuLatency, Mapping) {
  ImportedFile imported;
  ImportOptions options = GpuBenches();
  options.sm_count = 132;
  options.l2_bytes = 50.0 * 1024 * 1024;
  const ResultFile file = ImportAndRead("gpu-latency_excerpt.txt", options, &imported);
  EXPECT_EQ(imported.format, "gpu-latency");
  EXPECT_EQ(file.experiment, "memory_latency");
  // Written by the import itself, not given by the reader's default.
  EXPECT_THAT(imported.json, HasSubstr(R"("dissect_headline_metric": "cycles_per_load")"));
  EXPECT_EQ(file.axis_names, (std::vector<std::string>{"path", "footprint_bytes", "stride_bytes",
                                                       "order", "loads"}));
  EXPECT_EQ(file.metric_names,
            (std::vector<std::string>{"cycles_per_load", "ns_per_load", "clock_mhz"}));
  EXPECT_EQ(file.AxisUnit("footprint_bytes"), "B");
  EXPECT_EQ(file.ContextOr("axis.path.type", ""), "string");
  EXPECT_EQ(file.ContextOr("axis.loads.type", ""), "int64");
  EXPECT_EQ(file.MetricUnit("cycles_per_load"), "cycles/load");
  EXPECT_EQ(file.MetricUnit("ns_per_load"), "ns/load");
  EXPECT_EQ(file.MetricUnit("clock_mhz"), "MHz");
  // 8 log rows, two at 24.5 kB: merged.
  ASSERT_EQ(file.rows.size(), 7u);
  EXPECT_EQ(file.ContextOr("import_merged_rows", ""), "1");
  const Row* big = FindRow(file, "footprint_bytes", "26016563");  // 25406.8 kB
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->name,
            "memory_latency/path:global_ca/footprint_bytes:26016563/stride_bytes:128/"
            "order:random/loads:1000000/iterations:1/manual_time");
  EXPECT_EQ(AxisNumber(*big, "stride_bytes"), 128);
  EXPECT_EQ(AxisNumber(*big, "loads"), 1000000);
  EXPECT_EQ(big->Axis("order"), "random");
  EXPECT_DOUBLE_EQ(*big->Counter("cycles_per_load"), 280.3);
  EXPECT_NEAR(*big->Counter("ns_per_load"), 280.3 / 1980 * 1000, 1e-9);
  EXPECT_EQ(big->Counter("clock_mhz"), 1980);
  EXPECT_DOUBLE_EQ(big->real_time, 141.6);
  EXPECT_EQ(big->time_unit, "ms");
  const Row* p = FindRow(file, "footprint_bytes", "262144");  // 256.0 kB
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ(*p->Counter("cycles_per_load.typical"), 122.1);
  EXPECT_DOUBLE_EQ(*p->Counter("cycles_per_load.p05"), 121.5);
  EXPECT_DOUBLE_EQ(*p->Counter("cycles_per_load.p95"), 122.8);
  // 2.1 kB = 2150.4 B -> 2150.
  EXPECT_NE(FindRow(file, "footprint_bytes", "2150"), nullptr);
  // The merged row: median (of two: mean) of each value, and its count.
  const Row* merged = FindRow(file, "footprint_bytes", "25088");  // 24.5 kB
  ASSERT_NE(merged, nullptr);
  EXPECT_NEAR(*merged->Counter("cycles_per_load"), 32.4, 1e-9);
  EXPECT_NEAR(*merged->Counter("cycles_per_load.p95"), 32.7, 1e-9);
  EXPECT_NEAR(merged->real_time, 16.35, 1e-9);
  EXPECT_EQ(merged->Counter("merged_rows"), 2);
  EXPECT_FALSE(big->Counter("merged_rows").has_value());
  // Provenance.
  EXPECT_EQ(file.ContextOr("source", ""), "gpu-benches@1038c5d0d0f4");
  EXPECT_EQ(file.ContextOr("source_file", ""), "gpu-latency_excerpt.txt");
  EXPECT_EQ(file.ContextOr("source_format", ""), "gpu-latency");
  EXPECT_EQ(file.ContextOr("imported_by", ""), "dissect analysis/import");
  EXPECT_THAT(file.ContextOr("source_method", ""), HasSubstr("one block of 64 threads"));
  EXPECT_THAT(file.ContextOr("source_method", ""), HasSubstr("importer's assumption"));
  const std::string date = file.ContextOr("import_date", "");
  EXPECT_EQ(date.size(), 20u) << date;
  EXPECT_EQ(date.back(), 'Z') << date;
  EXPECT_EQ(file.context.count("git_commit"), 0u);
  for (const Row& row : file.rows) {
    EXPECT_TRUE(absl::StartsWith(row.label, "source: gpu-benches@1038c5d0d0f4; method: "))
        << row.label;
  }
  // Device facts: flags in, the rest named as missing.
  EXPECT_EQ(file.ContextOr("device_name", ""), "NVIDIA GH200 480GB");
  EXPECT_EQ(file.ContextOr("device_sm_count", ""), "132");
  EXPECT_EQ(file.ContextOr("device_l2_bytes", ""), "52428800");
  EXPECT_EQ(file.ContextOr("device_facts_missing", ""),
            "device_compute_capability,device_sm_clock_max_khz,device_dram_peak_gbps");
  // Which facts the flags gave, so that no one reads them as a driver's.
  EXPECT_EQ(file.ContextOr("device_facts_from_flags", ""),
            "device_l2_bytes,device_name,device_sm_count");
  EXPECT_TRUE(HasWarning(imported,
                         "gpu-latency_excerpt.txt: device_sm_clock_max_khz unknown "
                         "(pass --sm_clock_mhz)"));
  EXPECT_FALSE(HasWarning(imported, "device_sm_count"));
  EXPECT_FALSE(HasWarning(imported, "source version"));
}

TEST(GpuLatency, StrideFlagAndUnknownVersion) {
  ImportOptions options = GpuBenches();
  options.stride_bytes = 64;
  options.source_version.clear();
  ImportedFile imported;
  const ResultFile file = ImportAndRead("gpu-latency_excerpt.txt", options, &imported);
  ASSERT_FALSE(file.rows.empty());
  EXPECT_EQ(AxisNumber(file.rows[0], "stride_bytes"), 64);
  EXPECT_THAT(file.ContextOr("source_method", ""), HasSubstr("as given by --stride_bytes"));
  EXPECT_EQ(file.ContextOr("source", ""), "gpu-benches@unknown");
  EXPECT_TRUE(absl::StartsWith(file.rows[0].label, "source: gpu-benches@unknown; method: "));
  EXPECT_TRUE(HasWarning(imported, "source version unknown"));
}

TEST(GpuLatency, AllDeviceFactsFromFlags) {
  ImportOptions options = GpuBenches();
  options.compute_capability = "9.0";
  options.sm_count = 132;
  options.l2_bytes = 52428800;
  options.sm_clock_mhz = 1980;
  options.dram_peak_gbps = 4022.8;
  ImportedFile imported;
  const ResultFile file = ImportAndRead("gpu-latency_excerpt.txt", options, &imported);
  EXPECT_EQ(file.ContextOr("device_compute_capability", ""), "9.0");
  EXPECT_EQ(file.ContextOr("device_sm_clock_max_khz", ""), "1980000");
  EXPECT_EQ(file.ContextOr("device_dram_peak_gbps", ""), "4022.8");
  EXPECT_EQ(file.context.count("device_facts_missing"), 0u);
  EXPECT_TRUE(imported.warnings.empty());
  options.compute_capability = "nine";
  EXPECT_FALSE(ImportPeerText(Excerpt("gpu-latency_excerpt.txt"), "l.txt", options).ok());
}

// --- gpu-cache ------------------------------------------------------------------

TEST(GpuCache, ParserAndMapping) {
  absl::StatusOr<GpuCacheLog> log = ParseGpuCacheLog(Excerpt("gpu-cache_excerpt.txt"), "c.txt");
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_EQ(log->clock_readings_mhz.size(), 6u);
  ASSERT_EQ(log->rows.size(), 6u);
  EXPECT_EQ(log->rows[3].line, 6);
  EXPECT_DOUBLE_EQ(log->rows[3].data_set_kb, 192);
  EXPECT_DOUBLE_EQ(log->rows[3].time_ms, 66);
  EXPECT_DOUBLE_EQ(log->rows[3].spread_pct, 4.1);
  EXPECT_DOUBLE_EQ(log->rows[3].bandwidth_gbps, 13504.2);
  EXPECT_DOUBLE_EQ(log->rows[3].dram_read_gbps, 1);
  EXPECT_DOUBLE_EQ(log->rows[3].dram_write_gbps, 0);
  EXPECT_DOUBLE_EQ(log->rows[3].l2_read_gbps, 5120);
  EXPECT_DOUBLE_EQ(log->rows[3].l2_write_gbps, 2);

  const ResultFile file = ImportAndRead("gpu-cache_excerpt.txt", GpuBenches());
  EXPECT_EQ(file.experiment, "memory_bandwidth");
  EXPECT_EQ(file.axis_names, (std::vector<std::string>{"op", "width_bits", "footprint_bytes"}));
  EXPECT_EQ(file.metric_names, std::vector<std::string>{"bandwidth_gbps"});
  EXPECT_EQ(file.MetricUnit("bandwidth_gbps"), "GB/s");
  EXPECT_EQ(file.AxisUnit("width_bits"), "bits");
  EXPECT_EQ(file.ContextOr("bandwidth_footprint", ""), "per_sm_shared");
  EXPECT_EQ(file.ContextOr("source_format", ""), "gpu-cache");
  ASSERT_EQ(file.rows.size(), 6u);
  const Row& row = file.rows[3];
  EXPECT_EQ(row.name,
            "memory_bandwidth/op:read/width_bits:32/footprint_bytes:196608/iterations:1/"
            "manual_time");
  EXPECT_DOUBLE_EQ(*row.Counter("bandwidth_gbps"), 13504.2);
  EXPECT_DOUBLE_EQ(*row.Counter("spread_pct"), 4.1);
  EXPECT_DOUBLE_EQ(*row.Counter("l2_read_gbps"), 5120);
  EXPECT_DOUBLE_EQ(*row.Counter("l2_write_gbps"), 2);
  // Zero counters are data: kept.
  EXPECT_EQ(file.rows[0].Counter("dram_write_gbps"), 0);
  EXPECT_EQ(file.rows[0].Counter("l2_write_gbps"), 0);
  EXPECT_DOUBLE_EQ(row.real_time, 66);
  EXPECT_TRUE(absl::StartsWith(row.label, "source: gpu-benches@1038c5d0d0f4; method: "));
}

// --- gpu-l2-cache ---------------------------------------------------------------

TEST(GpuL2Cache, ParserAndMapping) {
  absl::StatusOr<GpuL2CacheLog> log =
      ParseGpuL2CacheLog(Excerpt("gpu-l2-cache_excerpt.txt"), "l2.txt");
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->rows.size(), 5u);
  EXPECT_DOUBLE_EQ(log->rows[3].block_data_set_kb, 512);
  EXPECT_DOUBLE_EQ(log->rows[3].footprint_kb, 102400);
  EXPECT_DOUBLE_EQ(log->rows[3].time_ms, 11);
  EXPECT_DOUBLE_EQ(log->rows[3].spread_pct, 2.5);
  EXPECT_DOUBLE_EQ(log->rows[3].bandwidth_gbps, 4431.0);
  EXPECT_DOUBLE_EQ(log->rows[3].dram_read_gbps, 2210);
  EXPECT_DOUBLE_EQ(log->rows[3].dram_write_gbps, 1);
  EXPECT_DOUBLE_EQ(log->rows[3].l2_read_gbps, 4450);

  const ResultFile file = ImportAndRead("gpu-l2-cache_excerpt.txt", GpuBenches());
  EXPECT_EQ(file.experiment, "memory_bandwidth");
  EXPECT_EQ(file.ContextOr("bandwidth_footprint", ""), "total_roaming");
  ASSERT_EQ(file.rows.size(), 5u);
  const Row& row = file.rows[3];
  EXPECT_EQ(row.Axis("op"), "read");
  EXPECT_EQ(AxisNumber(row, "width_bits"), 64);
  EXPECT_EQ(AxisNumber(row, "footprint_bytes"), 102400.0 * 1024);
  EXPECT_EQ(row.Counter("block_data_set_bytes"), 512 * 1024);
  EXPECT_DOUBLE_EQ(*row.Counter("bandwidth_gbps"), 4431.0);
  EXPECT_DOUBLE_EQ(*row.Counter("dram_read_gbps"), 2210);
  EXPECT_DOUBLE_EQ(*row.Counter("spread_pct"), 2.5);
  EXPECT_EQ(file.rows[0].Counter("l2_read_gbps"), 0);
}

// --- gpu-stream -----------------------------------------------------------------

TEST(GpuStream, ParserAndMapping) {
  absl::StatusOr<GpuStreamLog> log = ParseGpuStreamLog(Excerpt("gpu-stream_excerpt.txt"), "s.txt");
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_EQ(log->kernels,
            (std::vector<std::string>{"init", "read", "scale", "triad", "3pt", "5pt"}));
  ASSERT_EQ(log->rows.size(), 4u);
  EXPECT_EQ(log->rows[3].block_size, 1024);
  EXPECT_EQ(log->rows[3].gbps[0], 3010);
  EXPECT_EQ(log->rows[3].gbps[1], 3120);
  EXPECT_EQ(log->rows[3].blocks_per_sm_note, (std::vector<int>{1, 1, 0, 0, 0, 0}));

  const ResultFile file = ImportAndRead("gpu-stream_excerpt.txt", GpuBenches());
  EXPECT_EQ(file.experiment, "memory_bandwidth");
  EXPECT_EQ(file.ContextOr("bandwidth_footprint", ""), "total_split");
  EXPECT_EQ(file.ContextOr("device_sm_count", ""), "132");  // 4224 threads / 32
  ASSERT_EQ(file.rows.size(), 24u);
  const double array_bytes = (128.0 * 1024 * 1024 + 2) * 8;
  const Row* triad = nullptr;
  for (const Row& row : file.rows) {
    if (row.Axis("op") == "triad" && row.Axis("threads_per_block") == "256") triad = &row;
  }
  ASSERT_NE(triad, nullptr);
  EXPECT_EQ(AxisNumber(*triad, "footprint_bytes"), 3 * array_bytes);
  EXPECT_EQ(AxisNumber(*triad, "width_bits"), 64);
  EXPECT_EQ(triad->Counter("bandwidth_gbps"), 3150);
  EXPECT_NEAR(triad->real_time, 3 * array_bytes / 3150e9 * 1e3, 1e-9);
  std::vector<std::string> ops;
  for (size_t i = 0; i < 6; ++i) ops.push_back(*file.rows[i].Axis("op"));
  EXPECT_EQ(ops, (std::vector<std::string>{"write", "read", "copy", "triad", "stencil3pt",
                                           "stencil5pt"}));
  EXPECT_EQ(AxisNumber(file.rows[2], "footprint_bytes"), 2 * array_bytes);  // scale = copy
  const Row& noted = file.rows[18];                                         // blockSize 1024, init
  EXPECT_EQ(noted.Axis("threads_per_block"), "1024");
  EXPECT_EQ(noted.Counter("blocks_per_sm"), 1);
  EXPECT_THAT(noted.label, HasSubstr("1 blocks per SM, not 2"));
  // A --sm_count that contradicts the threads column is an error.
  ImportOptions options = GpuBenches();
  options.sm_count = 114;
  EXPECT_FALSE(ImportPeerText(Excerpt("gpu-stream_excerpt.txt"), "s.txt", options).ok());
}

// --- mt4g -------------------------------------------------------------------------

TEST(Mt4g, ParserAndMapping) {
  absl::StatusOr<Mt4gResult> parsed = ParseMt4gJson(Excerpt("mt4g_excerpt.json"), "m.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  std::vector<std::string> levels;
  for (const Mt4gLevel& level : parsed->levels) levels.push_back(level.level);
  EXPECT_EQ(levels,
            (std::vector<std::string>{"L1", "L2", "DRAM", "shared", "const", "const_l1.5"}));

  ImportedFile imported;
  const ResultFile file = ImportAndRead("mt4g_excerpt.json", Mt4g(), &imported);
  EXPECT_EQ(imported.format, "mt4g");
  EXPECT_EQ(file.experiment, "hierarchy_summary");
  EXPECT_THAT(imported.json, HasSubstr(R"("dissect_headline_metric": "latency_cycles")"));
  EXPECT_EQ(file.axis_names, std::vector<std::string>{"level"});
  EXPECT_EQ(file.AxisUnit("level"), "-");
  EXPECT_EQ(file.metric_names,
            (std::vector<std::string>{"latency_cycles", "capacity_bytes", "line_bytes",
                                      "read_bandwidth_gbps", "write_bandwidth_gbps"}));
  EXPECT_EQ(file.MetricUnit("read_bandwidth_gbps"), "GB/s");
  EXPECT_EQ(file.MetricUnit("latency_cycles"), "cycles");
  EXPECT_EQ(file.MetricUnit("capacity_bytes"), "B");
  EXPECT_THAT(file.ContextOr("source_method", ""), HasSubstr("GiB/s"));
  EXPECT_EQ(file.ContextOr("source", ""), "mt4g@4cc55662a954");
  // Device facts from the file.
  EXPECT_EQ(file.ContextOr("device_name", ""), "NVIDIA H100 80GB HBM3 (excerpt)");
  EXPECT_EQ(file.ContextOr("device_compute_capability", ""), "9.0");
  EXPECT_EQ(file.ContextOr("device_sm_count", ""), "132");
  EXPECT_EQ(file.ContextOr("device_sm_clock_max_khz", ""), "1980000");
  EXPECT_EQ(file.ContextOr("device_l2_bytes", ""), "52428800");
  EXPECT_EQ(file.ContextOr("device_memory_clock_khz", ""), "2619000");
  EXPECT_EQ(file.ContextOr("device_memory_bus_width_bits", ""), "5120");
  EXPECT_EQ(file.ContextOr("device_dram_peak_gbps", ""), "3352.3");  // 2 x 2619 MHz x 640 B
  EXPECT_EQ(file.ContextOr("driver_version", ""), "12.2");
  EXPECT_EQ(file.ContextOr("runtime_version", ""), "12.8");
  EXPECT_EQ(file.ContextOr("source_date", ""), "2025-08-10T00:03:09Z");
  EXPECT_EQ(file.context.count("device_facts_missing"), 0u);
  // Every fact from the file, none from a flag: the key is there, empty.
  ASSERT_EQ(file.context.count("device_facts_from_flags"), 1u);
  EXPECT_EQ(file.ContextOr("device_facts_from_flags", "?"), "");
  EXPECT_TRUE(imported.warnings.empty());

  const Row* l1 = FindRow(file, "level", "L1");
  ASSERT_NE(l1, nullptr);
  EXPECT_EQ(l1->name, "hierarchy_summary/level:L1/iterations:1/manual_time");
  EXPECT_EQ(l1->Counter("latency_cycles"), 38);
  EXPECT_EQ(l1->Counter("latency_cycles.p95"), 38);
  EXPECT_EQ(l1->Counter("latency_measurements"), 255);
  EXPECT_EQ(l1->Counter("capacity_bytes"), 238848);
  EXPECT_DOUBLE_EQ(*l1->Counter("capacity_confidence"), 0.97);
  EXPECT_EQ(l1->Counter("line_bytes"), 128);
  EXPECT_EQ(l1->Counter("fetch_granularity_bytes"), 32);
  EXPECT_EQ(l1->Counter("miss_penalty_cycles"), 180);
  EXPECT_EQ(l1->Counter("amount_per_sm"), 1);
  EXPECT_FALSE(l1->Counter("read_bandwidth_gbps").has_value());
  EXPECT_EQ(l1->label, "source: mt4g@4cc55662a954; method: p-chase, randomized: false");
  const Row* l2 = FindRow(file, "level", "L2");
  ASSERT_NE(l2, nullptr);
  EXPECT_EQ(l2->Counter("capacity_bytes"), 52428800);  // size.value
  EXPECT_EQ(l2->Counter("segment_bytes"), 26214400);
  EXPECT_NEAR(*l2->Counter("read_bandwidth_gbps"), 4500 * 1.073741824, 1e-9);
  EXPECT_NEAR(*l2->Counter("write_bandwidth_gbps"), 3500 * 1.073741824, 1e-9);
  const Row* shared = FindRow(file, "level", "shared");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->counters.size(), 5u);  // latency only
  EXPECT_EQ(shared->Counter("latency_cycles.stdev"), 0.5);
  EXPECT_EQ(shared->label, "source: mt4g@4cc55662a954; method: p-chase, randomized: n/a");
  const Row* dram = FindRow(file, "level", "DRAM");
  ASSERT_NE(dram, nullptr);
  EXPECT_EQ(dram->Counter("latency_cycles.p50"), 864);
  EXPECT_NEAR(*dram->Counter("read_bandwidth_gbps"), 2500 * 1.073741824, 1e-9);
  EXPECT_EQ(FindRow(file, "level", "const_l1.5")->Counter("latency_cycles"), 105);
  EXPECT_EQ(FindRow(file, "level", "const")->Counter("capacity_bytes"), 2048);
}

TEST(Mt4g, FlagsAgreeingOrContradicting) {
  ImportOptions options = Mt4g();
  options.sm_count = 132;
  options.sm_clock_mhz = 1980;
  options.dram_peak_gbps = 3352.32;
  options.device_name = "NVIDIA H100 80GB HBM3 (excerpt)";
  EXPECT_TRUE(ImportPeerText(Excerpt("mt4g_excerpt.json"), "m.json", options).ok());
  options.sm_count = 114;
  absl::StatusOr<ImportedFile> imported =
      ImportPeerText(Excerpt("mt4g_excerpt.json"), "m.json", options);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(std::string(imported.status().message()),
              HasSubstr("m.json: --sm_count (device_sm_count 114) contradicts the file's "
                        "device_sm_count 132"));
  options = Mt4g();
  options.l2_bytes = 40.0 * 1024 * 1024;
  EXPECT_FALSE(ImportPeerText(Excerpt("mt4g_excerpt.json"), "m.json", options).ok());
  options = Mt4g();
  options.device_name = "NVIDIA A100";
  EXPECT_FALSE(ImportPeerText(Excerpt("mt4g_excerpt.json"), "m.json", options).ok());
}

// --- helpers ---------------------------------------------------------------------

TEST(Helpers, ByteCountsAndFileNames) {
  EXPECT_EQ(*ParseByteCount("52428800"), 52428800);
  EXPECT_EQ(*ParseByteCount("50MiB"), 52428800);
  EXPECT_EQ(*ParseByteCount("40 KiB"), 40960);
  EXPECT_EQ(*ParseByteCount("1GiB"), 1073741824);
  EXPECT_FALSE(ParseByteCount("50MB").ok());
  EXPECT_FALSE(ParseByteCount("lots").ok());
  EXPECT_FALSE(ParseByteCount("").ok());
  EXPECT_EQ(ImportedFileName("../shared/data/peers/gpu-benches/gpu-latency_gh200.txt"),
            "gpu-latency_gh200.json");
  EXPECT_EQ(ImportedFileName("NVIDIA_H100_80GB_HBM3.json"), "NVIDIA_H100_80GB_HBM3.json");
  EXPECT_EQ(ImportedFileName("log"), "log.json");
}

// --- the real files ----------------------------------------------------------------

class PeerFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    peers_ = testing::FindPeersDir();
    if (!testing::IsDirectory(peers_)) GTEST_SKIP() << testing::PeersMissing(peers_);
  }
  ResultFile Import(const std::string& relative, const ImportOptions& options) {
    const std::string path = peers_ + "/" + relative;
    const std::string text = test_util::ReadText(path);
    EXPECT_FALSE(text.empty()) << path;
    absl::StatusOr<ImportedFile> imported = ImportPeerText(text, path, options);
    EXPECT_TRUE(imported.ok()) << imported.status();
    if (!imported.ok()) return ResultFile();
    absl::StatusOr<ResultFile> file = ParseResultJson(imported->json, path);
    EXPECT_TRUE(file.ok()) << file.status();
    if (!file.ok()) return ResultFile();
    EXPECT_GT(file->rows.size(), 5u) << path;
    return *file;
  }
  std::string peers_;
};

TEST_F(PeerFilesTest, EveryFileImports) {
  int files = 0;
  for (const auto& [folder, options] : std::vector<std::pair<std::string, ImportOptions>>{
           {"gpu-benches", GpuBenches()}, {"mt4g", Mt4g()}}) {
    for (const auto& entry : std::filesystem::directory_iterator(peers_ + "/" + folder)) {
      const std::string name = entry.path().filename().string();
      if (!absl::EndsWith(name, ".txt") && !absl::EndsWith(name, ".json")) continue;
      SCOPED_TRACE(name);
      const ResultFile file = Import(folder + "/" + name, options);
      EXPECT_FALSE(file.experiment.empty());
      ++files;
    }
  }
  EXPECT_EQ(files, 8);
}

TEST_F(PeerFilesTest, KnownValues) {
  const ResultFile gh200 = Import("gpu-benches/gpu-latency_gh200.txt", GpuBenches());
  const Row* row = FindRow(gh200, "footprint_bytes", "26016563");  // 25406.8 kB
  ASSERT_NE(row, nullptr);
  EXPECT_DOUBLE_EQ(*row->Counter("cycles_per_load"), 280.3);
  EXPECT_EQ(row->Counter("clock_mhz"), 1980);

  const ResultFile h100 = Import("mt4g/NVIDIA_H100_80GB_HBM3.json", Mt4g());
  EXPECT_EQ(h100.ContextOr("device_sm_count", ""), "132");
  EXPECT_EQ(h100.ContextOr("device_l2_bytes", ""), "52428800");
  EXPECT_EQ(h100.ContextOr("device_name", ""), "NVIDIA H100 80GB HBM3");
  const Row* l1 = FindRow(h100, "level", "L1");
  ASSERT_NE(l1, nullptr);
  EXPECT_EQ(l1->Counter("latency_cycles"), 38);
  EXPECT_EQ(FindRow(h100, "level", "L2")->Counter("capacity_bytes"), 52428800);

  const ResultFile a100 = Import("mt4g/NVIDIA_A100-PCIE-40GB.json", Mt4g());
  EXPECT_EQ(a100.ContextOr("device_compute_capability", ""), "8.0");
  EXPECT_EQ(a100.ContextOr("device_l2_bytes", ""), "41943040");

  const ResultFile cache = Import("gpu-benches/gpu-cache_a100_80.txt", GpuBenches());
  ASSERT_FALSE(cache.rows.empty());
  EXPECT_EQ(cache.rows[0].Counter("bandwidth_gbps"), 8425.6);
  EXPECT_EQ(AxisNumber(cache.rows[0], "footprint_bytes"), 1024);
  const ResultFile l2 = Import("gpu-benches/gpu-l2-cache_h200.txt", GpuBenches());
  ASSERT_FALSE(l2.rows.empty());
  EXPECT_EQ(l2.rows[0].Counter("bandwidth_gbps"), 13526.6);
  EXPECT_EQ(AxisNumber(l2.rows[0], "footprint_bytes"), 1536 * 1024);
}

}  // namespace
}  // namespace dissect::analysis
