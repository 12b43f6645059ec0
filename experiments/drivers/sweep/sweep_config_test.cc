#include "experiments/drivers/sweep/sweep_config.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::sweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

constexpr char kGood[] = R"({
  "format": "dissect.sweep.v1",
  "name": "smoke",
  "description": "a few points",
  "defaults": {"samples": 5, "warmup": 1, "time_limit_s": 60, "cooldown_s": 12.5},
  "entries": [
    {"id": "memory_latency_l2", "experiment": "memory_latency",
     "axes": {"path": "global_cg", "footprint_bytes": "4MiB,8MiB", "loads": "1024"},
     "samples": 3, "time_limit_s": 40, "args": ["--metrics=dram"], "why": "2 points"},
    {"id": "wgmma", "experiment": "wgmma", "binary": "experiments/tensor/wgmma",
     "warmup": 0}
  ]
})";

// kGood with `from` replaced by `to` (which must occur).
std::string Edited(const std::string& from, const std::string& to) {
  const std::string text = kGood;
  EXPECT_NE(text.find(from), std::string::npos) << from;
  return absl::StrReplaceAll(text, {{from, to}});
}

// The error message of parsing `text` as "configs/sweeps/smoke.json".
std::string ErrorOf(const std::string& text) {
  absl::StatusOr<Sweep> sweep = ParseSweepJson(text, "configs/sweeps/smoke.json");
  if (sweep.ok()) return "(parsed)";
  EXPECT_EQ(sweep.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(sweep.status().message());
  EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
  return message;
}

TEST(ParseSweepJson, ReadsEveryFieldAndAppliesDefaults) {
  absl::StatusOr<Sweep> sweep = ParseSweepJson(kGood, "configs/sweeps/smoke.json");
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  EXPECT_EQ(sweep->name, "smoke");
  EXPECT_EQ(sweep->description, "a few points");
  EXPECT_EQ(sweep->path, "configs/sweeps/smoke.json");
  EXPECT_EQ(sweep->cooldown_s, 12.5);
  ASSERT_EQ(sweep->entries.size(), 2u);
  const SweepEntry& l2 = sweep->entries[0];
  EXPECT_EQ(l2.id, "memory_latency_l2");
  EXPECT_EQ(l2.experiment, "memory_latency");
  EXPECT_EQ(l2.binary, "experiments/memory_latency");
  // File order, not alphabetical.
  EXPECT_THAT(l2.axes, ElementsAre(Pair("path", "global_cg"), Pair("footprint_bytes", "4MiB,8MiB"),
                                   Pair("loads", "1024")));
  EXPECT_EQ(l2.samples, 3);
  EXPECT_EQ(l2.warmup, 1);
  EXPECT_EQ(l2.time_limit_s, 40);
  EXPECT_THAT(l2.args, ElementsAre("--metrics=dram"));
  EXPECT_EQ(l2.why, "2 points");
  const SweepEntry& wgmma = sweep->entries[1];
  EXPECT_EQ(wgmma.binary, "experiments/tensor/wgmma");
  EXPECT_TRUE(wgmma.axes.empty());
  EXPECT_EQ(wgmma.samples, 5);
  EXPECT_EQ(wgmma.warmup, 0);
  EXPECT_EQ(wgmma.time_limit_s, 60);
  EXPECT_EQ(sweep->TotalTimeLimit(), 100);
  EXPECT_FALSE(sweep->budget_s.has_value());
  EXPECT_TRUE(sweep->needs_gpu);
}

TEST(ParseSweepJson, BudgetAndNeedsGpu) {
  absl::StatusOr<Sweep> sweep = ParseSweepJson(
      Edited("\"description\": \"a few points\",",
             "\"description\": \"a few points\", \"budget_s\": 600, \"needs_gpu\": false,"),
      "configs/sweeps/smoke.json");
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  EXPECT_EQ(sweep->budget_s, 600);
  EXPECT_FALSE(sweep->needs_gpu);
}

TEST(ParseSweepJson, WithoutDefaultsSamplesAndWarmupAreTheBinarys) {
  absl::StatusOr<Sweep> sweep = ParseSweepJson(R"({"format": "dissect.sweep.v1", "name": "x",
      "entries": [{"id": "a", "experiment": "relu_bandwidth", "time_limit_s": 2}]})",
                                               "x.json");
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  EXPECT_EQ(sweep->cooldown_s, 30);
  EXPECT_EQ(sweep->entries[0].samples, 0);
  EXPECT_EQ(sweep->entries[0].warmup, -1);
  EXPECT_EQ(sweep->TotalTimeLimit(), 2);
}

