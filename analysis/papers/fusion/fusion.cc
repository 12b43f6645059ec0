// Generators of analysis/papers/registry.h for fusion (placeholder until implemented).
#include "absl/status/status.h"
#include "analysis/papers/registry.h"

namespace dissect::analysis::papers {

absl::StatusOr<PaperFigure> GenerateFusionSpeedup(const CatalogEntry&, const std::vector<ResultFile>&) {
  return absl::UnimplementedError("GenerateFusionSpeedup is not implemented yet");
}

}  // namespace dissect::analysis::papers
