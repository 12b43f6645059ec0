// `dashboard`: static HTML pages of the nightly history. See analysis/README.md.

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "analysis/pages/dashboard.h"
#include "analysis/sections/published.h"
#include "analysis/sections/published_embedded.h"
#include "analysis/nightly/regression.h"
#include "analysis/results/results.h"
#include "analysis/nightly/run_data.h"
#include "analysis/sections/tensor.h"
#include "analysis/sections/instruction_rates_embedded.h"
#include "analysis/sections/tensor_peaks_embedded.h"
#include "gflags/gflags.h"
#include "tools/cli/flags.h"
#include "tools/cli/user_path.h"

DEFINE_int32(nights, 7, "baseline of the regression check: the last N nights");

namespace {

namespace fs = std::filesystem;
namespace da = dissect::analysis;

// The command line: the history and the folder to write to.
dissect::cli::Program Cli() {
  dissect::cli::Program program;
  program.name = "dashboard";
  program.args = "HISTORY OUT_DIR";
  program.about = R"(Writes a static HTML dashboard of the nightly characterization runs (no
server, no JavaScript): OUT_DIR/index.html lists the nights, newest first,
with their devices and regression and fleet-outlier counts; per night,
OUT_DIR/<YYYY-MM-DD>/index.html shows, in this order, the regressions (each
run against the last N nights of its device) and fleet outliers, the
characterization tables (report), the SVG figures (figures, drawn with
gnuplot into OUT_DIR/<night>/figures/) and trend plots (inline SVG) of the
headline metric of every point measured that night, over the last 30 nights
of its device, with the spread as a band and driver and suite-commit changes
as dashed lines.

HISTORY is the history database (//analysis/nightly:history_db, SQLite; it
keeps each ingested result file whole, so the pages are those of the folders
it was ingested from; runs ingested before it kept files get tables rebuilt
from the stored medians, spreads and units, without clocks, labels or device
facts), or a folder of run folders (each with manifest.json and the result
files the sweep runner wrote; the folder itself may be one), searched
recursively. Results imported from other suites (ingested files of
//analysis:import) are no night: OUT_DIR/imported/index.html shows them,
with their suite, program and method, linked from the index.
)";
  program.flags = {{"nights", "N"}};
  program.more = R"(Every entry of a night's runs that failed, timed out, was skipped, never
finished or whose result file could not be read is listed in red on the
night's page and on the index, above the regressions, with its reason; a
night that measured nothing says so.

Exit status: 0 written, every entry of the newest night measured; 1 the
newest night has an entry that measured nothing (every such night, older
ones too, is a line on stderr; the pages say which and why), a page could
not be written, has a broken local link, or a figure could not be drawn (the
page says so); 2 bad input (one line on stderr).

Example:
  bazel run //analysis:dashboard -- /data/nightly /var/www/dissect
)";
  program.min_args = 2;
  program.max_args = 2;
  return program;
}

int Fail(const std::string& message, int status = 2) {
  return dissect::cli::Fail(Cli(), message, status);
}

}  // namespace

int main(int argc, char** argv) {
  const dissect::cli::CommandLine line = dissect::cli::ParseCommandLine(Cli(), argc, argv);
  if (line.exit_status.has_value()) return *line.exit_status;
  const std::vector<std::string>& args = line.args;
  const int nights = FLAGS_nights;
  if (nights < 1) {
    return dissect::cli::UsageError(Cli(), "--nights='" + std::to_string(nights) +
                                               "' is not a positive whole number");
  }
  if (absl::Status entered = dissect::cli::EnterCallerDirectory(); !entered.ok()) {
    return Fail(std::string(entered.message()));
  }
  const std::string history = args[0];
  const std::string out_dir = args[1];
  std::error_code ec;
  if (!fs::exists(history, ec)) {
    return Fail(history + ": no such history database or folder of run folders");
  }
  absl::StatusOr<da::DashboardInput> read = da::ReadDashboardInput(history);
  if (!read.ok()) return Fail(std::string(read.status().message()));
  da::DashboardInput& input = *read;
  for (const std::string& bad : input.bad) std::cerr << "dashboard: " << bad << "\n";
  if (input.runs.empty()) return Fail(input.origin + " holds no runs");

  da::DashboardOptions options;
  options.report.published_origin = da::kEmbeddedPublishedOrigin;
  absl::StatusOr<std::vector<da::PublishedValue>> published =
      da::ParsePublishedJson(da::kEmbeddedPublishedJson, options.report.published_origin);
  if (!published.ok()) return Fail(std::string(published.status().message()));
  options.report.published = *std::move(published);
  absl::StatusOr<da::TensorPeaks> peaks =
      da::ParseTensorPeaksJson(da::kEmbeddedTensorPeaksJson, da::kEmbeddedTensorPeaksOrigin);
  if (!peaks.ok()) return Fail(std::string(peaks.status().message()));
  options.report.tensor_peaks = *std::move(peaks);
  absl::StatusOr<da::InstructionRates> rates = da::ParseInstructionRatesJson(
      da::kEmbeddedInstructionRatesJson, da::kEmbeddedInstructionRatesOrigin);
  if (!rates.ok()) return Fail(std::string(rates.status().message()));
  options.report.instruction_rates = *std::move(rates);
  options.run_gnuplot = da::RunGnuplotScript;
  options.history_runs = std::max(options.trend_nights, nights) + 1;
  absl::StatusOr<da::Thresholds> thresholds = da::LoadThresholds("");
  if (thresholds.ok()) {
    options.find = [thresholds = *thresholds, nights](
                       const std::vector<da::RunData>& night_runs,
                       const std::map<std::string, std::vector<da::RunData>>& by_device) {
      return da::CheckNight(night_runs, by_device, thresholds, nights);
    };
  } else {
    options.findings_unavailable_reason = std::string(thresholds.status().message());
  }

  absl::StatusOr<da::DashboardSummary> summary = da::WriteDashboard(input, out_dir, options);
  if (!summary.ok()) return Fail(std::string(summary.status().message()), 1);
  for (const std::string& page : summary->pages) std::cout << page << "\n";
  for (const std::string& night : summary->broken_nights) {
    std::cerr << "dashboard: " << night << "\n";
  }
  for (const std::string& warning : summary->warnings)
    std::cerr << "dashboard: " << warning << "\n";
  return summary->warnings.empty() && !summary->newest_night_broken ? 0 : 1;
}
