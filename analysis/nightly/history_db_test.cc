#include "analysis/nightly/history_db.h"

#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/nightly/history_test_util.h"
#include "analysis/nightly/result_points.h"
#include "analysis/results/results.h"
#include "analysis/nightly/run_data.h"
#include "tools/testing/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;
using Json = nlohmann::json;
using history_testing::History;
using history_testing::ImportedFile;
using history_testing::kPoint;
using history_testing::OpenOrDie;
using history_testing::TempDir;
using history_testing::WriteJson;
using history_testing::WriteRun;

TEST(HistoryDbTest, NewDatabaseHasTheCurrentSchemaVersion) {
  auto db = OpenOrDie(TempDir("new") + "/history.db");
  ASSERT_NE(db, nullptr);
  absl::StatusOr<int> version = db->SchemaVersion();
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, kHistorySchemaVersion);
  EXPECT_EQ(*version, 4);
}

TEST(HistoryDbTest, IngestTwiceAddsNothingAndCountsTheSame) {
  auto db = OpenOrDie(TempDir("twice") + "/history.db");
  ASSERT_NE(db, nullptr);
  const std::vector<std::string> paths = {History("run_h100_night1"), History("loose"),
                                          History("foreign.json")};
  absl::StatusOr<IngestStats> first = db->Ingest(paths);
  ASSERT_TRUE(first.ok()) << first.status();
  // shared_latency + memory_latency_l2 of the run folder, the loose file.
  EXPECT_EQ(first->files, 3);
  EXPECT_EQ(first->runs, 2);
  EXPECT_EQ(first->rows, 5);  // 3 + 1 in the run (attempt 2 included), 1 loose
  EXPECT_EQ(first->skipped_duplicates, 0);
  EXPECT_EQ(first->bad, 2);
  ASSERT_THAT(first->bad_files, SizeIs(2));
  EXPECT_THAT(first->bad_files[0], HasSubstr("relu_bandwidth.json"));
  EXPECT_THAT(first->bad_files[1], HasSubstr("foreign.json: not a dissect result"));

  absl::StatusOr<IngestStats> second = db->Ingest(paths);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->files, 3);
  EXPECT_EQ(second->runs, 0);
  EXPECT_EQ(second->rows, 0);
  EXPECT_EQ(second->skipped_duplicates, 5);
  EXPECT_EQ(second->bad, 2);

  // The same run through its manifest or one of its result files.
  absl::StatusOr<IngestStats> third = db->Ingest(
      {History("run_h100_night1/manifest.json"), History("run_h100_night1/shared_latency.json")});
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_EQ(third->runs, 0);
  EXPECT_EQ(third->rows, 0);
  EXPECT_EQ(third->skipped_duplicates, 4);

  absl::StatusOr<std::vector<RunInfo>> runs = db->Runs("");
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_THAT(*runs, SizeIs(2));
  EXPECT_EQ((*runs)[0].run_id, "lab-box-0-20261120T140311Z");  // oldest first
  EXPECT_EQ((*runs)[1].run_id, "gpu-node-07-GPU-1111aaaa-20261123T020000Z");
}

TEST(HistoryDbTest, MissingPathIsBadAndTheRestGoesIn) {
  auto db = OpenOrDie(TempDir("missing") + "/history.db");
  ASSERT_NE(db, nullptr);
  absl::StatusOr<IngestStats> stats = db->Ingest({"/nonexistent/run", History("loose")});
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->bad, 1);
  EXPECT_THAT(stats->bad_files[0], HasSubstr("/nonexistent/run: no such file"));
  EXPECT_EQ(stats->rows, 1);
}

