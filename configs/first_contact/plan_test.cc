// The check of the first-contact plans (configs/first_contact/*.plan) on
// the CPU. A plan is one step a line, `<id> <estimate_s> <word>...`, read by
// tools/first_contact.sh with bash `read -ra` and run without a shell on a
// borrowed GPU, where a typo costs device time that cannot be had back. So:
// every line is well formed (id, estimate, no shell syntax, a comment saying
// how the estimate was made), and every `dist/bin/<experiment>` command (also
// the one an `ncu` line profiles) is accepted by the Bazel-built binary:
// `BIN --list` with the line's arguments exits 0 and lists points of that
// experiment, which an unknown axis, a bad value or a bad metric fails.
// The `--list` run is experiments/drivers/sweep/binary_check's, as for the sweeps.
// `dist/bin/reproduce` lines (paper catalog entries) must pass `reproduce
// --dry_run` against the catalog; any other dist/bin/ binary fails.
//
// Arguments (from BUILD): the plan files and the experiment binaries, as
// runfiles paths.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "experiments/drivers/sweep/binary_check.h"
#include "experiments/drivers/sweep/sweep_config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::first_contact {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// tools/first_contact.sh gives stage 2 about 180 s on an H100.
constexpr int kHeadlineBudgetS = 180;
constexpr char kDistBin[] = "dist/bin/";
// The paper-catalog runner and where //experiments/drivers/reproduce's runfiles hold
// it and the catalog (configs/papers, dist/papers in the bundle).
constexpr char kReproduce[] = "reproduce";
constexpr char kReproduceBinary[] = "experiments/drivers/reproduce/reproduce";
constexpr char kCatalog[] = "configs/papers";

std::vector<std::string>& PlanFiles() {
  static auto* files = new std::vector<std::string>;
  return *files;
}

// Binary name (dist/bin/<name>) -> workspace path of the Bazel-built one.
std::map<std::string, std::string>& Binaries() {
  static auto* binaries = new std::map<std::string, std::string>;
  return *binaries;
}

std::string TmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

struct Step {
  int line = 0;
  std::string id;
  std::string estimate;  // as written
  std::vector<std::string> words;
  bool commented = false;  // a comment above it (over the steps just before)
};

struct Plan {
  std::string path;
  std::vector<Step> steps;
  std::vector<std::string> problems;  // format problems, "<path>:<line>: ..."
};

