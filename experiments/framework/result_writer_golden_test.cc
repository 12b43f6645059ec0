// Golden test of the result writer: a synthetic experiment (no GPU) runs
// through the real runner and reporter; the JSON it writes, with volatile
// fields masked, must match testdata/synthetic_result.golden.json.
//
// To accept a deliberate format change:
//   DISSECT_UPDATE_GOLDEN=1 bazel run //experiments/framework:result_writer_golden_test
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "experiments/result_format/reader.h"
#include "experiments/framework/experiment.h"
#include "experiments/result_format/atomic_file.h"
#include "experiments/result_format/writer.h"
#include "experiments/framework/run_test_util.h"
#include "experiments/framework/runner.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace dissect {
namespace {

using Json = nlohmann::ordered_json;

constexpr char kGolden[] = "experiments/framework/testdata/synthetic_result.golden.json";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Masks what legitimately differs between machines and builds.
Json Normalize(Json doc) {
  for (const char* key :
       {"date", "host_name", "executable", "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled",
        "caches", "load_avg", "library_build_type", "git_commit", "git_dirty", "build_mode",
        "build_cuda_archs", "build_nvcc_version", "build_host_compiler"}) {
    if (doc["context"].contains(key)) doc["context"][key] = "<volatile>";
  }
  for (Json& row : doc["benchmarks"]) {
    if (row.contains("cpu_time")) row["cpu_time"] = "<volatile>";
  }
  return doc;
}

DeviceInfo SyntheticDevice() {
  DeviceInfo d;
  d.name = "Synthetic GPU (test fixture)";
  d.pci_bus_id = "0000:00:00.0";
  d.cc_major = 9;
  d.sm_count = 132;
  d.max_threads_per_sm = 2048;
  d.l2_bytes = 50 << 20;
  d.shared_per_block_optin_bytes = 232448;
  d.sm_clock_max_khz = 1980000;
  d.memory_clock_khz = 2619000;
  d.memory_bus_width_bits = 5120;
  d.driver_version = 13000;
  d.runtime_version = 13000;
  return d;
}

TEST(ResultWriterGoldenTest, SyntheticExperimentMatchesGolden) {
  const std::string out = std::string(std::getenv("TEST_TMPDIR")) + "/result.json";
  int mid_sweep_rows = -1;
  Experiment exp("synthetic");
  exp.Question("Does the writer produce the result schema?")
      .AddAxis(IntAxis("footprint_bytes", "B", {1024, 2048, 4096}))
      .AddAxis(StringAxis("timing", {"hot", "cold"}, {"hot"}))
      .AddMetric("cycles_per_load", "cycles/load", "latency")
      .AddMetric("ns_per_load", "ns/load")
      .AddVector("per_sm", "cycles", "sm", "one value per SM")
      .Headline("cycles_per_load")
      .Run([&](PointContext& ctx) -> absl::Status {
        const int64_t footprint = ctx.Int("footprint_bytes");
        if (footprint == 2048) {
          // The file on disk must already be complete, valid JSON.
          Json partial = Json::parse(ReadFile(out));
          mid_sweep_rows = static_cast<int>(partial["benchmarks"].size());
          return Skipped("footprint exceeds synthetic limit");
        }
        if (footprint == 4096) return absl::InternalError("synthetic failure");
        ctx.RecordTimeSamples({1.0, 3.0, 2.0, 2.5});
        ctx.AddNote("a note from the experiment");
        // The SM clock dropped under a power cap during the samples.
        absl::StatusOr<ClockSpan> clock = SummarizeClock(
            {{1980, 0}, {1755, kThrottleSwPowerCap}, {1830, kThrottleSwPowerCap}, {1980, 0}});
        if (!clock.ok()) return clock.status();
        ctx.RecordClockSpan(*clock);
        if (auto s = ctx.AddSamples("cycles_per_load", {30, 31, 29, 30}); !s.ok()) {
          return s;
        }
        if (auto s = ctx.SetVector("per_sm", {30, 31.5, 32}); !s.ok()) return s;
        return ctx.AddSamples("ns_per_load", {16, 17, 15, 16});
      });
  RunEnv env;
  env.device = SyntheticDevice();
  env.clocks_source = "unavailable: synthetic";
  env.progress = false;
  result_format::AtomicJsonReporter file(out);
  const int failures = RunPointsQuietly(exp, exp.axes(), env, file);
  EXPECT_EQ(failures, 1);
  // The throttled 1024 point and its re-measure (RunEnv::cooldown_s 0).
  EXPECT_EQ(mid_sweep_rows, 2);
  ASSERT_TRUE(file.status().ok()) << file.status();
  EXPECT_FALSE(std::ifstream(out + ".tmp").good()) << "temporary file left behind";

  // The analysis layer must read what the harness writes.
  auto parsed = result_format::ReadResultFile(out);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->experiment, "synthetic");
  EXPECT_EQ(parsed->axis_names, (std::vector<std::string>{"footprint_bytes", "timing"}));
  EXPECT_EQ(parsed->MetricUnit("cycles_per_load"), "cycles/load");
  EXPECT_EQ(parsed->ContextOr(result_format::kHeadlineMetricKey, ""), "cycles_per_load");
  ASSERT_EQ(parsed->rows.size(), 4u);
  EXPECT_EQ(parsed->rows[0].Axis("footprint_bytes"), "1024");
  EXPECT_EQ(parsed->rows[0].Counter("cycles_per_load"), 30.0);
  EXPECT_EQ(parsed->rows[0].Counter("per_sm[0]"), 30.0);
  EXPECT_EQ(parsed->rows[0].Counter("per_sm[1]"), 31.5);
  EXPECT_EQ(parsed->rows[0].Counter("per_sm[2]"), 32.0);
  EXPECT_FALSE(parsed->rows[0].Counter("per_sm[3]").has_value());
  EXPECT_EQ(parsed->rows[0].Counter("clock_moved"), 1.0);
  EXPECT_EQ(parsed->rows[0].Counter("sm_clock_mhz.min"), 1755.0);
  EXPECT_EQ(parsed->rows[0].Counter("sm_clock_mhz.median"), 1905.0);
  EXPECT_EQ(parsed->rows[0].Counter("sm_clock_mhz.max"), 1980.0);
  EXPECT_EQ(parsed->rows[0].Counter("throttled"), 1.0);
  EXPECT_EQ(parsed->rows[0].label,
            "sw_power_cap; clock moved 1755-1980 MHz; a note from the experiment");
  EXPECT_EQ(parsed->rows[1].name, parsed->rows[0].name);
  EXPECT_EQ(parsed->rows[1].Counter("attempt"), 2.0);
  EXPECT_EQ(parsed->rows[1].Counter("throttled"), 1.0);
  EXPECT_EQ(parsed->rows[1].label,
            "sw_power_cap; clock moved 1755-1980 MHz; re-measured after throttling (cool-down 0 "
            "s); a note from the experiment");
  EXPECT_TRUE(parsed->rows[2].error);

