// intergroup_sharing and activation_sparsity: the report's sections and
// figures (sharing.h, sparsity.h, figures.h) for their experiments.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/plots/figures.h"
#include "analysis/papers/registry.h"
#include "analysis/papers/reused/common.h"
#include "analysis/sections/sharing.h"
#include "analysis/sections/sparsity.h"

namespace dissect::analysis::papers {
namespace {

using SectionRenderer = std::string (*)(const std::vector<ResultFile>&);

// The comparison table of the entry's published values (all measured in the
// section below), the section and the report's figures of `experiments`.
absl::StatusOr<PaperFigure> SectionFigure(const CatalogEntry& entry,
                                          const std::vector<ResultFile>& results,
                                          const std::vector<std::string>& experiments,
                                          SectionRenderer render) {
  absl::StatusOr<std::vector<const ResultFile*>> files =
      reused::RequireAnyExperiment(entry, results, experiments);
  if (!files.ok()) return files.status();
  std::vector<ResultFile> selected;
  for (const ResultFile* f : *files) selected.push_back(*f);
  PaperFigure out;
  MarkdownTable compare = ComparisonTable();
  for (const PublishedValue& p : entry.published) {
    AddComparison(compare, p.quantity, &p, std::nullopt, p.unit, "see the section below");
  }
  absl::StrAppend(&out.markdown, RenderMarkdownTable(compare), "\n", render(selected));
  absl::StatusOr<std::vector<DeviceFigures>> figures = BuildFigures(selected);
  if (figures.ok()) {
    for (const std::string& note : reused::AppendDeviceFigures(*figures, out)) {
      absl::StrAppend(&out.markdown, "\nNote: ", note, "\n");
    }
  } else {
    absl::StrAppend(&out.markdown, "\nNo figure: ", figures.status().message(), "\n");
  }
  return out;
}

}  // namespace

absl::StatusOr<PaperFigure> GenerateIntergroupSharing(const CatalogEntry& entry,
                                                      const std::vector<ResultFile>& results) {
  return SectionFigure(entry, results,
                       {"l1_duplication", "dsm_latency", "dsm_bandwidth", "gpc_topology",
                        "l2_sm_map", "cluster_coop"},
                       RenderSharingSections);
}

absl::StatusOr<PaperFigure> GenerateActivationSparsity(const CatalogEntry& entry,
                                                       const std::vector<ResultFile>& results) {
  return SectionFigure(
      entry, results,
      {"activation_sparsity", "sparsity_speed", "sparse24_gemm", "compressible_bandwidth"},
      RenderSparsitySections);
}

}  // namespace dissect::analysis::papers
