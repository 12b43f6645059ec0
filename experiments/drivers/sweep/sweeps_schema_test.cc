// The schema check of the sweep files, on the CPU: every configs/sweeps/*.json
// parses, names experiment binaries that exist, and each entry's axes, values
// and flags are accepted by the binary itself (`BIN --list ...`, which needs
// no GPU, exits 0 and lists at least one point of that experiment). Also the
// time budgets: nightly.json at most 600 s, smoke.json at most 60 s, each
// declared as its budget_s.
//
// Arguments (from BUILD): the sweep files and the experiment binaries, as
// runfiles paths, and --not_nightly=PATH for each binary whose
// dissect_experiment entry says `nightly = False`.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "experiments/drivers/sweep/binary_check.h"
#include "experiments/drivers/sweep/sweep_config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::sweep {
namespace {

using ::testing::HasSubstr;

constexpr char kSelftestBinary[] = "experiments/selftest";
constexpr double kNightlyBudgetS = 600;
constexpr double kSmokeBudgetS = 60;

std::vector<std::string>& SweepFiles() {
  static auto* files = new std::vector<std::string>;
  return *files;
}

std::set<std::string>& Binaries() {
  static auto* binaries = new std::set<std::string>;
  return *binaries;
}

// The binaries nightly.json need not run (dissect_experiment's nightly = False).
std::set<std::string>& NotNightly() {
  static auto* binaries = new std::set<std::string>;
  return *binaries;
}

std::string TmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

std::vector<std::string> CheckAgainstBinaries(const Sweep& sweep) {
  return ::dissect::sweep::CheckAgainstBinaries(sweep, Binaries());
}

std::string Stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

const std::string* FindSweepFile(const std::string& name) {
  for (const std::string& f : SweepFiles()) {
    if (Stem(f) == name) return &f;
  }
  return nullptr;
}

TEST(SweepsSchema, TheShippedSweepsAreThere) {
  for (const char* name : {"nightly", "smoke", "selftest"}) {
    EXPECT_NE(FindSweepFile(name), nullptr) << "configs/sweeps/" << name << ".json is missing";
  }
  EXPECT_FALSE(Binaries().empty());
}

// Every sweep file but selftest.json (below, which alone runs the selftest): parses, is named like
// its file, and every entry is accepted by its binary.
TEST(SweepsSchema, EverySweepParsesAndItsBinariesAcceptItsEntries) {
  for (const std::string& file : SweepFiles()) {
    if (Stem(file) == "selftest") continue;
    SCOPED_TRACE(file);
    absl::StatusOr<Sweep> sweep = LoadSweep(file);
    ASSERT_TRUE(sweep.ok()) << sweep.status();
    EXPECT_EQ(sweep->name, Stem(file)) << file << ": \"name\" must be the file's name";
    for (const SweepEntry& e : sweep->entries) {
      EXPECT_NE(e.binary, kSelftestBinary)
          << file << ": entry \"" << e.id << "\": only selftest.json may run the selftest";
    }
    EXPECT_THAT(CheckAgainstBinaries(*sweep), ::testing::IsEmpty());
  }
}

TEST(SweepsSchema, SelftestSweep) {
  const std::string* file = FindSweepFile("selftest");
  ASSERT_NE(file, nullptr);
  absl::StatusOr<Sweep> sweep = LoadSweep(*file);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  EXPECT_EQ(sweep->name, "selftest");
  EXPECT_FALSE(sweep->needs_gpu) << "the selftest runs on the CPU: \"needs_gpu\": false";
  EXPECT_EQ(sweep->cooldown_s, 0);
  std::set<std::string> ids;
  for (const SweepEntry& e : sweep->entries) {
    ids.insert(e.id);
    EXPECT_EQ(e.binary, kSelftestBinary) << e.id;
  }
  EXPECT_EQ(ids, (std::set<std::string>{"ok", "crash", "hang", "throttle"}));
  ASSERT_EQ(Binaries().count(kSelftestBinary), 1u)
      << "//experiments:selftest is not a data dependency of this test";
  EXPECT_THAT(CheckAgainstBinaries(*sweep), ::testing::IsEmpty());
}

TEST(SweepsSchema, TimeBudgets) {
  for (const auto& [name, budget] : std::vector<std::pair<std::string, double>>{
           {"nightly", kNightlyBudgetS}, {"smoke", kSmokeBudgetS}}) {
    const std::string* file = FindSweepFile(name);
    ASSERT_NE(file, nullptr) << name;
    absl::StatusOr<Sweep> sweep = LoadSweep(*file);
    ASSERT_TRUE(sweep.ok()) << sweep.status();
    ASSERT_TRUE(sweep->budget_s.has_value()) << *file << ": no \"budget_s\"";
    EXPECT_LE(*sweep->budget_s, budget) << *file << ": \"budget_s\" is over " << budget << " s";
    EXPECT_LE(sweep->TotalTimeLimit(), *sweep->budget_s)
        << *file << ": the time limits add up to " << sweep->TotalTimeLimit() << " s";
    EXPECT_TRUE(sweep->needs_gpu) << *file;
    for (const SweepEntry& e : sweep->entries) {
      EXPECT_FALSE(e.why.empty()) << *file << ": entry \"" << e.id
                                  << "\" has no \"why\" (how its size was chosen)";
    }
  }
}

// nightly.json is the full characterization: it runs every experiment but
// those whose dissect_experiment entry says `nightly = False` (the selftest
// and the paper catalog's own), and none of those (so that the mark stays
// true).
TEST(SweepsSchema, NightlyRunsEveryExperiment) {
  const std::string* file = FindSweepFile("nightly");
  ASSERT_NE(file, nullptr);
  absl::StatusOr<Sweep> sweep = LoadSweep(*file);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  std::set<std::string> run;
  for (const SweepEntry& e : sweep->entries) run.insert(e.binary);
  for (const std::string& binary : Binaries()) {
    if (NotNightly().count(binary) > 0) {
      EXPECT_EQ(run.count(binary), 0u)
          << *file << " runs " << binary
          << ", whose dissect_experiment entry says nightly = False: drop the argument";
      continue;
    }
    EXPECT_EQ(run.count(binary), 1u)
        << *file << " has no entry for " << binary
        << " (add one, or say nightly = False in its dissect_experiment entry)";
  }
  for (const std::string& binary : NotNightly()) {
    EXPECT_EQ(Binaries().count(binary), 1u) << "--not_nightly=" << binary << " is not a binary";
  }
}

// The check itself: a sweep file with an unknown axis, a value that does not
// parse, a bad metric, a binary that does not exist or is another experiment
// must fail it, each problem naming its entry.
TEST(SweepsSchema, ABrokenSweepFileFailsTheCheck) {
  const std::string path = TmpDir() + "/broken.json";
  std::ofstream(path) << R"({
  "format": "dissect.sweep.v1", "name": "broken",
  "defaults": {"samples": 3, "time_limit_s": 5},
  "entries": [
    {"id": "good", "experiment": "relu_bandwidth", "axes": {"bytes": "64MiB", "timing": "hot"}},
    {"id": "unknown_axis", "experiment": "relu_bandwidth", "axes": {"bytez": "64MiB"}},
    {"id": "bad_value", "experiment": "relu_bandwidth", "axes": {"bytes": "64QiB"}},
    {"id": "bad_choice", "experiment": "relu_bandwidth", "axes": {"timing": "lukewarm"}},
    {"id": "bad_metric", "experiment": "relu_bandwidth", "args": ["--metrics=dram_bytez"]},
    {"id": "no_binary", "experiment": "relu_bandwidthh"},
    {"id": "other_experiment", "experiment": "relu_bandwidth", "binary": "experiments/shared_latency"}
  ]
})";
  absl::StatusOr<Sweep> sweep = LoadSweep(path);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  const std::vector<std::string> problems = CheckAgainstBinaries(*sweep);
  const std::string all = absl::StrJoin(problems, "\n");
  ASSERT_EQ(problems.size(), 6u) << all;
  const std::string where = path + ": entry ";
  EXPECT_THAT(problems[0],
              HasSubstr(where + "\"unknown_axis\": `experiments/relu_bandwidth --list "
                                "--samples=3 --axis=bytez=64MiB --cooldown_s=30` exited 2: "));
  EXPECT_THAT(problems[0], HasSubstr("unknown axis 'bytez'"));
  EXPECT_THAT(problems[1], HasSubstr(where + "\"bad_value\""));
  EXPECT_THAT(problems[1], HasSubstr("'64QiB' is not an integer"));
  EXPECT_THAT(problems[2], HasSubstr(where + "\"bad_choice\""));
  EXPECT_THAT(problems[2], HasSubstr("exited 2"));
  EXPECT_THAT(problems[3], HasSubstr(where + "\"bad_metric\""));
  EXPECT_THAT(problems[3], HasSubstr("dram_bytez"));
  EXPECT_THAT(problems[4], HasSubstr(where + "\"no_binary\": binary experiments/relu_bandwidthh is "
                                             "not an experiment this test depends on"));
  EXPECT_THAT(problems[5],
              HasSubstr(where + "\"other_experiment\": experiments/shared_latency is not "
                                "experiment \"relu_bandwidth\""));
}

}  // namespace
}  // namespace dissect::sweep

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (absl::ConsumePrefix(&arg, "--not_nightly=")) {
      dissect::sweep::NotNightly().insert(std::string(arg));
    } else if (absl::EndsWith(arg, ".json")) {
      dissect::sweep::SweepFiles().emplace_back(arg);
    } else {
      dissect::sweep::Binaries().emplace(arg);
    }
  }
  return RUN_ALL_TESTS();
}