TEST(HistoryDbTest, LoadRunGivesBackWhatTheFolderHolds) {
  auto db = OpenOrDie(TempDir("load") + "/history.db");
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Ingest({History("run_h100_night1")}).ok());
  absl::StatusOr<RunData> folder = ReadRunFolder(History("run_h100_night1"));
  ASSERT_TRUE(folder.ok()) << folder.status();
  absl::StatusOr<RunData> loaded = db->LoadRun(folder->info.run_id);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->info.device_uuid, "GPU-1111aaaa");
  EXPECT_EQ(loaded->info.driver_version, "580.65.06");
  EXPECT_EQ(loaded->info.vbios, folder->info.vbios);
  EXPECT_EQ(loaded->info.started, folder->info.started);
  ASSERT_EQ(loaded->points.size(), folder->points.size());
  for (size_t i = 0; i < folder->points.size(); ++i) {
    const RunPoint& want = folder->points[i];
    const RunPoint& got = loaded->points[i];
    EXPECT_EQ(got.point, want.point);
    EXPECT_EQ(got.experiment, want.experiment);
    EXPECT_EQ(got.axes, want.axes);
    EXPECT_EQ(got.attempt, want.attempt);
    EXPECT_EQ(got.throttled, want.throttled);
    ASSERT_EQ(got.metrics.size(), want.metrics.size()) << want.point;
    for (const auto& [name, metric] : want.metrics) {
      EXPECT_EQ(got.metrics.at(name).value, metric.value) << name;
      EXPECT_EQ(got.metrics.at(name).spread, metric.spread) << name;
      EXPECT_EQ(got.metrics.at(name).unit, metric.unit) << name;
    }
  }
  // The entries, and those that measured nothing, as the folder says.
  EXPECT_EQ(loaded->entries, folder->entries);
  ASSERT_EQ(loaded->problems.size(), folder->problems.size());
  // The timed-out, pending and unreadable entries.
  ASSERT_THAT(loaded->problems, Not(IsEmpty()));
  for (size_t i = 0; i < folder->problems.size(); ++i) {
    EXPECT_EQ(loaded->problems[i].entry, folder->problems[i].entry);
    EXPECT_EQ(loaded->problems[i].experiment, folder->problems[i].experiment);
    EXPECT_EQ(loaded->problems[i].status, folder->problems[i].status);
    EXPECT_EQ(loaded->problems[i].reason, folder->problems[i].reason);
  }
  EXPECT_EQ(db->LoadRun("no-such-run").status().code(), absl::StatusCode::kNotFound);
}

TEST(HistoryDbTest, RunKeepsItsResultFiles) {
  auto db = OpenOrDie(TempDir("kept") + "/history.db");
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Ingest({History("run_h100_night1")}).ok());
  const std::string run_id = "gpu-node-07-GPU-1111aaaa-20261123T020000Z";
  // Every file that parses, whole; the corrupt relu_bandwidth.json not.
  absl::StatusOr<std::vector<StoredResultFile>> files = db->ResultFiles(run_id);
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_THAT(*files, SizeIs(2));
  EXPECT_EQ((*files)[0].name, "run_h100_night1/memory_latency_l2.json");
  EXPECT_EQ((*files)[1].name, "run_h100_night1/shared_latency.json");
  EXPECT_EQ((*files)[1].text, test_util::ReadText(History("run_h100_night1/shared_latency.json")));
  EXPECT_EQ(db->ResultFiles("no-such-run").status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<RunData> first = db->LoadRun(run_id);
  ASSERT_TRUE(first.ok()) << first.status();

  // Ingested again: the same files and problems, not a second copy.
  ASSERT_TRUE(db->Ingest({History("run_h100_night1")}).ok());
  files = db->ResultFiles(run_id);
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_THAT(*files, SizeIs(2));
  absl::StatusOr<RunData> again = db->LoadRun(run_id);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->problems.size(), first->problems.size());
}

TEST(HistoryDbTest, KeptFilesAreNamedByRunFolderWhicheverPathLedThere) {
  const std::string root = TempDir("names");
  const std::string run =
      WriteRun(root + "/nightly/2026-11-20", "run-a", "GPU-a", "2026-11-20T02:00:00Z", 30);
  for (const std::string& path : {root + "/nightly", run, run + "/", run + "/manifest.json",
                                  run + "/shared_latency.json", run + "/../run-a"}) {
    fs::remove(root + "/history.db");
    auto db = OpenOrDie(root + "/history.db");
    ASSERT_NE(db, nullptr);
    ASSERT_TRUE(db->Ingest({path}).ok()) << path;
    absl::StatusOr<std::vector<StoredResultFile>> files = db->ResultFiles("run-a");
    ASSERT_TRUE(files.ok()) << files.status();
    ASSERT_THAT(*files, SizeIs(1)) << path;
    EXPECT_EQ((*files)[0].name, "run-a/shared_latency.json") << path;
  }
  EXPECT_EQ(RunFileName(".", "x/shared_latency.json"),
            fs::current_path().filename().string() + "/shared_latency.json");
}

