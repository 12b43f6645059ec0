// `figures`: writes gnuplot data and scripts for the memory experiments and
// runs gnuplot on them, giving SVG figures. See analysis/README.md.

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_split.h"
#include "analysis/plots/figures.h"
#include "analysis/results/results.h"
#include "gflags/gflags.h"
#include "tools/cli/flags.h"
#include "tools/cli/user_path.h"

DEFINE_string(out, "", "the folder to write the figures to (required)");

namespace {

// The command line: --out=DIR and result files or folders.
dissect::cli::Program Cli() {
  dissect::cli::Program program;
  program.name = "figures";
  program.args = "<result.json | folder>...";
  program.about = R"(Writes, per device, DIR/<device>/latency_vs_footprint.svg (memory_latency or
shared_latency: one line per memory path, log-2 footprint axis, cycles);
with memory_bandwidth results, DIR/<device>/bandwidth_vs_footprint.svg (one
line per op and width, GB/s, the DRAM peak dashed); with CUPTI stall
counters (cupti/stall_<reason>), DIR/<device>/stall_breakdown.svg (one
stacked bar per result row: the fraction of its stall per reason, in the
order of report's stall table); and with l1_bypass results
DIR/<device>/l1_bypass_dlcm_cg.svg (bars: -dlcm=cg's speedup over default
per layer, %, noise as error bars). With intergroup sharing results:
DIR/<device>/sharing_l1_duplication.svg (l1_duplication: L1 hit ratio and
duplicated fraction per kernel, side by side), sharing_dsm.svg
(dsm_latency, dsm_bandwidth: latency and bandwidth vs cluster size),
sharing_l2_heatmap.svg (l2_sm_map: SM x L2 line latency, lines grouped by
partition) and sharing_gpc_map.svg (gpc_topology: the GPC of each SM).
With activation-sparsity results: per network
DIR/<device>/sparsity_layers_<network>.svg (activation_sparsity: zero
fraction per layer, a bar per pass) and sparsity_channels_<network>.svg
(sorted per-channel sparsity of a few layers), and per shape
sparsity_speedup_<shape>.svg (sparsity_speed: speedup over dense vs
sparsity, a line per method, crossovers marked on y = 1).
With instruction results: DIR/<device>/instructions_latency_throughput.svg
(instruction_latency and instruction_throughput: each op's latency against
its best throughput) and instructions_block_dispatch.svg (launch_overhead:
kernel time vs blocks per mode with the least-squares line).
Beside each SVG are the gnuplot data
(.dat) and script (.gp) it was drawn from. <device> is the device name in
lower case with other characters as '_'.
)";
  program.flags = {{"out", "DIR"}};
  program.more = R"(Needs gnuplot on PATH (Debian package gnuplot-nox). Bad input, a missing
gnuplot, or neither memory results nor stall counters: one line on stderr,
exit status 2; gnuplot failing on a script: exit status 1. An unreadable,
malformed or foreign result file is named on stderr and left out; the figures
of the others are drawn, with exit status 1 (2 if no file was readable).

Example:
  bazel run //analysis:figures -- --out=/tmp/fig results/
)";
  return program;
}

int Fail(const std::string& message, int status = 2) {
  return dissect::cli::Fail(Cli(), message, status);
}

// True if an executable `name` is in a folder of $PATH.
bool OnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  for (const std::string& dir :
       std::vector<std::string>(absl::StrSplit(path, ':'))) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + name;
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const dissect::cli::CommandLine line = dissect::cli::ParseCommandLine(Cli(), argc, argv);
  if (line.exit_status.has_value()) return *line.exit_status;
  const std::vector<std::string>& args = line.args;
  const std::string out_dir = FLAGS_out;
  if (args.empty()) return dissect::cli::UsageOnStderr(Cli());
  if (out_dir.empty()) return Fail("--out=DIR is required (see --help)");

  if (absl::Status entered = dissect::cli::EnterCallerDirectory();
      !entered.ok()) {
    return Fail(std::string(entered.message()));
  }
  absl::StatusOr<dissect::analysis::ReadResults> read =
      dissect::analysis::ReadResultFiles(args);
  if (!read.ok()) return Fail(std::string(read.status().message()));
  for (const std::string& bad : read->bad) {
    std::cerr << "figures: " << bad << "\n";
  }
  if (read->files.empty()) return 2;
  std::vector<dissect::analysis::ResultFile>& files = read->files;
  absl::StatusOr<std::vector<dissect::analysis::DeviceFigures>> figures =
      dissect::analysis::BuildFigures(files);
  if (!figures.ok()) return Fail(std::string(figures.status().message()));

  if (!OnPath("gnuplot")) {
    return Fail(
        "gnuplot not found on PATH; install the Debian package gnuplot-nox "
        "(apt-get install gnuplot-nox)");
  }

  namespace fs = std::filesystem;
  for (const dissect::analysis::DeviceFigures& device : *figures) {
    const fs::path dir = fs::path(out_dir) / device.folder;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return Fail(dir.string() + ": cannot create: " + ec.message());
    for (const dissect::analysis::FigureFile& file : device.files) {
      const fs::path path = dir / file.name;
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << file.contents;
      out.close();
      if (!out) return Fail(path.string() + ": cannot write");
    }
    for (const std::string& script : device.scripts) {
      const int status = dissect::analysis::RunGnuplot(dir.string(), script);
      if (status != 0) {
        return Fail((dir / script).string() + ": gnuplot exited with status " +
                        std::to_string(status),
                    1);
      }
      const std::string svg =
          (dir / fs::path(script).replace_extension(".svg")).string();
      if (!fs::exists(svg)) return Fail(svg + ": gnuplot wrote no SVG", 1);
      std::cout << svg << "\n";
    }
  }
  if (!read->bad.empty()) {
    return Fail(std::to_string(read->bad.size()) + " of " +
                    std::to_string(read->bad.size() + files.size()) +
                    " result file(s) unreadable and left out of the figures "
                    "(named above)",
                1);
  }
  return 0;
}
