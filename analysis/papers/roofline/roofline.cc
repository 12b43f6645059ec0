// Generators of analysis/papers/registry.h for roofline (placeholder until implemented).
#include "absl/status/status.h"
#include "analysis/papers/registry.h"

namespace dissect::analysis::papers {

absl::StatusOr<PaperFigure> GenerateRoofline(const CatalogEntry&, const std::vector<ResultFile>&) {
  return absl::UnimplementedError("GenerateRoofline is not implemented yet");
}

}  // namespace dissect::analysis::papers