TEST(HistoryDbTest, ImportedResultsKeepTheirSourceAndAreNoRunOfOurs) {
  const std::string dir = TempDir("imported");
  const std::string file = ImportedFile(dir);
  auto db = OpenOrDie(dir + "/history.db");
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Ingest({file, History("run_h100_night1")}).ok());
  absl::StatusOr<std::vector<RunInfo>> ours = db->Runs("");
  ASSERT_TRUE(ours.ok()) << ours.status();
  ASSERT_THAT(*ours, SizeIs(1));
  EXPECT_EQ((*ours)[0].run_id, "gpu-node-07-GPU-1111aaaa-20261123T020000Z");
  absl::StatusOr<std::vector<RunInfo>> all = db->Runs("", /*with_imported=*/true);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_THAT(*all, SizeIs(2));
  const RunInfo& imported = (*all)[0];  // measured in 2025, before our run
  EXPECT_TRUE(IsImported(imported));
  EXPECT_EQ(imported.source, "mt4g@4cc55662a954");
  EXPECT_EQ(imported.source_program, "mt4g");
  EXPECT_EQ(imported.source_method, "p-chase mean");
  EXPECT_EQ(imported.started, "2025-08-10T00:03:09Z");
  EXPECT_EQ(imported.driver_version,
            "");  // the suite's CUDA version is no driver of ours
  absl::StatusOr<RunData> loaded = db->LoadRun(imported.run_id);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->info.source, "mt4g@4cc55662a954");
  // Never a baseline of ours.
  absl::StatusOr<std::vector<RunData>> last = db->LastRuns("NVIDIA H100 80GB HBM3@", 7);
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_THAT(*last, IsEmpty());
  absl::StatusOr<std::vector<StoredResultFile>> files = db->ResultFiles(imported.run_id);
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_THAT(*files, SizeIs(1));
  EXPECT_EQ((*files)[0].name, "mt4g_excerpt.json");
  EXPECT_EQ((*files)[0].text, test_util::ReadText(file));
}

TEST(HistoryDbTest, ImportedFileIngestedAgainGetsItsSource) {
  const std::string dir = TempDir("imported_again");
  const std::string path = ImportedFile(dir);
  const std::string text = test_util::ReadText(path);
  absl::StatusOr<ResultFile> file = ParseResultJson(text, path);
  ASSERT_TRUE(file.ok()) << file.status();
  auto db = OpenOrDie(dir + "/history.db");
  ASSERT_NE(db, nullptr);
  // As a database before schema version 3 held it: a loose run like ours.
  RunData old;
  old.info = LooseRunInfo(*file, text);
  old.points = PointsOfResultFile(*file);
  ASSERT_TRUE(db->AddRuns({old}).ok());
  absl::StatusOr<std::vector<RunInfo>> ours = db->Runs("");
  ASSERT_TRUE(ours.ok()) << ours.status();
  ASSERT_THAT(*ours, SizeIs(1));
  // Ingested again (the same run id): it is imported, with its file.
  absl::StatusOr<IngestStats> stats = db->Ingest({path});
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->runs, 0);
  ours = db->Runs("");
  ASSERT_TRUE(ours.ok()) << ours.status();
  EXPECT_THAT(*ours, IsEmpty());
  absl::StatusOr<std::vector<RunInfo>> all = db->Runs("", /*with_imported=*/true);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_THAT(*all, SizeIs(1));
  EXPECT_EQ((*all)[0].source, "mt4g@4cc55662a954");
  EXPECT_EQ((*all)[0].started, "2025-08-10T00:03:09Z");
  absl::StatusOr<std::vector<StoredResultFile>> files = db->ResultFiles(old.info.run_id);
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_THAT(*files, SizeIs(1));
}

TEST(HistoryDbTest, AxesWithSeparatorsComeBackAsTheyWent) {
  auto db = OpenOrDie(TempDir("odd_axes") + "/history.db");
  ASSERT_NE(db, nullptr);
  RunData run;
  run.info.run_id = "odd-run";
  run.info.device_uuid = "GPU-odd";
  RunPoint point;
  point.experiment = "odd";
  point.point = "odd/a:1";
  point.axes = {{"a", "1"}, {"b%2F", "x/y:z%"}, {"", ""}};
  point.metrics["m"] = {1.5, std::nullopt, "u"};
  run.points.push_back(point);
  RunPoint bare = point;
  bare.point = "bare";
  bare.axes.clear();
  run.points.push_back(bare);
  absl::StatusOr<IngestStats> stats = db->AddRuns({run});
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->rows, 2);
  absl::StatusOr<RunData> loaded = db->LoadRun("odd-run");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_THAT(loaded->points, SizeIs(2));
  EXPECT_EQ(loaded->points[0].axes, point.axes);
  EXPECT_TRUE(loaded->points[1].axes.empty());
  EXPECT_EQ(loaded->points[1].metrics.at("m").unit, "u");
}

