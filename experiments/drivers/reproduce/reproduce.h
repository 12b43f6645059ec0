// `reproduce`: remakes one figure or table of a paper from the
// catalog (configs/papers, analysis/papers/catalog.h) on this GPU. It runs
// the entry's sweep with the nightly-sweep runner (experiments/drivers/sweep/runner.h:
// children with time limits, manifest.json, resumable) into DIR/<id>/, then
// the entry's analysis generator (analysis/papers/registry.h) over the result
// files, and writes
//
//   DIR/<id>/<id>.md        the paper, the claim, the expected signature and
//                           differences, the "paper vs this GPU" table(s),
//                           the sweep's status per entry, the provenance
//   DIR/<id>/figures/       the gnuplot data and scripts and the SVGs
//   DIR/<id>/manifest.json, <entry>.json, <entry>.log   the run folder
//
// With `results_dir` it runs nothing and analyses the result files found
// there (e.g. analysis/reference/<device>/). Each of the entry's analysis
// settings (e.g. the paper's own batch beside our wider sweep) is one more
// part of the page, from the same results, its figures in
// DIR/<id>/figures/<setting id>/. A pending entry never runs; its page
// (PendingPage) says why and lists the paper's numbers.
#ifndef DISSECT_EXPERIMENTS_DRIVERS_REPRODUCE_REPRODUCE_H_
#define DISSECT_EXPERIMENTS_DRIVERS_REPRODUCE_REPRODUCE_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/papers/catalog.h"
#include "analysis/papers/paper_figure.h"
#include "experiments/result_format/reader.h"
#include "experiments/drivers/sweep/runner.h"

namespace dissect::reproduce {

struct ReproduceOptions {
  std::string out_dir;      // absolute; DIR/<id>/ per entry
  std::string results_dir;  // non-empty: analyse the results there, run nothing
  bool dry_run = false;     // print the sweep's commands, write nothing
  bool draw = true;         // run gnuplot on the figure scripts
  // The runner's options; out_dir and dry_run are set per entry.
  sweep::RunnerOptions runner;
  std::ostream* progress = nullptr;  // stderr
};

// The catalog folder: configs/papers under the first of sweep::ConfigRoots
// (runfiles, working directory, workspace) that has one. Error naming the
// places searched if none does.
absl::StatusOr<std::string> FindCatalogDir();

// The catalog as `--list` prints it: one block per entry with its id, status
// (ready, or pending and why), paper, figure, claim and experiments.
std::string ListCatalog(const std::vector<analysis::papers::CatalogEntry>& catalog);

// The entry's sweep for the runner (ParseSweepJson of SweepDocument).
absl::StatusOr<sweep::Sweep> EntrySweep(const analysis::papers::CatalogEntry& entry);

// Every result file under `dir` (ReadResultFiles: recursively, *.json but
// manifest.json). Files that do not parse are named in `bad`.
absl::StatusOr<result_format::ReadResults> ReadResultsUnder(const std::string& dir);

// One analysis on a figure page: the entry's own ("Paper vs this GPU") or
// one of its analysis settings (headed by the setting's label).
struct PagePart {
  std::string heading;
  analysis::papers::PaperFigure figure;
  std::vector<std::string> svgs;  // relative to the page: figures/[<setting id>/]<stem>.svg
};

// The markdown page of a figure: header (paper, figure, claim, expected
// signature and differences), the device, each part (the generator's body
// and its drawn figures), the paper's numbers that no part shows, the
// sweep's entries with their status (from `manifest` when one exists) and
// the result files read.
std::string FigurePage(const analysis::papers::CatalogEntry& entry,
                       const std::vector<PagePart>& parts,
                       const std::vector<result_format::ResultFile>& results,
                       const std::string& sweep_status);

// The page of a pending entry, which runs nothing: the header as
// FigurePage's, why the entry is pending, and every number the paper gives,
// each without a measurement beside it.
std::string PendingPage(const analysis::papers::CatalogEntry& entry);

// Writes PendingPage to `out_dir`/<id>/<id>.md (the folder created if
// missing); returns the page's path.
absl::StatusOr<std::string> WritePendingPage(const analysis::papers::CatalogEntry& entry,
                                             const std::string& out_dir);

// Remakes one entry. Returns 0 when the sweep (if run) and the analysis
// succeeded and every figure was drawn, 1 when something did not (said on
// the progress stream and in the page). Errors are bad usage: a pending
// entry, an unknown generator, a sweep that does not parse, a folder that
// cannot be written.
absl::StatusOr<int> Reproduce(const analysis::papers::CatalogEntry& entry,
                              const ReproduceOptions& options);

}  // namespace dissect::reproduce

#endif  // DISSECT_EXPERIMENTS_DRIVERS_REPRODUCE_REPRODUCE_H_
