// The dashboard from the history database against the dashboard from the
// run folders it was ingested from, and the page of imported results.

#include "analysis/pages/dashboard_history.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/pages/dashboard.h"
#include "analysis/nightly/history_db.h"
#include "analysis/nightly/regression.h"
#include "tools/testing/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

void Copy(const std::string& testdata, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy_file(test_util::Runfile("analysis/testdata/" + testdata), to,
                fs::copy_options::overwrite_existing);
}

// Two nights of one H100: 2026-11-22 (shared and memory latency, one entry
// failed) and analysis/testdata/history's 2026-11-23 (a corrupt file, a
// timed-out and a pending entry).
fs::path WriteNights(const fs::path& dir) {
  const fs::path nightly = dir / "nightly";
  const fs::path first = nightly / "2026-11-22" / "run_a";
  fs::create_directories(first);
  std::ofstream(first / "manifest.json") << R"({
  "format": "dissect.manifest.v1", "run_id": "gpu-node-07-GPU-1111aaaa-20261122T020000Z",
  "sweep": "nightly", "host": "gpu-node-07", "started": "2026-11-22T02:00:00Z",
  "git_commit": "aaaa000011112222333344445555666677778888",
  "device": {"index": 0, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-1111aaaa",
             "driver_version": "580.65.06"},
  "entries": [
    {"id": "shared_latency", "experiment": "shared_latency", "status": "ok",
     "result_file": "shared_latency.json"},
    {"id": "memory_latency", "experiment": "memory_latency", "status": "ok",
     "result_file": "memory_latency.json"},
    {"id": "mma_sync", "experiment": "mma_sync", "status": "failed",
     "reason": "exit code 1: no CUDA device visible"}]})";
  Copy("history/run_h100_night1/shared_latency.json", first / "shared_latency.json");
  Copy("synthetic_memory_latency.json", first / "memory_latency.json");
  const fs::path second = nightly / "2026-11-23" / "run_h100_night1";
  for (const char* file :
       {"manifest.json", "shared_latency.json", "memory_latency_l2.json", "relu_bandwidth.json"}) {
    Copy(absl::StrCat("history/run_h100_night1/", file), second / file);
  }
  return nightly;
}

DashboardOptions PageOptions() {
  DashboardOptions options;
  options.run_gnuplot = [](const std::string& dir, const std::string& script) {
    std::ofstream(fs::path(dir) / fs::path(script).replace_extension(".svg")) << "<svg/>";
    return std::string();
  };
  Thresholds thresholds;
  thresholds.defaults.relative_tolerance = 0.03;
  thresholds.metrics["cycles_per_load"].direction = Direction::kLowerIsBetter;
  options.find = [thresholds](const std::vector<RunData>& night,
                              const std::map<std::string, std::vector<RunData>>& history) {
    return CheckNight(night, history, thresholds, 7);
  };
  return options;
}

// The site written from `history` (a folder or a database) into `out`: each
// page's path relative to `out` and its text.
std::map<std::string, std::string> Site(const std::string& history, const fs::path& out) {
  absl::StatusOr<DashboardInput> input = ReadDashboardInput(history);
  EXPECT_TRUE(input.ok()) << input.status();
  if (!input.ok()) return {};
  absl::StatusOr<DashboardSummary> summary = WriteDashboard(*input, out.string(), PageOptions());
  EXPECT_TRUE(summary.ok()) << summary.status();
  std::map<std::string, std::string> pages;
  if (!summary.ok()) return pages;
  for (const std::string& page : summary->pages) {
    pages[fs::path(page).lexically_relative(out).string()] = test_util::ReadText(page);
  }
  return pages;
}

std::string Ingest(const fs::path& db_path, const std::vector<std::string>& paths) {
  absl::StatusOr<std::unique_ptr<HistoryDb>> db = HistoryDb::Open(db_path.string());
  EXPECT_TRUE(db.ok()) << db.status();
  if (!db.ok()) return "";
  absl::StatusOr<IngestStats> stats = (*db)->Ingest(paths);
  EXPECT_TRUE(stats.ok()) << stats.status();
  return db_path.string();
}

// Both sites have the same pages, page for page.
void ExpectSamePages(const std::map<std::string, std::string>& from_folder,
                     const std::map<std::string, std::string>& from_db) {
  ASSERT_THAT(from_folder, SizeIs(3));  // the index and two nights
  ASSERT_EQ(from_db.size(), from_folder.size());
  for (const auto& [page, html] : from_folder) {
    ASSERT_EQ(from_db.count(page), 1u) << page;
    EXPECT_EQ(from_db.at(page), html) << page << " differs between the folder and the database";
  }
}