// Many loose files, some corrupt: read on one thread while inserted on
// another, the counts and the order of the bad files are the walk's.
TEST(HistoryDbTest, IngestOfManyFilesNamesTheBadOnesInOrder) {
  const std::string dir = TempDir("many");
  std::vector<std::string> want_bad;
  for (int f = 0; f < 40; ++f) {
    const std::string name = absl::StrCat(dir, "/f", f < 10 ? "0" : "", f, ".json");
    if (f % 7 == 3) {
      std::ofstream(name) << "{\"context\": {\"dissect_schema_version\": \"1\"";
      want_bad.push_back(name);
      continue;
    }
    WriteJson(
        name,
        {{"context",
          {{"dissect_schema_version", "1"},
           {"dissect_experiment", "shared_latency"},
           {"dissect_axes", "footprint_bytes"},
           {"dissect_metrics", "cycles_per_load"},
           {"host_name", "h"},
           {"date", absl::StrCat("2026-01-01T02:00:", f < 10 ? "0" : "", f, "Z")}}},
         {"benchmarks",
          {{{"name", absl::StrCat("shared_latency/footprint_bytes:", f)}, {"cycles_per_load", f}},
           {{"name", absl::StrCat("shared_latency/footprint_bytes:", f + 100)},
            {"cycles_per_load", f}}}}});
  }
  auto db = OpenOrDie(dir + "/history.db");
  ASSERT_NE(db, nullptr);
  absl::StatusOr<IngestStats> stats = db->Ingest({dir, "/nonexistent/x.json"});
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->files, 40 - static_cast<int>(want_bad.size()));
  EXPECT_EQ(stats->runs, stats->files);
  EXPECT_EQ(stats->rows, 2 * stats->files);
  EXPECT_EQ(stats->bad, static_cast<int>(want_bad.size()) + 1);
  ASSERT_THAT(stats->bad_files, SizeIs(want_bad.size() + 1));
  for (size_t i = 0; i < want_bad.size(); ++i) {
    EXPECT_THAT(stats->bad_files[i], HasSubstr(want_bad[i] + ": malformed JSON"));
  }
  EXPECT_THAT(stats->bad_files.back(), HasSubstr("/nonexistent/x.json: no such file"));
}

