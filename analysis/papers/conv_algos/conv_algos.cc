// Generators of analysis/papers/registry.h for conv_algos (placeholder until implemented).
#include "absl/status/status.h"
#include "analysis/papers/registry.h"

namespace dissect::analysis::papers {

absl::StatusOr<PaperFigure> GenerateConvAlgorithms(const CatalogEntry&, const std::vector<ResultFile>&) {
  return absl::UnimplementedError("GenerateConvAlgorithms is not implemented yet");
}

absl::StatusOr<PaperFigure> GenerateWorkspaceLimit(const CatalogEntry&, const std::vector<ResultFile>&) {
  return absl::UnimplementedError("GenerateWorkspaceLimit is not implemented yet");
}

}  // namespace dissect::analysis::papers