TEST(ParseSweepJson, ErrorsNameTheFileAndTheEntry) {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"{", "configs/sweeps/smoke.json: malformed JSON"},
      {"[]", "configs/sweeps/smoke.json: top level is not an object"},
      {Edited("dissect.sweep.v1", "dissect.sweep.v2"),
       "configs/sweeps/smoke.json: \"format\" must be \"dissect.sweep.v1\", not "
       "\"dissect.sweep.v2\""},
      {Edited("\"format\": \"dissect.sweep.v1\",", ""), "\"format\" must be \"dissect.sweep.v1\""},
      {Edited("\"name\": \"smoke\",", ""), "smoke.json: has no \"name\""},
      {Edited("\"name\": \"smoke\"", "\"name\": \"a b\""), "\"name\" \"a b\" must be"},
      {Edited("\"description\"", "\"descripton\""), "smoke.json: unknown key \"descripton\""},
      {Edited("\"cooldown_s\": 12.5", "\"cooldown_s\": -1"),
       "smoke.json defaults: \"cooldown_s\" is -1; it must be zero or positive"},
      {Edited("\"cooldown_s\": 12.5", "\"cooldown_s\": 3601"),
       "smoke.json defaults: \"cooldown_s\" is 3601; it must be at most 3600"},
      {Edited("\"name\": \"smoke\",", "\"name\": \"smoke\", \"budget_s\": 0,"),
       "smoke.json: \"budget_s\" is 0; it must be positive"},
      {Edited("\"name\": \"smoke\",", "\"name\": \"smoke\", \"needs_gpu\": \"no\","),
       "smoke.json: \"needs_gpu\" must be true or false, not string"},
      {Edited("\"warmup\": 1,", "\"warmup\": 1, \"retries\": 2,"),
       "defaults: unknown key \"retries\""},
      {Edited("\"time_limit_s\": 60", "\"time_limit_s\": 0"),
       "smoke.json defaults: \"time_limit_s\" is 0; it must be positive"},
      {Edited("\"samples\": 3", "\"sampels\": 3"),
       "smoke.json: entry \"memory_latency_l2\": unknown key \"sampels\""},
      {Edited("\"id\": \"wgmma\"", "\"id\": \"memory_latency_l2\""),
       "smoke.json: entry 2: duplicate id \"memory_latency_l2\""},
      {Edited("\"id\": \"wgmma\", ", ""), "smoke.json: entry 2: has no \"id\""},
      {Edited("\"id\": \"wgmma\"", "\"id\": \"a/b\""), "entry 2: \"id\" \"a/b\" must be"},
      {Edited("\"experiment\": \"wgmma\", ", ""), "entry \"wgmma\": has no \"experiment\""},
      {Edited("\"experiment\": \"wgmma\"", "\"experiment\": 7"),
       "entry \"wgmma\": \"experiment\" must be a string, not integer"},
      {Edited("\"4MiB,8MiB\"", "4096"),
       "entry \"memory_latency_l2\": axis \"footprint_bytes\" value must be a string in --axis "
       "syntax"},
      {Edited("\"4MiB,8MiB\"", "\"\""), "axis \"footprint_bytes\" value \"\" is empty"},
      {Edited("\"path\": \"global_cg\"", "\"path\": \"global_cg\", \"path\": \"shared\""),
       "smoke.json: key \"path\" appears twice in one object"},
      {Edited("\"path\":", "\"pa-th\":"), "axis name \"pa-th\" is not letters"},
      {Edited("\"time_limit_s\": 40", "\"time_limit_s\": -3"),
       "entry \"memory_latency_l2\": \"time_limit_s\" is -3; it must be positive"},
      {Edited("\"time_limit_s\": 40", "\"time_limit_s\": \"40\""),
       "\"time_limit_s\" must be a number of seconds, not string"},
      {Edited("\"time_limit_s\": 60, ", ""), "entry \"wgmma\": has no \"time_limit_s\""},
      {Edited("\"samples\": 3", "\"samples\": 0"),
       "entry \"memory_latency_l2\": \"samples\" is 0; it must be in 1..1000000"},
      {Edited("\"samples\": 3", "\"samples\": 2.5"), "\"samples\" must be an integer, not number"},
      {Edited("\"warmup\": 0", "\"warmup\": -1"), "entry \"wgmma\": \"warmup\" is -1"},
      {Edited("\"--metrics=dram\"", "\"metrics=dram\""),
       "\"args\" entry \"metrics=dram\" is not a --flag"},
      {Edited("\"--metrics=dram\"", "\"--samples=9\""),
       "\"args\" may not set --samples (use the entry's \"samples\")"},
      {Edited("\"--metrics=dram\"", "\"--axis=loads=16\""), "\"args\" may not set --axis"},
      {Edited("[\"--metrics=dram\"]", "\"--metrics=dram\""), "\"args\" must be an array"},
      {Edited("\"experiments/tensor/wgmma\"", "\"/abs/wgmma\""),
       "entry \"wgmma\": \"binary\" \"/abs/wgmma\" must be a workspace-relative"},
      {Edited("\"experiments/tensor/wgmma\"", "\"experiments/../x\""), "may not contain . or .."},
      {Edited(R"("axes": {"path": "global_cg", "footprint_bytes": "4MiB,8MiB", "loads": "1024"})",
              R"("axes": ["path"])"),
       "\"axes\" must be an object"},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(ErrorOf(c.text), HasSubstr(c.message)) << c.text;
  }
  EXPECT_THAT(ErrorOf(R"({"format": "dissect.sweep.v1", "name": "x", "entries": []})"),
              HasSubstr("\"entries\" must be a non-empty array"));
  EXPECT_THAT(ErrorOf(R"({"format": "dissect.sweep.v1", "name": "x", "entries": [3]})"),
              HasSubstr("smoke.json: entry 1: is not an object"));
}