TEST(DashboardFromHistoryTest, DatabaseGivesThePagesOfTheFoldersItWasIngestedFrom) {
  const fs::path dir = test_util::FreshTempDir("same_pages");
  const fs::path nightly = WriteNights(dir);
  const std::map<std::string, std::string> from_folder =
      Site(nightly.string(), dir / "from_folder");
  const std::string db = Ingest(dir / "history.db", {nightly.string()});
  const std::map<std::string, std::string> from_db = Site(db, dir / "from_db");
  ExpectSamePages(from_folder, from_db);
  // Each run folder ingested on its own, as tools/slurm/after_night.sbatch
  // does: the same pages.
  const std::string per_run =
      Ingest(dir / "per_run.db", {(nightly / "2026-11-22" / "run_a").string(),
                                  (nightly / "2026-11-23" / "run_h100_night1").string()});
  ExpectSamePages(from_folder, Site(per_run, dir / "from_per_run_db"));
  // What made them differ: the device facts, labels and clocks of the files.
  const std::string night = from_db.at("2026-11-22/index.html");
  EXPECT_THAT(night, HasSubstr("cc 9.0 \u00b7 132 SMs"));
  EXPECT_THAT(night, Not(HasSubstr("no clocks, labels or device facts")));
  EXPECT_THAT(night, HasSubstr("no CUDA device visible"));
}

TEST(DashboardFromHistoryTest, ImportedResultsAreShownApartAndAreNoNight) {
  const fs::path dir = test_util::FreshTempDir("imported");
  const fs::path nightly = WriteNights(dir);
  const fs::path peers = dir / "imported";
  fs::create_directories(peers);
  std::ofstream(peers / "mt4g_h100.json") << R"({"context": {
    "dissect_schema_version": "1", "dissect_experiment": "hierarchy_summary",
    "dissect_axes": "level", "dissect_metrics": "latency_cycles",
    "metric.latency_cycles.unit": "cycles", "device_name": "NVIDIA H100 80GB HBM3",
    "device_sm_count": "132", "driver_version": "12.2", "source": "mt4g@4cc55662a954",
    "source_file": "peers/mt4g/NVIDIA_H100_80GB_HBM3.json", "source_format": "mt4g",
    "source_method": "mean of mt4g's p-chase latency samples",
    "source_date": "2025-08-10T00:03:09Z", "imported_by": "dissect analysis/import",
    "import_date": "2026-11-27T09:05:15Z"},
  "benchmarks": [{"name": "hierarchy_summary/level:L1/iterations:1/manual_time",
    "run_type": "iteration", "iterations": 1, "real_time": 0, "time_unit": "ms",
    "latency_cycles": 38.0, "label": "source: mt4g@4cc55662a954; method: p-chase"}]})";
  std::ofstream(peers / "gpu-latency_gh200.json") << R"({"context": {
    "dissect_schema_version": "1", "dissect_experiment": "memory_latency",
    "dissect_axes": "path,footprint_bytes", "dissect_metrics": "cycles_per_load",
    "metric.cycles_per_load.unit": "cycles/load", "device_name": "NVIDIA GH200",
    "source": "gpu-benches@1038c5d0d0f4", "source_format": "gpu-latency",
    "source_method": "pointer chase, typical cycles per load",
    "source_file": "peers/gpu-benches/gpu-latency_gh200.txt",
    "imported_by": "dissect analysis/import", "import_date": "2026-11-27T09:05:15Z"},
  "benchmarks": [{"name": "memory_latency/path:global_ca/footprint_bytes:2048/iterations:1/manual_time",
    "run_type": "iteration", "iterations": 1, "real_time": 0, "time_unit": "ms",
    "cycles_per_load": 32.0}]})";
  const std::string db = Ingest(dir / "history.db", {nightly.string(), peers.string()});
  const std::map<std::string, std::string> site = Site(db, dir / "site");
  // Our two nights, the index and the imported page; no night "unknown".
  EXPECT_EQ(site.count("unknown/index.html"), 0u);
  EXPECT_FALSE(fs::exists(dir / "site" / "unknown"));
  ASSERT_EQ(site.count("imported/index.html"), 1u);
  EXPECT_THAT(site, SizeIs(4));
  const std::string& index = site.at("index.html");
  EXPECT_THAT(index, HasSubstr("href=\"imported/index.html\""));
  EXPECT_THAT(index, HasSubstr("mt4g@4cc55662a954"));
  EXPECT_THAT(index, HasSubstr("gpu-benches@1038c5d0d0f4"));
  const std::string& page = site.at("imported/index.html");
  for (const char* shown : {"mt4g@4cc55662a954", "gpu-benches@1038c5d0d0f4", "gpu-latency",
                            "mean of mt4g&apos;s p-chase latency samples",
                            "peers/gpu-benches/gpu-latency_gh200.txt", "2025-08-10T00:03:09Z"}) {
    EXPECT_THAT(page, HasSubstr(shown));
  }
  EXPECT_THAT(page, Not(HasSubstr("driver")));
  // The nights are those without the imported results.
  const std::map<std::string, std::string> ours = Site(nightly.string(), dir / "ours");
  EXPECT_EQ(site.at("2026-11-22/index.html"), ours.at("2026-11-22/index.html"));
  EXPECT_EQ(site.at("2026-11-23/index.html"), ours.at("2026-11-23/index.html"));
}

}  // namespace
}  // namespace dissect::analysis