// The result-file reader has a fast path for plain files and the full
// nlohmann::json one; a "NaN" anywhere in the text sends a file down the
// full one. Both give the same ResultFile.
TEST(HistoryDbTest, FastAndFullResultReadersAgree) {
  const std::string body =
      R"({"context": {"date": "2026-11-23T02:00:00+00:00", "host_name": "h",
  "num_cpus": 2, "mhz_per_cpu": 3000.5, "cpu_scaling_enabled": false, "x": null,
  "caches": [{"type": "Data", "level": 1, "size": 32768}], "big": 1e300,
  "dissect_schema_version": "1", "dissect_experiment": "memory_latency",
  "dissect_axes": "path, footprint_bytes", "dissect_metrics": "cycles_per_load,ns_per_load",
  "metric.cycles_per_load.unit": "cycles/load", "host_name": "h2"},
 "other": {"deep": [[1, 2], {"a": "b"}]},
 "benchmarks": [
  {"name": "memory_latency/path:global_cg/footprint_bytes:1024/iterations:1/manual_time",
   "run_type": "iteration", "iterations": 1, "real_time": 12.5, "cpu_time": 13, "time_unit": "us",
   "cycles_per_load": 30, "cycles_per_load.spread": 0.01, "ns_per_load": -0,
   "huge": 18446744073709551615, "huger": 98446744073709551615, "neg": -9223372036854775808,
   "tiny": 1.5e-320, "exp": 2E+3, "s": "text", "dup": 1, "dup": "x", "dup2": "a", "dup2": 4,
   "label": "first", "label": 3, "throttled": 1, "attempt": 2, "flag": true, "nothing": null},
  {"name": "memory_latency/path:global_ca/footprint_bytes:2048/repeats:3", "error_occurred": true,
   "error_message": "skipped: no", "real_time": "x", "label": "l", "time_unit": "ns"}
 ]})";
  absl::StatusOr<ResultFile> fast = ParseResultJson(body, "f.json");
  std::string slow_text = body;
  slow_text.insert(slow_text.find("\"date\""), "\"marker\": \"NaN\", ");
  absl::StatusOr<ResultFile> slow = ParseResultJson(slow_text, "f.json");
  ASSERT_TRUE(fast.ok()) << fast.status();
  ASSERT_TRUE(slow.ok()) << slow.status();
  slow->context.erase("marker");
  EXPECT_EQ(fast->context, slow->context);
  EXPECT_EQ(fast->context.at("caches"), R"([{"level":1,"size":32768,"type":"Data"}])");
  EXPECT_EQ(fast->context.at("host_name"), "h2");
  EXPECT_EQ(fast->experiment, slow->experiment);
  EXPECT_EQ(fast->axis_names, slow->axis_names);
  EXPECT_EQ(fast->metric_names, slow->metric_names);
  ASSERT_EQ(fast->rows.size(), slow->rows.size());
  for (size_t i = 0; i < fast->rows.size(); ++i) {
    const Row& a = fast->rows[i];
    const Row& b = slow->rows[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.axes, b.axes);
    EXPECT_EQ(a.label, b.label);
    EXPECT_EQ(a.error, b.error);
    EXPECT_EQ(a.error_message, b.error_message);
    EXPECT_EQ(a.real_time, b.real_time);
    EXPECT_EQ(a.time_unit, b.time_unit);
    ASSERT_EQ(a.counters.size(), b.counters.size()) << a.name;
    for (const auto& [key, value] : b.counters) {
      ASSERT_EQ(a.counters.count(key), 1u) << key;
      EXPECT_EQ(std::signbit(a.counters.at(key)), std::signbit(value)) << key;
      EXPECT_EQ(a.counters.at(key), value) << key;
    }
  }
  EXPECT_EQ(fast->rows[0].counters.at("dup2"), 4);
  EXPECT_EQ(fast->rows[0].counters.count("dup"), 0u);

  // Errors are the full reader's, word for word.
  for (const std::string& bad :
       {std::string(R"({"context": {"dissect_schema_version": "1"}, "benchmarks": []})"),
        body.substr(0, body.size() / 2), std::string(R"({"context": {}} x)"),
        std::string(R"({"context": {"dissect_schema_version": "1", "dissect_experiment": "e"},)"
                    R"( "benchmarks": [{"name": "e/a:1"}]})")}) {
    absl::StatusOr<ResultFile> file = ParseResultJson(bad, "bad.json");
    ASSERT_FALSE(file.ok());
    EXPECT_THAT(std::string(file.status().message()), HasSubstr("bad.json: ")) << bad;
  }
}

class TrendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = TempDir("trend");
    db_ = OpenOrDie(root_ + "/history.db");
    ASSERT_NE(db_, nullptr);
    // Ingested out of order; night 3 re-measured a throttled point.
    std::vector<std::string> folders = {
        WriteRun(root_, "n3", "GPU-a", "2026-11-03T02:00:00Z", 33,
                 /*rethrottle=*/true),
        WriteRun(root_, "n1", "GPU-a", "2026-11-01T02:00:00Z", 31),
        WriteRun(root_, "n2", "GPU-a", "2026-11-02T03:00:00+01:00", 32),
        WriteRun(root_, "n4", "GPU-a", "2026-11-04T02:00:00Z", 34, false, "590.10"),
        WriteRun(root_, "b1", "GPU-b", "2026-11-02T02:00:00Z", 99),
    };
    absl::StatusOr<IngestStats> stats = db_->Ingest(folders);
    ASSERT_TRUE(stats.ok()) << stats.status();
    ASSERT_EQ(stats->bad, 0);
  }
  std::string root_;
  std::unique_ptr<HistoryDb> db_;
};

TEST_F(TrendTest, OldestFirstWithValuesAndProvenance) {
  absl::StatusOr<std::vector<TrendPoint>> trend = db_->Trend("GPU-a", kPoint, "cycles_per_load");
  ASSERT_TRUE(trend.ok()) << trend.status();
  ASSERT_THAT(*trend, SizeIs(4));
  std::vector<std::string> ids;
  std::vector<double> values;
  for (const TrendPoint& p : *trend) {
    ids.push_back(p.run_id);
    values.push_back(p.value);
  }
  EXPECT_THAT(ids, ElementsAre("n1", "n2", "n3", "n4"));
  EXPECT_THAT(values, ElementsAre(31, 32, 33, 34));
  EXPECT_EQ((*trend)[1].started, "2026-11-02T02:00:00Z");  // normalized to UTC
  EXPECT_EQ((*trend)[0].spread, 0.01);
  EXPECT_EQ((*trend)[0].git_commit, "c0ffee");
  EXPECT_EQ((*trend)[3].driver_version, "590.10");
}

