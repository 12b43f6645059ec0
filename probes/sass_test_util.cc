#include "probes/sass_test_util.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace dissect {

SassTestArgs& SassArgs() {
  static auto* args = new SassTestArgs();
  return *args;
}

namespace {

std::string& CurrentArch() {
  static auto* arch = new std::string();
  return *arch;
}

// Every function of every file, all architectures, parsed once.
const std::vector<SassFunction>& EverySassFunction() {
  static auto* functions = [] {
    auto* out = new std::vector<SassFunction>();
    for (const std::string& file : SassArgs().files) {
      // A text file (e.g. a build manifest) is data for the test, not code.
      if (absl::EndsWith(file, ".txt")) continue;
      absl::StatusOr<std::string> text = RunCuobjdumpSass(SassArgs().cuobjdump, file);
      EXPECT_TRUE(text.ok()) << text.status();
      if (!text.ok()) continue;
      absl::StatusOr<std::vector<SassFunction>> parsed = ParseCuobjdumpSass(*text);
      EXPECT_TRUE(parsed.ok()) << file << ": " << parsed.status();
      if (!parsed.ok()) continue;
      for (SassFunction& f : *parsed) out->push_back(std::move(f));
    }
    return out;
  }();
  return *functions;
}

}  // namespace

const std::string& SassArch() { return CurrentArch(); }

int SassArchNumber(const std::string& arch) {
  if (!absl::StartsWith(arch, "sm_")) return 0;
  std::string digits;
  for (size_t i = 3; i < arch.size() && absl::ascii_isdigit(arch[i]); ++i) digits += arch[i];
  int n = 0;
  return absl::SimpleAtoi(digits, &n) ? n : 0;
}

std::vector<std::string> SassArchs() {
  std::vector<std::string> archs;
  for (const SassFunction& f : EverySassFunction()) {
    if (std::find(archs.begin(), archs.end(), f.arch) == archs.end()) archs.push_back(f.arch);
  }
  std::sort(archs.begin(), archs.end(), [](const std::string& a, const std::string& b) {
    return SassArchNumber(a) != SassArchNumber(b) ? SassArchNumber(a) < SassArchNumber(b) : a < b;
  });
  return archs;
}

const std::vector<SassFunction>& AllSassFunctions() {
  static auto* by_arch = new std::map<std::string, std::vector<SassFunction>>();
  auto [it, added] = by_arch->try_emplace(SassArch());
  if (added) {
    for (const SassFunction& f : EverySassFunction()) {
      if (f.arch == SassArch()) it->second.push_back(f);
    }
  }
  return it->second;
}

const SassFunction* SassFunctionNamed(const std::vector<std::string>& fragments,
                                      const std::string& arch) {
  absl::StatusOr<const SassFunction*> f =
      FindSassFunction(EverySassFunction(), fragments, arch.empty() ? SassArch() : arch);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : nullptr;
}

bool ExpectStubBelow(const SassFunction& f, int min_arch, const std::string& why) {
  if (SassArchNumber(f.arch) >= min_arch) return false;
  ExpectStubKernel(f, why);
  return true;
}

bool IsStubKernel(const SassFunction& f) { return FindLoops(f).empty() && ClockReads(f).empty(); }

void ExpectStubKernel(const SassFunction& f, const std::string& why) {
  EXPECT_TRUE(IsStubKernel(f)) << f.name << " (" << f.arch << ") should be a stub (" << why
                               << ") but has " << FindLoops(f).size() << " loop(s) and "
                               << ClockReads(f).size() << " clock read(s):\n"
                               << Listing(f, 0, f.code.size());
}

std::string SassLine(const SassFunction& f, size_t i) {
  return absl::StrFormat("/*%04x*/ %s", f.code[i].address, f.code[i].text);
}

std::string Listing(const SassFunction& f, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end && i < f.code.size(); ++i) {
    absl::StrAppend(&out, "  ", SassLine(f, i), "\n");
  }
  return out;
}

