// `verdict`: judges a first run's headline numbers against their plausible
// ranges. See analysis/README.md, "verdict".

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "analysis/results/results.h"
#include "analysis/sections/verdict.h"
#include "analysis/sections/verdict_ranges.h"
#include "analysis/sections/verdict_ranges_embedded.h"
#include "gflags/gflags.h"
#include "tools/cli/flags.h"
#include "tools/cli/user_path.h"

DEFINE_string(ranges, "",
              "the ranges (format dissect.verdict_ranges.v1, see configs/README.md); "
              "default: configs/verdict/h100.json, built in");
DEFINE_string(peers, "",
              "the peer suites' published files (analysis/import reads them in-process); "
              "default: ../shared/data/peers from the workspace, else from the working "
              "directory, when it exists; none: no peers column");

namespace {

// The command line: result files, folders and ncu CSVs.
dissect::cli::Program Cli() {
  dissect::cli::Program program;
  program.name = "verdict";
  program.args = "DIR|FILE...";
  program.about = R"(Judges the headline numbers of a first run on a GPU: reads every result file
(*.json, folders searched recursively) and ncu CSV (*.csv) among the
arguments, finds each headline of the ranges file by experiment, axes and
metric in any of them (a first-contact headline folder or a whole reference
run's), and prints a markdown table per device: the measured value (with the
SM clock and commit), the plausible range, the published values with their
sources, the peers' values for the same kind of device, and a verdict (in
range, OUT OF RANGE, missing, or not judged where no range applies to the
device); the likely causes of every value out of range; the ncu
cross-checks (ncu's metric against the CUPTI counter of the same point).

The first line of stdout is always
  verdict: N in range, M out of range, K missing
)";
  program.flags = {{"ranges", "FILE"}, {"peers", "DIR|none"}};
  program.more = R"(A corrupt or foreign result file is named on stderr and left out.
Exit status: 0 no headline number out of its range; 1 one or more out of
range; 2 bad input (bad flag, no readable result file, a bad ranges file, a
--peers folder that does not exist).

Example:
  bazel run //analysis:verdict -- first_contact/headline/
)";
  return program;
}

int Fail(const std::string& message) { return dissect::cli::Fail(Cli(), message, 2); }

bool IsDirectory(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_directory(path, error);
}

// ../shared/data/peers beside the workspace (bazel run), else beside the
// working directory; "" when neither exists.
std::string DefaultPeersDir() {
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (workspace != nullptr && *workspace != '\0') {
    const std::string dir = std::string(workspace) + "/../shared/data/peers";
    if (IsDirectory(dir)) return dir;
  }
  return IsDirectory("../shared/data/peers") ? "../shared/data/peers" : "";
}

absl::StatusOr<std::string> ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The peers: none with --peers=none, the given folder, else the default
// folder where it exists.
dissect::analysis::VerdictPeers Peers(const dissect::analysis::VerdictRanges& ranges,
                                      const std::string& flag, const std::string& fallback) {
  dissect::analysis::VerdictPeers peers;
  if (flag == "none") {
    peers.note = "--peers=none";
  } else if (!flag.empty() || !fallback.empty()) {
    peers = dissect::analysis::LoadVerdictPeers(ranges, flag.empty() ? fallback : flag);
  } else {
    peers.note = "no ../shared/data/peers beside the workspace or the working directory";
  }
  return peers;
}

// Every ncu CSV among the arguments; one that is not is named and left out.
std::vector<dissect::analysis::NcuCsv> ReadCsvs(const std::vector<std::string>& args) {
  std::vector<dissect::analysis::NcuCsv> csvs;
  for (const std::string& path : dissect::analysis::CollectCsvPaths(args)) {
    absl::StatusOr<std::string> text = ReadText(path);
    absl::StatusOr<dissect::analysis::NcuCsv> csv =
        text.ok() ? dissect::analysis::ParseNcuCsv(*text, path)
                  : absl::StatusOr<dissect::analysis::NcuCsv>(text.status());
    if (!csv.ok()) {
      std::cerr << "verdict: " << csv.status().message() << " (left out)\n";
      continue;
    }
    csvs.push_back(*std::move(csv));
  }
  return csvs;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace dissect::analysis;
  const dissect::cli::CommandLine line = dissect::cli::ParseCommandLine(Cli(), argc, argv);
  if (line.exit_status.has_value()) return *line.exit_status;
  const std::vector<std::string>& args = line.args;
  const std::string ranges_path = FLAGS_ranges, peers_flag = FLAGS_peers;
  if (args.empty()) return dissect::cli::UsageOnStderr(Cli());
  const std::string default_peers = DefaultPeersDir();  // before leaving the working directory
  if (absl::Status entered = dissect::cli::EnterCallerDirectory(); !entered.ok()) {
    return Fail(std::string(entered.message()));
  }

  std::string ranges_text = kEmbeddedVerdictRangesJson, origin = kEmbeddedVerdictRangesOrigin;
  if (!ranges_path.empty()) {
    absl::StatusOr<std::string> text = ReadText(ranges_path);
    if (!text.ok()) return Fail(std::string(text.status().message()));
    ranges_text = *text;
    origin = ranges_path;
  }
  absl::StatusOr<VerdictRanges> ranges = ParseVerdictRanges(ranges_text, origin);
  if (!ranges.ok()) return Fail(std::string(ranges.status().message()));

  VerdictInputs inputs;
  if (!peers_flag.empty() && peers_flag != "none" && !IsDirectory(peers_flag)) {
    return Fail("--peers=" + peers_flag + ": no such folder");
  }
  inputs.peers = Peers(*ranges, peers_flag, default_peers);

  std::vector<std::string> result_args;
  for (const std::string& a : args) {
    if (!absl::EndsWith(a, ".csv")) result_args.push_back(a);
  }
  absl::StatusOr<ReadResults> read = ReadResultFiles(result_args);
  if (!read.ok()) return Fail(std::string(read.status().message()));
  for (const std::string& bad : read->bad) std::cerr << "verdict: " << bad << "\n";
  if (read->files.empty()) return Fail("no readable result file");
  inputs.files = std::move(read->files);
  inputs.unreadable = read->bad;
  inputs.csvs = ReadCsvs(args);

  const Verdict verdict = JudgeHeadlines(inputs, *ranges);
  std::cout << verdict.markdown;
  std::cout.flush();
  if (!std::cout) return Fail("cannot write to stdout");
  return verdict.out_of_range > 0 ? 1 : 0;
}
