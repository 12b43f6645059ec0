// Generators of analysis/papers/registry.h for reused (placeholder until implemented).
#include "absl/status/status.h"
#include "analysis/papers/registry.h"

namespace dissect::analysis::papers {

absl::StatusOr<PaperFigure> GenerateLatencyPair(const CatalogEntry&, const std::vector<ResultFile>&) {
  return absl::UnimplementedError("GenerateLatencyPair is not implemented yet");
}

absl::StatusOr<PaperFigure> GenerateLayerTransactions(const CatalogEntry&, const std::vector<ResultFile>&) {
  return absl::UnimplementedError("GenerateLayerTransactions is not implemented yet");
}

absl::StatusOr<PaperFigure> GenerateL1BypassSpeedup(const CatalogEntry&, const std::vector<ResultFile>&) {
  return absl::UnimplementedError("GenerateL1BypassSpeedup is not implemented yet");
}

absl::StatusOr<PaperFigure> GenerateFcHeatmap(const CatalogEntry&, const std::vector<ResultFile>&) {
  return absl::UnimplementedError("GenerateFcHeatmap is not implemented yet");
}

absl::StatusOr<PaperFigure> GenerateTensorGoodBadUgly(const CatalogEntry&, const std::vector<ResultFile>&) {
  return absl::UnimplementedError("GenerateTensorGoodBadUgly is not implemented yet");
}

absl::StatusOr<PaperFigure> GenerateIntergroupSharing(const CatalogEntry&, const std::vector<ResultFile>&) {
  return absl::UnimplementedError("GenerateIntergroupSharing is not implemented yet");
}

absl::StatusOr<PaperFigure> GenerateActivationSparsity(const CatalogEntry&, const std::vector<ResultFile>&) {
  return absl::UnimplementedError("GenerateActivationSparsity is not implemented yet");
}

}  // namespace dissect::analysis::papers