bool IsId(const std::string& id) {
  if (id.empty()) return false;
  for (char c : id) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

// A word the runner passes as one argument must not need a shell: after the
// two placeholders are taken out, no quote, redirection, glob, pipe,
// expansion or escape is left.
bool NeedsShell(const std::string& word) {
  const std::string bare = absl::StrReplaceAll(word, {{"{json}", ""}, {"{dir}", ""}});
  return bare.find_first_of("'\"<>|&;$`*?[]{}()\\~") != std::string::npos;
}

Plan ReadPlan(const std::string& path) {
  Plan plan{path, {}, {}};
  std::ifstream in(path);
  if (!in) {
    plan.problems.push_back(path + ": cannot read");
    return plan;
  }
  std::set<std::string> ids;
  std::string text;
  bool comment_above = false;  // since the last blank line
  for (int n = 1; std::getline(in, text); ++n) {
    const std::vector<std::string> words = absl::StrSplit(text, ' ', absl::SkipWhitespace());
    const std::string where = absl::StrCat(path, ":", n, ": ");
    if (words.empty()) {
      comment_above = false;
      continue;
    }
    if (words[0][0] == '#') {
      comment_above = true;
      continue;
    }
    if (text.find('\t') != std::string::npos) plan.problems.push_back(where + "a tab");
    Step step{n, words[0], words.size() > 1 ? words[1] : "", {}, comment_above};
    step.words.assign(words.begin() + std::min<size_t>(2, words.size()), words.end());
    int seconds = 0;
    if (!IsId(step.id)) plan.problems.push_back(where + "id '" + step.id + "' is not [a-z0-9_]+");
    if (!ids.insert(step.id).second) plan.problems.push_back(where + "id '" + step.id + "' again");
    if (!absl::SimpleAtoi(step.estimate, &seconds) || seconds <= 0 ||
        step.estimate.find_first_not_of("0123456789") != std::string::npos) {
      plan.problems.push_back(where + "estimate '" + step.estimate + "' is not a positive integer");
    }
    if (step.words.empty()) plan.problems.push_back(where + "no command");
    for (const std::string& w : step.words) {
      if (NeedsShell(w)) plan.problems.push_back(where + "word '" + w + "' needs a shell");
    }
    if (!step.commented) {
      plan.problems.push_back(where + "no comment above saying how the estimate was made");
    }
    plan.steps.push_back(step);
  }
  return plan;
}

int TotalEstimate(const Plan& plan) {
  int total = 0;
  for (const Step& s : plan.steps) {
    int seconds = 0;
    if (absl::SimpleAtoi(s.estimate, &seconds)) total += seconds;
  }
  return total;
}

// The words of the dist/bin/ command a step runs: the step's own, or the
// one an ncu line profiles (its first dist/bin/ word on). Empty for other
// commands, which this test cannot run.
std::vector<std::string> DistBinCommand(const Step& step) {
  if (step.words.empty()) return {};
  if (absl::StartsWith(step.words[0], kDistBin)) return step.words;
  if (step.words[0] != "ncu") return {};
  for (size_t i = 1; i < step.words.size(); ++i) {
    if (absl::StartsWith(step.words[i], kDistBin)) {
      return {step.words.begin() + i, step.words.end()};
    }
  }
  return {};
}

// What is wrong with an ncu line beyond its profiled command: it must write
// its CSV with `--log-file {dir}/<name>.csv` (the verdict reads *.csv) and
// profile a dist/bin/ binary.
std::vector<std::string> NcuProblems(const Plan& plan, const Step& step) {
  std::vector<std::string> problems;
  if (step.words.empty() || step.words[0] != "ncu") return problems;
  const std::string where = absl::StrCat(plan.path, ":", step.line, ": ncu line: ");
  bool log_file = false;
  for (size_t i = 1; i + 1 < step.words.size(); ++i) {
    log_file |= step.words[i] == "--log-file" && absl::StartsWith(step.words[i + 1], "{dir}/") &&
                absl::EndsWith(step.words[i + 1], ".csv");
  }
  if (!log_file) problems.push_back(where + "no `--log-file {dir}/<name>.csv`");
  if (DistBinCommand(step).empty()) problems.push_back(where + "profiles no dist/bin/ binary");
  return problems;
}

// A `dist/bin/reproduce` line with --dry_run (which writes nothing), the
// bundle's catalog and binaries replaced by the runfiles' ones; "" if it
// exits 0, else what went wrong. The words need no shell (checked above), so
// std::system is safe with them.
std::string CheckReproduce(const Plan& plan, const Step& step) {
  std::string command = kReproduceBinary;
  for (size_t i = 1; i < step.words.size(); ++i) {
    const std::string& w = step.words[i];
    if (absl::StartsWith(w, "--bin_dir=")) continue;  // the runfiles' binaries
    command += " " + (absl::StartsWith(w, "--catalog=") ? absl::StrCat("--catalog=", kCatalog)
                                                         : absl::StrReplaceAll(w, {{"{dir}", TmpDir() + "/" + step.id}}));
  }
  command += " --dry_run";
  const std::string err = TmpDir() + "/" + step.id + ".err";
  const int status = std::system((command + " > /dev/null 2> " + err).c_str());
  if (status == 0) return "";
  std::ifstream in(err);
  std::string first;
  std::getline(in, first);
  return absl::StrCat(plan.path, ":", step.line, ": `", command, "` failed: ", first);
}

// Each dist/bin/ command of `plan` as a sweep entry for binary_check, with
// the placeholders replaced by paths under TEST_TMPDIR (--benchmark_out is
// dropped by ListArguments). Unknown binaries are problems.
std::vector<std::string> CheckAgainstBinaries(const Plan& plan) {
  std::vector<std::string> problems;
  sweep::Sweep as_sweep;
  as_sweep.path = plan.path;
  for (const Step& step : plan.steps) {
    const std::vector<std::string> command = DistBinCommand(step);
    if (command.empty()) continue;
    const std::string name = command[0].substr(sizeof(kDistBin) - 1);
    if (name == kReproduce && command.size() == step.words.size()) {
      if (std::string problem = CheckReproduce(plan, step); !problem.empty()) {
        problems.push_back(problem);
      }
      continue;
    }
    const auto known = Binaries().find(name);
    if (known == Binaries().end()) {
      problems.push_back(absl::StrCat(plan.path, ":", step.line, ": ", command[0],
                                      " is not an experiment this test knows (a typo, or a "
                                      "binary that is no experiment: add it to the BUILD's data)"));
      continue;
    }
    const std::string dir = TmpDir() + "/" + step.id;
    std::filesystem::create_directories(dir);
    sweep::SweepEntry entry;
    entry.id = absl::StrCat(step.id, " (line ", step.line, ")");
    entry.experiment = name;
    entry.binary = known->second;
    for (size_t i = 1; i < command.size(); ++i) {
      entry.args.push_back(absl::StrReplaceAll(
          command[i], {{"{json}", TmpDir() + "/" + step.id + ".json"}, {"{dir}", dir}}));
    }
    as_sweep.entries.push_back(entry);
  }
  std::set<std::string> paths;
  for (const auto& [name, path] : Binaries()) paths.insert(path);
  for (const std::string& p : sweep::CheckAgainstBinaries(as_sweep, paths)) problems.push_back(p);
  return problems;
}

const std::string* FindPlan(const std::string& name) {
  for (const std::string& f : PlanFiles()) {
    if (std::filesystem::path(f).filename() == name) return &f;
  }
  return nullptr;
}

TEST(Plans, TheHeadlinePlanIsThere) {
  EXPECT_NE(FindPlan("headline.plan"), nullptr);
  EXPECT_FALSE(Binaries().empty());
}

TEST(Plans, EveryLineIsWellFormed) {
  for (const std::string& file : PlanFiles()) {
    const Plan plan = ReadPlan(file);
    EXPECT_THAT(plan.problems, IsEmpty()) << file;
    EXPECT_FALSE(plan.steps.empty()) << file << " has no step";
    for (const Step& step : plan.steps) EXPECT_THAT(NcuProblems(plan, step), IsEmpty());
  }
}

TEST(Plans, EveryDistBinLineIsAcceptedByItsBinary) {
  for (const std::string& file : PlanFiles()) {
    EXPECT_THAT(CheckAgainstBinaries(ReadPlan(file)), IsEmpty()) << file;
  }
}

TEST(Plans, TheHeadlinePlanFitsItsBudgetAndHasTheNcuCrossCheck) {
  const std::string* file = FindPlan("headline.plan");
  ASSERT_NE(file, nullptr);
  const Plan plan = ReadPlan(*file);
  EXPECT_LE(TotalEstimate(plan), kHeadlineBudgetS) << *file;
  int ncu_lines = 0;
  for (const Step& step : plan.steps) ncu_lines += !step.words.empty() && step.words[0] == "ncu";
  EXPECT_EQ(ncu_lines, 1) << *file << ": one ncu cross-check";
}

// The check itself: a plan with an unknown axis, a bad value, an unknown
// binary, bad ids and estimates, shell syntax and an ncu line without its
// CSV must fail it, each problem naming its line.
TEST(Plans, ABrokenPlanFailsTheCheck) {
  const std::string path = TmpDir() + "/broken.plan";
  std::ofstream(path) << "# estimated\n"
                         "good 3 dist/bin/relu_bandwidth --axis=bytes=64MiB --benchmark_out={json}\n"
                         "unknown_axis 3 dist/bin/relu_bandwidth --axis=bytez=64MiB\n"
                         "bad_value 3 dist/bin/relu_bandwidth --axis=bytes=64QiB\n"
                         "no_binary 3 dist/bin/relu_bandwidthh\n"
                         "no_paper 3 dist/bin/reproduce --catalog=dist/papers --paper=nope --out={dir}\n"
                         "Bad-Id 0 dist/bin/relu_bandwidth\n"
                         "good 3 dist/bin/relu_bandwidth \"--axis=bytes=1GiB\" >{dir}/log\n"
                         "ncu_no_csv 9 ncu --csv dist/bin/relu_bandwidth --axis=timing=tepid\n"
                         "\n"
                         "uncommented 2 nvidia-smi\n";
  const Plan plan = ReadPlan(path);
  const std::string format = absl::StrJoin(plan.problems, "\n");
  EXPECT_THAT(format, HasSubstr(":7: id 'Bad-Id' is not [a-z0-9_]+"));
  EXPECT_THAT(format, HasSubstr(":7: estimate '0' is not a positive integer"));
  EXPECT_THAT(format, HasSubstr(":8: id 'good' again"));
  EXPECT_THAT(format, HasSubstr(":8: word '\"--axis=bytes=1GiB\"' needs a shell"));
  EXPECT_THAT(format, HasSubstr(":8: word '>{dir}/log' needs a shell"));
  EXPECT_THAT(format, HasSubstr(":11: no comment above"));
  EXPECT_EQ(plan.problems.size(), 6u) << format;
  ASSERT_EQ(plan.steps.size(), 9u);
  EXPECT_THAT(NcuProblems(plan, plan.steps[7]),
              ElementsAre(HasSubstr(":9: ncu line: no `--log-file {dir}/<name>.csv`")));

  const std::vector<std::string> problems = CheckAgainstBinaries(plan);
  const std::string all = absl::StrJoin(problems, "\n");
  ASSERT_EQ(problems.size(), 6u) << all;
  EXPECT_THAT(problems[0], HasSubstr(":5: dist/bin/relu_bandwidthh is not an experiment"));
  EXPECT_THAT(problems[1], HasSubstr(":6: `experiments/drivers/reproduce/reproduce --catalog=configs/papers"));
  EXPECT_THAT(problems[1], HasSubstr("unknown paper 'nope'"));
  EXPECT_THAT(problems[2], HasSubstr("entry \"unknown_axis (line 3)\""));
  EXPECT_THAT(problems[2], HasSubstr("unknown axis 'bytez'"));
  EXPECT_THAT(problems[3], HasSubstr("entry \"bad_value (line 4)\""));
  EXPECT_THAT(problems[3], HasSubstr("'64QiB' is not an integer"));
  EXPECT_THAT(problems[4], HasSubstr("entry \"good (line 8)\""));
  EXPECT_THAT(problems[5], HasSubstr("entry \"ncu_no_csv (line 9)\""));
}

}  // namespace
}  // namespace dissect::first_contact

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (absl::EndsWith(arg, ".plan")) {
      dissect::first_contact::PlanFiles().push_back(arg);
    } else {
      dissect::first_contact::Binaries()[std::filesystem::path(arg).filename().string()] = arg;
    }
  }
  return RUN_ALL_TESTS();
}
