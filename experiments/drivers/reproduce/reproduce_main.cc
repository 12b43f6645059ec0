// `reproduce`: remakes a paper's figure on this GPU from the paper catalog
// (configs/papers). See experiments/drivers/reproduce/reproduce.h.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "analysis/papers/catalog.h"
#include "experiments/framework/build_info.h"
#include "experiments/drivers/reproduce/reproduce.h"
#include "experiments/drivers/sweep/cli_util.h"
#include "experiments/drivers/sweep/device_identity.h"
#include "experiments/drivers/sweep/preflight.h"
#include "experiments/drivers/sweep/runner.h"
#include "gflags/gflags.h"
#include "tools/cli/flags.h"
#include "tools/cli/user_path.h"

DEFINE_string(paper, "", "a catalog entry, or a paper key (every figure of the paper)");
DEFINE_string(out, "",
              "output folder (created if missing); rerun with the same DIR to resume an "
              "interrupted sweep");
DEFINE_bool(list, false, "print the catalog (pending entries say what they wait for)");
DEFINE_string(results, "",
              "run nothing: analyse the result files under DIR (e.g. "
              "analysis/reference/<device>/) and write the figure to --out");
DEFINE_bool(dry_run, false, "print the commands the sweep would run, write nothing");
DEFINE_bool(no_draw, false, "write the gnuplot scripts and data, do not run gnuplot");
DEFINE_string(bin_dir, "", "take the experiment binaries from DIR (a bundle's dist/bin)");
DEFINE_int32(device, 0, "CUDA device for the experiments");
DEFINE_string(catalog, "", "another catalog folder (default configs/papers)");

