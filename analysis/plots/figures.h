// Figures of the memory experiments: per device, a gnuplot data file and
// script for latency vs footprint (one line per memory path, the curves the
// memory-hierarchy table reads) and, with memory_bandwidth results,
// bandwidth vs footprint (one line per op and width). With CUPTI stall
// counters (stalls.h), a stacked-bar stall breakdown: one bar per result
// row, split into the fractions of its stall per reason. Generating the text
// is separate from running gnuplot (done by //analysis:figures) so that
// tests can compare it with a golden.

#ifndef DISSECT_ANALYSIS_PLOTS_FIGURES_H_
#define DISSECT_ANALYSIS_PLOTS_FIGURES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/results/results.h"

namespace dissect::analysis {

struct FigureFile {
  std::string name;  // file name within the device folder
  std::string contents;
};

struct DeviceFigures {
  std::string device_name;
  std::string folder;  // DeviceFolder(device_name), made unique
  // Data files and scripts; every script is run with the folder as working
  // directory and writes `<script stem>.svg` there.
  std::vector<FigureFile> files;
  std::vector<std::string> scripts;  // names of the .gp files, in order
};

// A file-system-safe folder name for a device: lower case, runs of other
// characters than [a-z0-9] become one '_', trimmed; "device" if empty.
// "Synthetic H100-like GPU (fixture)" -> "synthetic_h100_like_gpu_fixture".
std::string DeviceFolder(std::string_view device_name);

// `text` as a gnuplot single-quoted string: '' stands for ', and line
// breaks become spaces.
std::string GnuplotQuoted(std::string_view text);

// The figures of every device (name, compute capability, SM count) with
// memory_latency, shared_latency, memory_bandwidth or l1_bypass rows
// (l1_bypass_dlcm_cg.svg: see l1_bypass.h), rows with
// `cupti/stall_<reason>` counters, or intergroup sharing results
// (sharing.h): sharing_l1_duplication (L1 hit ratio and duplicated fraction
// per kernel), sharing_dsm (DSM latency and bandwidth vs cluster size),
// sharing_l2_heatmap (SM x L2 line latency) and sharing_gpc_map (GPC of each
// SM), each where its experiment has data, or activation-sparsity results
// (sparsity.h): per network sparsity_layers_<network> (zero fraction per
// layer and pass) and sparsity_channels_<network> (sorted per-channel
// sparsity of a few layers), per sparsity_speed shape
// sparsity_speedup_<shape> (speedup vs sparsity per method, crossovers
// marked), or instruction results (instructions.h): instructions_latency_
// throughput (each op's latency against its best throughput) and
// instructions_block_dispatch (kernel time vs blocks with the fitted line);
// in first-seen order. Fails if no input has any.
absl::StatusOr<std::vector<DeviceFigures>> BuildFigures(
    const std::vector<ResultFile>& files);

// Runs `gnuplot script` with `dir` as working directory (a figure's .gp
// script writes its .svg beside it); returns gnuplot's exit status, 127 if
// it could not be started (not on PATH: Debian package gnuplot-nox), 128 +
// signal if killed. Used by //analysis:figures and //analysis:dashboard.
int RunGnuplot(const std::string& dir, const std::string& script);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_PLOTS_FIGURES_H_
