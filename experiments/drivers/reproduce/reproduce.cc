#include "experiments/drivers/reproduce/reproduce.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/plots/figures.h"
#include "analysis/format/format.h"
#include "analysis/papers/registry.h"
#include "experiments/result_format/atomic_file.h"
#include "experiments/drivers/sweep/cli_util.h"
#include "experiments/drivers/sweep/preflight.h"
#include "experiments/drivers/sweep/sweep_config.h"

namespace dissect::reproduce {
namespace {

namespace fs = std::filesystem;
using analysis::papers::CatalogEntry;
using analysis::papers::PaperFigure;
using analysis::papers::PublishedValue;

std::string Experiments(const CatalogEntry& e) {
  std::vector<std::string> names;
  if (e.sweep.contains("entries") && e.sweep["entries"].is_array()) {
    for (const auto& entry : e.sweep["entries"]) {
      if (!entry.contains("experiment") || !entry["experiment"].is_string()) continue;
      const std::string name = entry["experiment"].get<std::string>();
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names.empty() ? "none yet" : absl::StrJoin(names, ", ");
}

// Creates `dir` and its parents where missing.
absl::Status CreateFolder(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return absl::PermissionDeniedError(
        absl::StrCat(dir.string(), ": cannot create: ", ec.message()));
  }
  return absl::OkStatus();
}

std::string PublishedText(const PublishedValue& p) {
  return absl::StrCat(p.quantity, ": ", analysis::papers::PublishedCell(&p));
}

// The sweep's entries and their status in the run folder's manifest.
std::string SweepStatus(const std::string& run_dir) {
  absl::StatusOr<std::optional<sweep::Manifest>> manifest =
      sweep::ReadManifest((fs::path(run_dir) / sweep::kManifestName).string());
  if (!manifest.ok())
    return absl::StrCat("The run folder's manifest is unreadable: ", manifest.status().message(),
                        "\n");
  if (!manifest->has_value()) return "No sweep ran (no manifest.json).\n";
  analysis::MarkdownTable table;
  table.columns = {{"entry", false},  {"experiment", false},  {"status", false},
                   {"seconds", true}, {"result file", false}, {"reason", false}};
  for (const sweep::EntryRecord& r : (*manifest)->entries) {
    table.rows.push_back({r.id, r.experiment, std::string(sweep::EntryStatusName(r.status)),
                          analysis::FormatNumber(r.seconds), r.result_file,
                          analysis::CellText(r.reason)});
  }
  return absl::StrCat("Run `", (*manifest)->run_id, "` on ", (*manifest)->host, ", commit ",
                      (*manifest)->git_commit, ":\n\n", analysis::RenderMarkdownTable(table));
}

// The top of an entry's page: the paper, the figure and what to expect,
// this GPU (`device`), and the entry's id with `entry_note`.
std::string PageHeader(const CatalogEntry& entry, const std::string& device,
                       const std::string& entry_note) {
  return absl::StrCat(
      "# ", entry.title, " (", entry.year > 0 ? absl::StrCat(entry.year) : "year unknown",
      "): ", entry.figure, "\n\n", "- Paper: ", entry.authors, ", \"", entry.title, "\", ",
      entry.venue, ".\n", "- Claim: ", entry.claim, "\n",
      "- Expected signature: ", entry.expected_signature, "\n",
      "- Expected differences: ", entry.expected_differences, "\n", "- This GPU: ", device, "\n",
      "- Catalog entry: `", entry.id, "` (", entry_note, ")\n\n");
}

// The paper's numbers that no part of a page shows (a generator sets some
// against its measurements, and may list the rest with
// AddPublishedWithoutMeasurement): a table of them, so that every number of
// the entry is on its page; "" when every one is shown.
std::string OtherPublishedNumbers(const CatalogEntry& entry,
                                  const std::vector<PagePart>& parts) {
  std::vector<std::string> shown;
  for (const PublishedValue& p : entry.published) {
    const std::string cell = analysis::CellText(analysis::papers::PublishedCell(&p));
    for (const PagePart& part : parts) {
      if (part.figure.markdown.find(cell) != std::string::npos) shown.push_back(p.key);
    }
  }
  analysis::MarkdownTable table = analysis::papers::ComparisonTable();
  analysis::papers::AddPublishedWithoutMeasurement(table, entry, shown);
  if (table.rows.empty()) return "";
  return absl::StrCat("## The paper's other numbers\n\n",
                      "Numbers the paper gives that the analysis above does not show:\n\n",
                      analysis::RenderMarkdownTable(table));
}

}  // namespace

absl::StatusOr<std::string> FindCatalogDir() {
  std::vector<std::string> candidates;
  std::error_code ec;
  for (const std::string& root : sweep::ConfigRoots()) {
    candidates.push_back(root + "/configs/papers");
    if (fs::is_directory(candidates.back(), ec)) return candidates.back();
  }
  return absl::NotFoundError(absl::StrCat("the paper catalog (configs/papers) was not found in: ",
                                          absl::StrJoin(candidates, ", ")));
}

std::string ListCatalog(const std::vector<CatalogEntry>& catalog) {
  std::string out;
  int ready = 0;
  for (const CatalogEntry& e : catalog) {
    ready += e.ready() ? 1 : 0;
    absl::StrAppend(&out, e.id, "  [", e.ready() ? "ready" : "pending", "]\n", "  ", e.title, " (",
                    e.authors, "; ", e.venue, "), ", e.figure, "\n", "  claim: ", e.claim, "\n",
                    "  experiments: ", Experiments(e),
                    "; analysis: ", e.generator.empty() ? "none yet" : e.generator, "\n");
    if (!e.ready()) absl::StrAppend(&out, "  pending: ", e.pending, "\n");
    for (const PublishedValue& p : e.published) {
      absl::StrAppend(&out, "  published: ", PublishedText(p), "\n");
    }
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out, catalog.size(), " entries: ", ready, " ready, ", catalog.size() - ready,
                  " pending. Run one: reproduce --paper=<id> --out=DIR\n");
  return out;
}

absl::StatusOr<sweep::Sweep> EntrySweep(const CatalogEntry& entry) {
  return sweep::ParseSweepJson(entry.SweepDocument().dump(2), entry.path);
}

absl::StatusOr<result_format::ReadResults> ReadResultsUnder(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return absl::NotFoundError(absl::StrCat(dir, ": not a folder"));
  absl::StatusOr<result_format::ReadResults> read = result_format::ReadResultFiles({dir});
  // A folder without result files (a sweep whose entries all failed to
  // start) is no results, which the generator reports.
  if (!read.ok() && absl::IsNotFound(read.status())) return result_format::ReadResults{};
  return read;
}

std::string FigurePage(const CatalogEntry& entry, const std::vector<PagePart>& parts,
                       const std::vector<result_format::ResultFile>& results,
                       const std::string& sweep_status) {
  std::string page = PageHeader(entry, analysis::papers::DeviceLine(results),
                                absl::StrCat("analysis `", entry.generator, "`"));
  for (const PagePart& part : parts) {
    const std::string& markdown = part.figure.markdown;
    absl::StrAppend(&page, "## ", part.heading, "\n\n", markdown);
    if (!markdown.empty() && markdown.back() != '\n') page += "\n";
    if (part.svgs.empty()) continue;
    if (!absl::EndsWith(page, "\n\n")) page += "\n";
    absl::StrAppend(&page, "### Figures\n\n");
    for (const std::string& svg : part.svgs) {
      absl::StrAppend(&page, "![", fs::path(svg).filename().string(), "](", svg, ")\n");
    }
    page += "\n";
  }
  absl::StrAppend(&page, OtherPublishedNumbers(entry, parts));
  absl::StrAppend(&page, "\n## Sweep\n\n", sweep_status);
  absl::StrAppend(&page, "\n## Result files read\n\n");
  if (results.empty()) absl::StrAppend(&page, "None.\n");
  for (const result_format::ResultFile& f : results) {
    absl::StrAppend(&page, "- `", f.path, "`: ", f.experiment, ", ", f.rows.size(),
                    " rows, commit ", f.ContextOr("git_commit", "unknown"), "\n");
  }
  return page;
}

std::string PendingPage(const CatalogEntry& entry) {
  std::string page = PageHeader(
      entry, "not measured: the entry is pending",
      absl::StrCat("pending; analysis `", entry.generator.empty() ? "none yet" : entry.generator,
                   "`, experiments: ", Experiments(entry)));
  absl::StrAppend(&page, "## Pending\n\nNot reproduced on this GPU: ", entry.pending, "\n\n",
                  "## Paper vs this GPU\n\n");
  if (entry.published.empty()) {
    absl::StrAppend(&page, "The catalog entry gives none of the paper's numbers.\n");
    return page;
  }
  analysis::MarkdownTable table = analysis::papers::ComparisonTable();
  analysis::papers::AddPublishedWithoutMeasurement(table, entry, {});
  absl::StrAppend(&page, analysis::RenderMarkdownTable(table));
  return page;
}

absl::StatusOr<std::string> WritePendingPage(const CatalogEntry& entry,
                                             const std::string& out_dir) {
  const fs::path dir = fs::path(out_dir) / entry.id;
  if (absl::Status s = CreateFolder(dir); !s.ok()) return s;
  const std::string path = (dir / (entry.id + ".md")).string();
  if (absl::Status s = result_format::WriteFileAtomically(path, PendingPage(entry)); !s.ok()) {
    return s;
  }
  return path;
}

// What running (or skipping) the entry's sweep left: an exit status to
// return at once (dry run, stopped by a signal, no usable device), or the
// status so far, the page's sweep section and the folder to analyse.
struct SweepPart {
  std::optional<int> exit_now;
  int status = 0;
  std::string sweep_status;
  std::string results_dir;
};

// Runs the entry's sweep into `dir`, or with options.results_dir takes the
// results found there.
absl::StatusOr<SweepPart> RunOrReuseSweep(const CatalogEntry& entry,
                                          const ReproduceOptions& options, const std::string& dir,
                                          std::ostream& progress) {
  SweepPart part;
  part.results_dir = options.results_dir;
  if (!part.results_dir.empty()) {
    if (options.dry_run) {
      progress << "reproduce: " << entry.id << ": would analyse the results in "
               << part.results_dir << "\n";
      part.exit_now = 0;
      return part;
    }
    part.sweep_status =
        absl::StrCat("Not run: the results were read from `", part.results_dir, "`.\n");
    return part;
  }
  absl::StatusOr<sweep::Sweep> sweep = EntrySweep(entry);
  if (!sweep.ok()) return sweep.status();
  sweep::RunnerOptions runner = options.runner;
  runner.out_dir = dir;
  runner.dry_run = options.dry_run;
  if (options.dry_run) {
    absl::StatusOr<int> ran = sweep::RunSweep(*sweep, runner);
    if (!ran.ok()) return ran.status();
    part.exit_now = *ran;
    return part;
  }
  if (absl::Status s = CreateFolder(dir); !s.ok()) return s;
  sweep::FolderLock lock;
  if (std::string why = lock.Acquire(dir); !why.empty()) {
    return absl::FailedPreconditionError(why);
  }
  progress << "reproduce: " << entry.id << ": running " << sweep->entries.size() << " sweep entr"
           << (sweep->entries.size() == 1 ? "y" : "ies") << " into " << dir << "\n";
  absl::StatusOr<int> ran = sweep::RunSweep(*sweep, runner);
  if (!ran.ok()) return ran.status();
  // Stopped by a signal (the run folder resumes), or no usable device (the
  // runner said why in one line): nothing to analyse.
  if (*ran >= 128 || *ran == sweep::kExitNoDevice) {
    part.exit_now = *ran;
    return part;
  }
  part.status = *ran == 0 ? 0 : 1;
  part.sweep_status = SweepStatus(dir);
  part.results_dir = dir;
  return part;
}

// Writes the figure's files into `figures_dir` and, with `draw`, runs
// gnuplot on its scripts; the SVGs drawn. A script gnuplot fails on is a
// line on `progress` and sets `status` to 1.
absl::StatusOr<std::vector<std::string>> WriteFigures(const CatalogEntry& entry,
                                                      const PaperFigure& figure,
                                                      const fs::path& figures_dir, bool draw,
                                                      std::ostream& progress, int& status) {
  std::vector<std::string> svgs;
  for (const analysis::FigureFile& f : figure.files) {
    if (absl::Status s =
            result_format::WriteFileAtomically((figures_dir / f.name).string(), f.contents);
        !s.ok()) {
      return s;
    }
  }
  for (const std::string& script : figure.scripts) {
    const std::string svg = fs::path(script).replace_extension(".svg").string();
    if (!draw) continue;
    const int drawn = analysis::RunGnuplot(figures_dir.string(), script);
    if (drawn == 0) {
      svgs.push_back(svg);
    } else {
      progress << "reproduce: " << entry.id << ": gnuplot " << script << " exited " << drawn
               << (drawn == 127 ? " (gnuplot not found: apt install gnuplot-nox)" : "")
               << "; the script and its data are in " << figures_dir.string() << "\n";
      status = 1;
    }
  }
  return svgs;
}

// One part of the page: `generator` on `entry` (the entry itself or in one
// of its settings), its figures written to `figures_dir` (`svg_dir` from the
// page) and drawn. An analysis that fails is said on the progress stream and
// in the part, and sets `status` to 1.
absl::StatusOr<PagePart> MakePart(const CatalogEntry& entry,
                                  analysis::papers::Generator generator,
                                  const std::string& heading,
                                  const std::vector<result_format::ResultFile>& results,
                                  const fs::path& figures_dir, const std::string& svg_dir,
                                  const ReproduceOptions& options, int& status) {
  std::ostream& progress = options.progress != nullptr ? *options.progress : std::cerr;
  if (absl::Status s = CreateFolder(figures_dir); !s.ok()) return s;
  PagePart part;
  part.heading = heading;
  absl::StatusOr<PaperFigure> figure = generator(entry, results);
  if (figure.ok()) {
    part.figure = *std::move(figure);
  } else {
    progress << "reproduce: " << entry.id << ": analysis (" << heading
             << "): " << figure.status().message() << "\n";
    part.figure.markdown =
        absl::StrCat("The figure could not be made: ", figure.status().message(), "\n");
    status = 1;
  }
  absl::StatusOr<std::vector<std::string>> svgs =
      WriteFigures(entry, part.figure, figures_dir, options.draw, progress, status);
  if (!svgs.ok()) return svgs.status();
  for (const std::string& svg : *svgs) part.svgs.push_back(svg_dir + "/" + svg);
  return part;
}

absl::StatusOr<int> Reproduce(const CatalogEntry& entry, const ReproduceOptions& options) {
  if (!entry.ready()) {
    return absl::FailedPreconditionError(absl::StrCat(entry.id, " is pending: ", entry.pending));
  }
  const analysis::papers::Generator generator = analysis::papers::FindGenerator(entry.generator);
  if (generator == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(entry.path, ": unknown analysis generator '", entry.generator, "'"));
  }
  std::ostream& progress = options.progress != nullptr ? *options.progress : std::cerr;
  const std::string dir = (fs::path(options.out_dir) / entry.id).string();
  absl::StatusOr<SweepPart> part = RunOrReuseSweep(entry, options, dir, progress);
  if (!part.ok()) return part.status();
  if (part->exit_now.has_value()) return *part->exit_now;
  int status = part->status;