namespace {

namespace fs = std::filesystem;

// The command line: flags only.
dissect::cli::Program Cli() {
  dissect::cli::Program program;
  program.name = "reproduce";
  program.about = R"(  reproduce --paper=ID|KEY --out=DIR [flags]
  reproduce --list

Remakes a figure or table of a paper in the catalog (configs/papers/ID.json)
on this GPU: runs the entry's sweep with the nightly-sweep runner (each
experiment a child process with a time limit, resumable) into DIR/ID/, then
the entry's analysis, which writes DIR/ID/ID.md (the paper vs this GPU
table, the expected signature and where a difference is expected) and the
figure DIR/ID/figures/*.svg (gnuplot).
)";
  program.flags = {{"paper", "ID|KEY"},  {"out", "DIR"},     {"list"},
                   {"results", "DIR"},   {"dry_run"},        {"no_draw"},
                   {"bin_dir", "DIR"},   {"device", "N"},    {"catalog", "DIR"}};
  program.more = R"(A pending entry runs nothing: DIR/ID/ID.md says why it is pending and lists
the paper's numbers.

Exit status: 0 every ready figure made (pending entries write their page);
1 a sweep entry failed or timed out, an analysis or a drawing failed (the
rest was still made); 2 bad usage (unknown paper, bad flag, unwritable
--out); 130/143 stopped (rerun to resume).

Examples:
  ./bazelw run -c opt //experiments:reproduce -- --list
  ./bazelw run -c opt //experiments:reproduce -- --paper=dong_kaeli_2018_a_latency --out=papers
)";
  program.max_args = 0;
  return program;
}

int Fail(const std::string& message) { return dissect::cli::Fail(Cli(), message, 2); }

// --results and --bin_dir, where given, must be folders: the error, or "".
std::string FolderProblem(const dissect::reproduce::ReproduceOptions& options) {
  std::error_code ec;
  if (!options.results_dir.empty() && !fs::is_directory(options.results_dir, ec)) {
    return "--results=" + options.results_dir + " is not a folder";
  }
  if (!options.runner.bin_dir.empty() && !fs::is_directory(options.runner.bin_dir, ec)) {
    return "--bin_dir=" + options.runner.bin_dir + " is not a folder";
  }
  return "";
}

// The sweep runner's view of this machine and where it writes.
void SetUpRunner(dissect::sweep::RunnerOptions& runner) {
  runner.search_roots = dissect::sweep::SearchRoots();
  runner.host = dissect::sweep::HostName();
  runner.git_commit = dissect::GetBuildInfo().git_commit;
  runner.query_device = dissect::sweep::QueryDeviceIdentity;
  // The sweep runner's check before any entry: a machine without a usable
  // device ends the reproduction in the runner's one line.
  runner.check_device = [](int index) { return dissect::sweep::CheckDevice(index, ""); };
  runner.progress = &std::cerr;
  runner.out = &std::cout;
}

}  // namespace

int main(int argc, char** argv) {
  if (absl::Status entered = dissect::cli::EnterCallerDirectory(); !entered.ok()) {
    return Fail(std::string(entered.message()));
  }
  using dissect::cli::UserPath;
  const dissect::cli::CommandLine line = dissect::cli::ParseCommandLine(Cli(), argc, argv);
  if (line.exit_status.has_value()) return *line.exit_status;
  if (FLAGS_device < 0) {
    return Fail("--device='" + std::to_string(FLAGS_device) +
                "' is not a device index (0, 1, ...)");
  }
  dissect::reproduce::ReproduceOptions options;
  options.dry_run = FLAGS_dry_run;
  options.draw = !FLAGS_no_draw;
  options.results_dir = UserPath(FLAGS_results);
  options.runner.bin_dir = UserPath(FLAGS_bin_dir);
  options.runner.device = FLAGS_device;
  const std::string paper = FLAGS_paper, out_dir = FLAGS_out;
  std::string catalog_dir = UserPath(FLAGS_catalog);
  const bool list = FLAGS_list;
  if (catalog_dir.empty()) {
    absl::StatusOr<std::string> found = dissect::reproduce::FindCatalogDir();
    if (!found.ok()) return Fail(std::string(found.status().message()));
    catalog_dir = *found;
  }
  absl::StatusOr<std::vector<dissect::analysis::papers::CatalogEntry>> catalog =
      dissect::analysis::papers::LoadCatalog(catalog_dir);
  if (!catalog.ok()) return Fail(std::string(catalog.status().message()));
  if (list) {
    std::cout << dissect::reproduce::ListCatalog(*catalog);
    return 0;
  }
  if (paper.empty()) return Fail("--paper=ID is required (--list shows the catalog)");
  if (out_dir.empty()) return Fail("--out=DIR is required");
  absl::StatusOr<std::vector<const dissect::analysis::papers::CatalogEntry*>> selected =
      dissect::analysis::papers::SelectEntries(*catalog, paper);
  if (!selected.ok()) return Fail(std::string(selected.status().message()));
  if (const std::string problem = FolderProblem(options); !problem.empty()) return Fail(problem);
  options.out_dir = UserPath(out_dir);
  SetUpRunner(options.runner);
  options.progress = &std::cerr;
  setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", /*overwrite=*/0);
  dissect::sweep::InstallStopHandlers();

  int status = 0;
  for (const dissect::analysis::papers::CatalogEntry* entry : *selected) {
    // A pending entry runs nothing; its page says why and lists the paper's
    // numbers.
    if (!entry->ready()) {
      std::cerr << "reproduce: " << entry->id << ": pending, not run: " << entry->pending << "\n";
      if (options.dry_run) continue;
      absl::StatusOr<std::string> page =
          dissect::reproduce::WritePendingPage(*entry, options.out_dir);
      if (!page.ok()) return Fail(std::string(page.status().message()));
      std::cerr << "reproduce: " << entry->id << ": wrote " << *page << "\n";
      continue;
    }
    absl::StatusOr<int> done = dissect::reproduce::Reproduce(*entry, options);
    if (!done.ok()) return Fail(std::string(done.status().message()));
    if (*done >= 128 || *done == dissect::sweep::kExitNoDevice) return *done;
    status = std::max(status, *done);
  }
  return status;
}
