// Generators of analysis/papers/registry.h for forward (placeholder until implemented).
#include "absl/status/status.h"
#include "analysis/papers/registry.h"

namespace dissect::analysis::papers {

absl::StatusOr<PaperFigure> GenerateLayerBandwidth(const CatalogEntry&, const std::vector<ResultFile>&) {
  return absl::UnimplementedError("GenerateLayerBandwidth is not implemented yet");
}

absl::StatusOr<PaperFigure> GenerateOpBreakdown(const CatalogEntry&, const std::vector<ResultFile>&) {
  return absl::UnimplementedError("GenerateOpBreakdown is not implemented yet");
}

}  // namespace dissect::analysis::papers