  const std::string actual = Normalize(Json::parse(ReadFile(out))).dump(2) + "\n";
  const char* update = std::getenv("DISSECT_UPDATE_GOLDEN");
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (update != nullptr && workspace != nullptr) {
    std::ofstream(std::string(workspace) + "/" + kGolden) << actual;
    std::cerr << "updated " << kGolden << "\n";
    return;
  }
  const std::string golden =
      ReadFile(std::string(std::getenv("TEST_SRCDIR")) + "/dissect/" + kGolden);
  EXPECT_EQ(actual, golden) << "regenerate with DISSECT_UPDATE_GOLDEN=1 bazel run "
                               "//experiments/framework:result_writer_golden_test";
}

// An experiment's own context (here the L1 carveout, which the analysis
// compares between files) follows the harness's keys, and --help lists it.
// Checked on ResultContext: Google Benchmark keeps one context per process,
// already written by the golden test above.
TEST(ResultContextTest, ExperimentContextFollowsTheHarnessKeys) {
  Experiment exp("synthetic_context");
  exp.AddContext(kL1CarveoutKey, L1CarveoutName(cudaSharedmemCarveoutMaxL1));
  RunEnv env;
  env.device = SyntheticDevice();
  const std::vector<std::pair<std::string, std::string>> ctx =
      ResultContext(exp, exp.axes(), env);
  ASSERT_FALSE(ctx.empty());
  EXPECT_EQ(ctx.front().first, "dissect_schema_version");
  // The harness writes the newest version the reader takes.
  EXPECT_EQ(ctx.front().second, result_format::kSupportedSchemaVersion);
  EXPECT_EQ(ctx.back(), std::make_pair(std::string("l1_carveout"), std::string("max_l1")));
  EXPECT_NE(HelpText(exp, "synthetic_context").find("l1_carveout        max_l1"),
            std::string::npos);
}

TEST(ResultContextTest, L1CarveoutNames) {
  EXPECT_EQ(L1CarveoutName(cudaSharedmemCarveoutMaxL1), "max_l1");
  EXPECT_EQ(L1CarveoutName(cudaSharedmemCarveoutMaxShared), "max_shared");
  EXPECT_EQ(L1CarveoutName(cudaSharedmemCarveoutDefault), "default");
  EXPECT_EQ(L1CarveoutName(50), "50pct_shared");
}

TEST(AtomicJsonReporterTest, SnapshotBeforeAnyRowIsValidJson) {
  result_format::AtomicJsonReporter reporter("");
  benchmark::BenchmarkReporter::Context context;
  reporter.ReportContext(context);
  Json doc = Json::parse(reporter.Snapshot());
  EXPECT_TRUE(doc["benchmarks"].empty());
  reporter.Finalize();
  EXPECT_EQ(Json::parse(reporter.Snapshot())["benchmarks"].size(), 0u);
}

TEST(WriteFileAtomicallyTest, ReportsUnwritablePath) {
  EXPECT_FALSE(result_format::WriteFileAtomically("/nonexistent-dir/x.json", "{}").ok());
}

}  // namespace
}  // namespace dissect