TEST_F(TrendTest, ReMeasurementReplacesTheThrottledAttempt) {
  absl::StatusOr<std::vector<TrendPoint>> trend =
      db_->Trend("GPU-a", "shared_latency/footprint_bytes:8192/stride_bytes:4", "cycles_per_load");
  ASSERT_TRUE(trend.ok()) << trend.status();
  ASSERT_THAT(*trend, SizeIs(1));
  EXPECT_EQ((*trend)[0].value, 33);  // attempt 2, not the throttled 66
}

TEST_F(TrendTest, UnknownPointOrMetricIsEmptyUnknownDeviceAnError) {
  absl::StatusOr<std::vector<TrendPoint>> trend = db_->Trend("GPU-a", "nope", "cycles_per_load");
  ASSERT_TRUE(trend.ok());
  EXPECT_TRUE(trend->empty());
  trend = db_->Trend("GPU-a", kPoint, "nope");
  ASSERT_TRUE(trend.ok());
  EXPECT_TRUE(trend->empty());
  EXPECT_EQ(db_->Trend("GPU-z", kPoint, "cycles_per_load").status().code(),
            absl::StatusCode::kNotFound);
  // Both devices share the name: ambiguous.
  absl::Status ambiguous = db_->Trend("NVIDIA H100 80GB HBM3", kPoint, "cycles_per_load").status();
  EXPECT_EQ(ambiguous.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(ambiguous.message()), HasSubstr("2 devices are named"));
}

TEST_F(TrendTest, RunsOfADeviceOrByName) {
  absl::StatusOr<std::vector<RunInfo>> runs = db_->Runs("GPU-b");
  ASSERT_TRUE(runs.ok());
  ASSERT_THAT(*runs, SizeIs(1));
  EXPECT_EQ((*runs)[0].run_id, "b1");
  runs = db_->Runs("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(runs.ok());
  EXPECT_THAT(*runs, SizeIs(5));
}

TEST_F(TrendTest, LastRunsBeforeARunOldestFirst) {
  absl::StatusOr<std::vector<RunData>> runs = db_->LastRuns("GPU-a", 2);
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_THAT(*runs, SizeIs(2));
  EXPECT_EQ((*runs)[0].info.run_id, "n3");
  EXPECT_EQ((*runs)[1].info.run_id, "n4");
  EXPECT_THAT((*runs)[0].points, SizeIs(3));

  runs = db_->LastRuns("GPU-a", 2, "n3");
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_THAT(*runs, SizeIs(2));
  EXPECT_EQ((*runs)[0].info.run_id, "n1");
  EXPECT_EQ((*runs)[1].info.run_id, "n2");

  runs = db_->LastRuns("GPU-a", 10, "n1");
  ASSERT_TRUE(runs.ok());
  EXPECT_TRUE(runs->empty());
  EXPECT_EQ(db_->LastRuns("GPU-a", 2, "nope").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(TrendTest, DevicesPointsAndMetrics) {
  absl::StatusOr<std::vector<DeviceSummary>> devices = db_->Devices();
  ASSERT_TRUE(devices.ok());
  ASSERT_THAT(*devices, SizeIs(2));
  EXPECT_EQ((*devices)[0].key, "GPU-a");
  EXPECT_EQ((*devices)[0].runs, 4);
  EXPECT_EQ((*devices)[0].first_started, "2026-11-01T02:00:00Z");
  EXPECT_EQ((*devices)[0].last_started, "2026-11-04T02:00:00Z");
  absl::StatusOr<std::vector<std::string>> points = db_->Points("GPU-b");
  ASSERT_TRUE(points.ok());
  EXPECT_THAT(*points, ElementsAre(kPoint));
  absl::StatusOr<std::vector<std::string>> metrics = db_->Metrics("GPU-a", kPoint);
  ASSERT_TRUE(metrics.ok());
  EXPECT_THAT(*metrics, ElementsAre("cycles_per_load"));
}

}  // namespace
}  // namespace dissect::analysis
