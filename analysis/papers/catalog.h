// The paper catalog: configs/papers/<id>.json, format
// "dissect.paper.v1", one reproduced figure or table of a paper per file.
// Each entry says what the paper claims, which experiments and sweep remake
// it, which analysis generator (analysis/papers/registry.h) turns the results
// into the figure and the "paper vs this GPU" table, and the paper's own
// numbers where it states them (never invented: a number we could not read
// is "unknown" with the reason). Format: configs/papers/README.md.
#ifndef DISSECT_ANALYSIS_PAPERS_CATALOG_H_
#define DISSECT_ANALYSIS_PAPERS_CATALOG_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis::papers {

inline constexpr char kPaperFormat[] = "dissect.paper.v1";

// A number the paper states (or says it does not have).
struct PublishedValue {
  std::string key;       // the generator's name for it, e.g. "shared_latency_cycles"
  std::string quantity;  // human words, e.g. "shared-memory load latency"
  // The value: one number (lo == hi) or a range [lo, hi]; nullopt = unknown.
  std::optional<double> lo, hi;
  std::string unit;    // "cycles", "GB/s", "x", "%", ...
  std::string source;  // where in the paper (page, figure, table) or who quoted it
  std::string why;     // unknown values: why we could not give it
  bool known() const { return lo.has_value(); }
};

// Another setting of an entry's analysis, drawn on the same page from the
// same results: e.g. the paper's own mini-batch and limits beside a wider
// sweep of ours. Its params overlay the entry's (CatalogEntry::InSetting).
struct AnalysisSetting {
  std::string id;     // [a-z0-9_]+, unique in the entry: its figures' subfolder
  std::string label;  // the heading of its part of the page
  nlohmann::ordered_json params;
};

struct CatalogEntry {
  std::string id;  // the file stem, e.g. "dong_kaeli_2018_a"; --paper=<id>
  std::string path;
  // The paper.
  std::string paper_key;  // groups the figures of one paper, e.g. "dong_kaeli_2018"
  std::string title, authors, venue;
  int year = 0;  // 0: "unknown" in the file (no source gives it)
  // The paper's item in the reading list "GPU Workload Characteristics"
  // (2024-10-30) that the catalog draws on; 0 where the file names none.
  int reading_list_item = 0;
  std::string figure;  // "Figure 7", "Table 3", or "unknown: <why>"
  std::string claim;   // one sentence
  std::string expected_signature;
  std::string expected_differences;  // why this GPU may differ (a K40 vs an H100)
  // "ready", or "pending" with `pending` saying what is missing (a probe not
  // built yet, a GPU feature); pending entries are listed, never run.
  std::string status;
  std::string pending;
  // The sweep that remakes it: "defaults" and "entries" in the format of
  // configs/sweeps (dissect.sweep.v1), as JSON.
  nlohmann::ordered_json sweep;
  std::string generator;          // analysis/papers/registry.h; empty only for a pending entry
  nlohmann::ordered_json params;  // the generator's parameters ({} if none)
  std::vector<AnalysisSetting> settings;  // "analysis.settings"; none if absent
  std::vector<PublishedValue> published;

  bool ready() const { return status == "ready"; }
  const PublishedValue* FindPublished(std::string_view key) const;
  // The entry as its generator sees it in `setting`: the setting's params
  // replace the entry's of the same name, the others are kept.
  CatalogEntry InSetting(const AnalysisSetting& setting) const;
  // The sweep as a dissect.sweep.v1 document named after the entry, for
  // experiments/drivers/sweep's ParseSweepJson.
  nlohmann::ordered_json SweepDocument() const;
};

// Parses one catalog file's text; `path` names the file in errors. The id
// is the file stem. Every problem is one line naming the file and the field.
absl::StatusOr<CatalogEntry> ParseCatalogEntry(std::string_view text, std::string_view path);

// Every configs/papers/*.json of `dir`, sorted by id. Fails on the first bad
// file (named) and on a folder without entries.
absl::StatusOr<std::vector<CatalogEntry>> LoadCatalog(const std::string& dir);

// Entries matching `selector`: an entry id, or a paper key (every figure of
// that paper). Error listing the ids when nothing matches.
absl::StatusOr<std::vector<const CatalogEntry*>> SelectEntries(
    const std::vector<CatalogEntry>& catalog, std::string_view selector);

}  // namespace dissect::analysis::papers

#endif  // DISSECT_ANALYSIS_PAPERS_CATALOG_H_