  absl::StatusOr<result_format::ReadResults> read = ReadResultsUnder(part->results_dir);
  if (!read.ok()) return read.status();
  for (const std::string& bad : read->bad) {
    progress << "reproduce: " << entry.id << ": left out: " << bad << "\n";
    status = 1;
  }
  const fs::path figures_dir = fs::path(dir) / "figures";
  std::vector<PagePart> parts;
  absl::StatusOr<PagePart> own = MakePart(entry, generator, "Paper vs this GPU", read->files,
                                          figures_dir, "figures", options, status);
  if (!own.ok()) return own.status();
  parts.push_back(*std::move(own));
  for (const analysis::papers::AnalysisSetting& setting : entry.settings) {
    absl::StatusOr<PagePart> setting_part =
        MakePart(entry.InSetting(setting), generator, setting.label, read->files,
                 figures_dir / setting.id, "figures/" + setting.id, options, status);
    if (!setting_part.ok()) return setting_part.status();
    parts.push_back(*std::move(setting_part));
  }
  size_t drawn = 0;
  for (const PagePart& part : parts) drawn += part.svgs.size();
  const std::string page_path = (fs::path(dir) / (entry.id + ".md")).string();
  if (absl::Status s = result_format::WriteFileAtomically(
          page_path, FigurePage(entry, parts, read->files, part->sweep_status));
      !s.ok()) {
    return s;
  }
  progress << "reproduce: " << entry.id << ": wrote " << page_path << " and " << drawn
           << " figure(s)" << (status == 0 ? "" : " (with problems, see above)") << "\n";
  return status;
}

}  // namespace dissect::reproduce
