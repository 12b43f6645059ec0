// `report`: prints a markdown report of dissect result files to stdout.
// See analysis/README.md.


#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "analysis/importers/import.h"
#include "analysis/sections/published.h"
#include "analysis/sections/published_embedded.h"
#include "analysis/sections/report.h"
#include "analysis/results/results.h"
#include "analysis/sections/stalls.h"
#include "analysis/sections/tensor.h"
#include "analysis/sections/instruction_rates_embedded.h"
#include "analysis/sections/tensor_peaks_embedded.h"
#include "gflags/gflags.h"
#include "tools/cli/flags.h"
#include "tools/cli/user_path.h"

DEFINE_bool(detail, false,
            "the whole report after the summary (without it, the summary ends with the "
            "titles of the sections it leaves out)");
DEFINE_string(published, "",
              "published values to compare with (see configs/README.md); default: "
              "configs/published/memory_hierarchy.json as built in");
DEFINE_string(stalls_csv, "",
              "also write the stall fractions as CSV (one line per row: file, device, name, "
              "total, one column per reason, dominant, problem), e.g. for a stall-breakdown "
              "figure; an error if no row has stall counters");
DEFINE_bool(compare, false,
            "print only a comparison of the memory hierarchies instead of the report: per "
            "device measured by two or more sources (dissect and peer results imported with "
            "//analysis:import, context `source`), one table per level with latency, capacity "
            "and bandwidth and their ratio to dissect's, and a note on the methods for every "
            "ratio outside [0.9, 1.1]; with two or more devices, a table per level with the "
            "devices in columns. Nothing to compare (one device from one source): exit status "
            "2");

namespace {

// The command line: result files or folders.
dissect::cli::Program Cli() {
  dissect::cli::Program program;
  program.name = "report";
  program.args = "<result.json | folder>...";
  program.about = R"(Reads dissect result files (Google Benchmark JSON with dissect context keys,
see analysis/SCHEMA.md) and prints a markdown report to stdout. It leads with
a summary: per device, each memory level's latency, capacity and bandwidth,
each with its source (the dissect experiment, the imported program, or the
published reference), and the level's ceiling where one is defined (DRAM:
the device's DRAM peak; shared: shared_bandwidth's ceiling); then the results
read. The rest follows with --detail: one section per experiment, a device
line per file and a table of medians, spread, SM clock and notes (skipped,
error, throttled), and the sections below. A folder is searched recursively
for *.json files, in sorted order.

Other suites' raw output (gpu-benches logs, mt4g JSON) is not read: convert
it with //analysis:import first; report names such a file and says so.

When memory experiments (memory_latency, latency_trace, memory_bandwidth,
shared_bandwidth) are among the files, a "memory hierarchy" section per
device follows: the table inferred from their curves, then the published
values that match the device. With tensor experiments (mma_sync, wgmma,
cublaslt_gemm), a "tensor cores" section per device follows: ceilings from
configs/tensor/peaks.json (built in), each measurement as a % of its peak and
of the best measured, and for GEMM sweeps a heatmap and a good/bad/ugly table.

When rows carry CUPTI warp-stall counters (cupti/stall_<reason>), a "stall
reasons" section gives each reason's fraction of the row's total stall and the
dominant reason; files whose counters could not be collected
(counters_unavailable) are named there with the reason.
)";
  program.flags = {{"detail"}, {"published", "FILE"}, {"stalls_csv", "FILE"}, {"compare"}};
  program.more = R"(An unreadable, malformed or foreign result file is named on stderr (one line
each) and left out; the others are reported, and the exit status is 1 at the
end. Bad usage, a path that does not exist, a folder without .json files or
no readable result file at all: exit status 2.

Examples:
  bazel run //analysis:report -- results/
  bazel run //analysis:report -- --detail results/h100/ > report.md
  bazel run //analysis:report -- --stalls_csv=/tmp/stalls.csv results/
  bazel run //analysis:import -- --from=mt4g \
      ../shared/data/peers/mt4g/NVIDIA_H100_80GB_HBM3.json --out=/tmp/peers &&
    bazel run //analysis:report -- --compare results/h100/ /tmp/peers/
)";
  return program;
}

int Fail(const std::string& message, int status = 2) {
  return dissect::cli::Fail(Cli(), message, status);
}

// What is wrong with `path` when it is another suite's raw output that
// //analysis:import converts (a gpu-benches log, an mt4g result); nullopt
// for anything else.
std::optional<std::string> RawPeerFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) return std::nullopt;
  std::string what;
  std::string from;
  if (absl::StatusOr<std::string> program =
          dissect::analysis::DetectGpuBenchesFormat(text.str(), path);
      program.ok()) {
    what = "a gpu-benches " + *program + " log";
    from = "gpu-benches --device_name=NAME";
  } else if (dissect::analysis::ParseMt4gJson(text.str(), path).ok()) {
    what = "an mt4g result";
    from = "mt4g";
  } else {
    return std::nullopt;
  }
  return path + ": " + what + ", not a dissect result file: convert it first with " +
         "bazel run //analysis:import -- --from=" + from + " --out=DIR " + path +
         ", then report DIR";
}

// ReadResultFiles, with other suites' raw files named as such.
absl::StatusOr<dissect::analysis::ReadResults> ReadInputs(const std::vector<std::string>& args) {
  absl::StatusOr<std::vector<std::string>> paths = dissect::analysis::CollectResultPaths(args);
  if (!paths.ok()) return paths.status();
  dissect::analysis::ReadResults read;
  for (const std::string& path : *paths) {
    absl::StatusOr<dissect::analysis::ResultFile> file = dissect::analysis::ReadResultFile(path);
    if (file.ok()) {
      read.files.push_back(*std::move(file));
    } else {
      read.bad.push_back(RawPeerFile(path).value_or(std::string(file.status().message())));
    }
  }
  return read;
}