TEST(EntryArguments, OrderIsOutSamplesWarmupAxesCooldownResumeArgs) {
  SweepEntry e;
  e.samples = 3;
  e.warmup = 0;
  e.axes = {{"path", "global_cg"}, {"footprint_bytes", "4MiB,8MiB"}};
  e.args = {"--metrics=dram", "--kernel_activity"};
  EXPECT_THAT(EntryArguments(e, 30, "/tmp/out/x.json", true),
              ElementsAre("--benchmark_out=/tmp/out/x.json", "--samples=3", "--warmup=0",
                          "--axis=path=global_cg", "--axis=footprint_bytes=4MiB,8MiB",
                          "--cooldown_s=30", "--resume", "--metrics=dram", "--kernel_activity"));
  SweepEntry defaults;  // samples 0, warmup -1: the binary's own
  EXPECT_THAT(EntryArguments(defaults, 0.5, "o.json", false),
              ElementsAre("--benchmark_out=o.json", "--cooldown_s=0.5"));
}

class LoadSweepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(std::getenv("TEST_TMPDIR")) / "load";
    std::filesystem::create_directories(dir_ / "configs/sweeps");
    std::ofstream(dir_ / "configs/sweeps/mine.json") << kGood;
  }
  std::filesystem::path dir_;
};

TEST_F(LoadSweepTest, ByPath) {
  const std::string path = (dir_ / "configs/sweeps/mine.json").string();
  absl::StatusOr<Sweep> sweep = LoadSweep(path);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  EXPECT_EQ(sweep->path, path);
  EXPECT_EQ(sweep->entries.size(), 2u);
  absl::StatusOr<Sweep> missing = LoadSweep((dir_ / "nope.json").string());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("nope.json not found"));
}

TEST_F(LoadSweepTest, ByNameFromTheRunfilesAndTheWorkspace) {
  // The shipped sweeps are runfiles of the library.
  absl::StatusOr<Sweep> smoke = LoadSweep("smoke");
  ASSERT_TRUE(smoke.ok()) << smoke.status();
  EXPECT_EQ(smoke->name, "smoke");
  // A name found only under $BUILD_WORKSPACE_DIRECTORY.
  ASSERT_EQ(setenv("BUILD_WORKSPACE_DIRECTORY", dir_.c_str(), 1), 0);
  absl::StatusOr<Sweep> mine = LoadSweep("mine");
  unsetenv("BUILD_WORKSPACE_DIRECTORY");
  ASSERT_TRUE(mine.ok()) << mine.status();
  EXPECT_EQ(mine->path, (dir_ / "configs/sweeps/mine.json").string());
  absl::StatusOr<Sweep> unknown = LoadSweep("nightlyy");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(unknown.status().message()),
              HasSubstr("no sweep \"nightlyy\" (configs/sweeps/nightlyy.json); known: "));
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("smoke"));
  EXPECT_EQ(LoadSweep("a b").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace dissect::sweep