bool CheckWaitsBefore(const SassFunction& f, size_t clock, int reg, const std::string& what,
                      std::vector<std::string>& problems,
                      const std::vector<std::string>& load_ops) {
  for (size_t k = clock; k-- > 0;) {
    const SassInstruction& in = f.code[k];
    if (WritesRegister(in, reg)) {
      if (IsMemoryLoad(in, load_ops)) {
        problems.push_back(absl::StrCat(what, ": the clock read ", SassLine(f, clock),
                                        " does not wait for the load ", SassLine(f, k),
                                        " (nothing reads R", reg, " in between)"));
      }
      return true;
    }
    if (ReadsRegister(in, reg)) return true;
  }
  return false;
}

std::vector<SassFunction> SavedSassFunctions(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  EXPECT_NE(srcdir, nullptr) << "run under bazel test";
  if (srcdir == nullptr) return {};
  std::ifstream in(absl::StrCat(srcdir, "/dissect/", path));
  EXPECT_TRUE(in.good()) << path << ": cannot open";
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<std::vector<SassFunction>> functions = ParseCuobjdumpSass(text.str());
  EXPECT_TRUE(functions.ok()) << path << ": " << functions.status();
  return functions.ok() ? *std::move(functions) : std::vector<SassFunction>{};
}

std::string LoopListing(const SassFunction& f, const SassLoop& loop) {
  return Listing(f, loop.head, loop.branch + 1);
}

std::optional<SassLoop> TimedLoopWith(const SassFunction& f, const std::vector<std::string>& ops) {
  absl::StatusOr<SassLoop> loop = FindTimedLoop(f, ops);
  EXPECT_TRUE(loop.ok()) << loop.status();
  if (!loop.ok()) return std::nullopt;
  return *loop;
}

void ExpectTimedLoopCount(const SassFunction& f, const std::vector<std::string>& ops, int want,
                          bool allow_multiple) {
  const std::optional<SassLoop> loop = TimedLoopWith(f, ops);
  if (!loop.has_value()) return;
  const int got = CountOps(f, *loop, ops);
  const bool ok = allow_multiple ? (got > 0 && want > 0 && got % want == 0) : got == want;
  EXPECT_TRUE(ok) << f.name << " (" << f.arch << "): the timed loop holds " << got << " of {"
                  << absl::StrJoin(ops, ", ") << "}, want " << want
                  << (allow_multiple ? " or a multiple" : "") << "; its body:\n"
                  << LoopListing(f, *loop);
}

void SassTest::SetUp() {
  if (!SassArgs().skip.empty()) GTEST_SKIP() << "SKIPPED: " << SassArgs().skip;
}

int SassTestMain(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  SassTestArgs& args = SassArgs();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (absl::StartsWith(arg, "--cuobjdump=")) {
      args.cuobjdump = arg.substr(12);
    } else if (absl::StartsWith(arg, "--skip=")) {
      args.skip = arg.substr(7);
    } else {
      args.files.push_back(arg);
    }
  }
  if (args.cuobjdump.empty() == args.skip.empty() || args.files.empty()) {
    std::cerr << "usage: " << argv[0] << " (--cuobjdump=PATH | --skip=REASON) FILE...\n";
    return 2;
  }
  if (!args.skip.empty()) {
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::string(ci) == "true") {
      std::cerr << "FAIL: CI=true and no cuobjdump (" << args.skip
                << "); ./bazelw installs it, so a SASS test may not skip in CI\n";
      return 1;
    }
    std::cout << "SKIPPED: " << args.skip << "\n";
    return RUN_ALL_TESTS();
  }
  const std::vector<std::string> archs = SassArchs();
  if (archs.empty()) {
    std::cerr << "FAIL: no SASS in " << absl::StrJoin(args.files, " ") << "\n";
    return 1;
  }
  int status = 0;
  for (const std::string& arch : archs) {
    CurrentArch() = arch;
    std::cout << "=== the SASS of " << arch << "\n";
    if (RUN_ALL_TESTS() != 0) status = 1;
  }
  std::cout << "checked the SASS of " << absl::StrJoin(archs, ", ") << "\n";
  return status;
}

}  // namespace dissect