// The report's options: the summary, the details with --detail, the
// published values (built in, or --published=FILE), the tensor peaks and the
// instruction rates.
absl::StatusOr<dissect::analysis::ReportOptions> LoadOptions(const std::string& published_path,
                                                             bool detail) {
  dissect::analysis::ReportOptions options;
  options.summary = true;
  options.detail = detail;
  std::string published_text = dissect::analysis::kEmbeddedPublishedJson;
  options.published_origin = dissect::analysis::kEmbeddedPublishedOrigin;
  if (!published_path.empty()) {
    std::ifstream in(published_path, std::ios::binary);
    if (!in) {
      return absl::NotFoundError(published_path + ": cannot open: " + std::strerror(errno));
    }
    std::ostringstream text;
    text << in.rdbuf();
    published_text = text.str();
    options.published_origin = published_path;
  }
  absl::StatusOr<std::vector<dissect::analysis::PublishedValue>> published =
      dissect::analysis::ParsePublishedJson(published_text, options.published_origin);
  if (!published.ok()) return published.status();
  options.published = *std::move(published);
  absl::StatusOr<dissect::analysis::TensorPeaks> peaks = dissect::analysis::ParseTensorPeaksJson(
      dissect::analysis::kEmbeddedTensorPeaksJson, dissect::analysis::kEmbeddedTensorPeaksOrigin);
  if (!peaks.ok()) return peaks.status();
  options.tensor_peaks = *std::move(peaks);
  absl::StatusOr<dissect::analysis::InstructionRates> rates =
      dissect::analysis::ParseInstructionRatesJson(
          dissect::analysis::kEmbeddedInstructionRatesJson,
          dissect::analysis::kEmbeddedInstructionRatesOrigin);
  if (!rates.ok()) return rates.status();
  options.instruction_rates = *std::move(rates);
  return options;
}

// --stalls_csv: the stall fractions of `files` as CSV at `path`.
absl::Status WriteStallsCsv(const std::string& path,
                            const std::vector<dissect::analysis::ResultFile>& files) {
  const dissect::analysis::StallTable stalls = dissect::analysis::BuildStallTable(files);
  if (stalls.rows.empty()) {
    std::string why;
    for (const auto& [file, reason] : stalls.unavailable) {
      why += "; " + file->path + ": counters unavailable: " + reason;
    }
    return absl::FailedPreconditionError(
        "--stalls_csv: no row has cupti/stall_<reason> counters" + why);
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return absl::PermissionDeniedError(path + ": cannot write: " + std::strerror(errno));
  out << dissect::analysis::StallsCsv(stalls);
  out.close();
  if (!out) return absl::DataLossError(path + ": cannot write");
  return absl::OkStatus();
}

// Prints `text` on stdout; the exit status: 1 when `bad` of the files
// could not be read (left out of `what`), 2 when stdout fails, else 0.
int Print(const std::string& text, size_t bad, size_t good, const std::string& what) {
  std::cout << text;
  std::cout.flush();
  if (!std::cout) return Fail("cannot write to stdout");
  if (bad == 0) return 0;
  return Fail(std::to_string(bad) + " of " + std::to_string(bad + good) +
                  " result file(s) unreadable and left out of the " + what + " (named above)",
              1);
}

}  // namespace

int main(int argc, char** argv) {
  const dissect::cli::CommandLine line = dissect::cli::ParseCommandLine(Cli(), argc, argv);
  if (line.exit_status.has_value()) return *line.exit_status;
  const std::vector<std::string>& args = line.args;
  const std::string published_path = FLAGS_published, stalls_csv_path = FLAGS_stalls_csv;
  const bool compare = FLAGS_compare, detail = FLAGS_detail;
  if (args.empty()) return dissect::cli::UsageOnStderr(Cli());
  if (compare && (!published_path.empty() || !stalls_csv_path.empty() || detail)) {
    return Fail("--compare prints only the comparison: it takes neither "
                "--published, --stalls_csv nor --detail");
  }

  if (absl::Status entered = dissect::cli::EnterCallerDirectory();
      !entered.ok()) {
    return Fail(std::string(entered.message()));
  }
  absl::StatusOr<dissect::analysis::ReadResults> read = ReadInputs(args);
  if (!read.ok()) return Fail(std::string(read.status().message()));
  for (const std::string& bad : read->bad) {
    std::cerr << "report: " << bad << "\n";
  }
  if (read->files.empty()) return 2;
  const std::vector<dissect::analysis::ResultFile>& files = read->files;
  if (compare) {
    absl::StatusOr<std::string> comparison = dissect::analysis::RenderCompareReport(files);
    if (!comparison.ok()) return Fail(std::string(comparison.status().message()));
    return Print(*comparison, read->bad.size(), files.size(), "comparison");
  }
  absl::StatusOr<dissect::analysis::ReportOptions> options = LoadOptions(published_path, detail);
  if (!options.ok()) return Fail(std::string(options.status().message()));
  absl::StatusOr<std::string> report = dissect::analysis::RenderReport(files, *options);
  if (!report.ok()) return Fail(std::string(report.status().message()));
  if (!stalls_csv_path.empty()) {
    if (absl::Status written = WriteStallsCsv(stalls_csv_path, files); !written.ok()) {
      return Fail(std::string(written.message()));
    }
  }
  return Print(*report, read->bad.size(), files.size(), "report");
}
