// `report`: prints a markdown report of dissect result files to stdout.
// See analysis/README.md.

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/report.h"
#include "analysis/results.h"

namespace {

constexpr char kUsage[] =
    R"(usage: report [--help] [--] <result.json | folder>...

Reads dissect result files (Google Benchmark JSON with dissect context keys,
see analysis/SCHEMA.md) and prints a markdown report to stdout: one section
per experiment, a device line per file and a table of medians, spread, SM
clock and notes (skipped, error, throttled). A folder is searched recursively
for *.json files, in sorted order.

Any unreadable, malformed or foreign file is an error: one line on stderr,
exit status 2.

Examples:
  bazel run //analysis:report -- results/
  bazel run //analysis:report -- results/h100/shared_latency.json > report.md
)";

int Fail(const std::string& message) {
  std::cerr << "report: " << message << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args;
  bool flags_done = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!flags_done && arg == "--") {
      flags_done = true;
    } else if (!flags_done && (arg == "--help" || arg == "-h")) {
      std::cout << kUsage;
      return 0;
    } else if (!flags_done && arg.size() > 1 && arg[0] == '-') {
      return Fail("unknown flag '" + arg + "' (see --help)");
    } else {
      args.push_back(arg);
    }
  }
  if (args.empty()) {
    std::cerr << kUsage;
    return 2;
  }

  // `bazel run` starts us in the runfiles tree; relative paths are meant
  // relative to where the user ran bazel.
  if (const char* dir = std::getenv("BUILD_WORKING_DIRECTORY");
      dir != nullptr && *dir != '\0' && chdir(dir) != 0) {
    return Fail(std::string("cannot enter BUILD_WORKING_DIRECTORY ") + dir +
                ": " + std::strerror(errno));
  }

  absl::StatusOr<std::vector<std::string>> paths =
      dissect::analysis::CollectResultPaths(args);
  if (!paths.ok()) return Fail(std::string(paths.status().message()));
  std::vector<dissect::analysis::ResultFile> files;
  for (const std::string& path : *paths) {
    absl::StatusOr<dissect::analysis::ResultFile> file =
        dissect::analysis::ReadResultFile(path);
    if (!file.ok()) return Fail(std::string(file.status().message()));
    files.push_back(*std::move(file));
  }
  std::cout << dissect::analysis::RenderMarkdown(files);
  std::cout.flush();
  if (!std::cout) return Fail("cannot write to stdout");
  return 0;
}
