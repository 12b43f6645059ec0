// The analysis generators of the paper catalog, by the name a catalog entry
// gives in "analysis": {"generator": NAME}. Each is implemented in the
// package of its area (analysis/papers/<area>/) and golden-tested there on
// synthetic result files.
#ifndef DISSECT_ANALYSIS_PAPERS_REGISTRY_H_
#define DISSECT_ANALYSIS_PAPERS_REGISTRY_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/papers/catalog.h"
#include "analysis/papers/paper_figure.h"
#include "analysis/results/results.h"

namespace dissect::analysis::papers {

// analysis/papers/reused: figures remade from experiments that predate the
// catalog.
absl::StatusOr<PaperFigure> GenerateLatencyPair(const CatalogEntry&,
                                                const std::vector<ResultFile>&);
absl::StatusOr<PaperFigure> GenerateLayerTransactions(const CatalogEntry&,
                                                      const std::vector<ResultFile>&);
absl::StatusOr<PaperFigure> GenerateL1BypassSpeedup(const CatalogEntry&,
                                                    const std::vector<ResultFile>&);
absl::StatusOr<PaperFigure> GenerateFcHeatmap(const CatalogEntry&, const std::vector<ResultFile>&);
absl::StatusOr<PaperFigure> GenerateTensorGoodBadUgly(const CatalogEntry&,
                                                      const std::vector<ResultFile>&);
absl::StatusOr<PaperFigure> GenerateIntergroupSharing(const CatalogEntry&,
                                                      const std::vector<ResultFile>&);
absl::StatusOr<PaperFigure> GenerateActivationSparsity(const CatalogEntry&,
                                                       const std::vector<ResultFile>&);
// analysis/papers/fusion: fused vs unfused layer kernels.
absl::StatusOr<PaperFigure> GenerateFusionSpeedup(const CatalogEntry&,
                                                  const std::vector<ResultFile>&);
// analysis/papers/forward: per-layer figures of the built-in forward passes.
absl::StatusOr<PaperFigure> GenerateLayerBandwidth(const CatalogEntry&,
                                                   const std::vector<ResultFile>&);
absl::StatusOr<PaperFigure> GenerateOpBreakdown(const CatalogEntry&,
                                                const std::vector<ResultFile>&);
// analysis/papers/conv_algos: cuDNN's convolution algorithms.
absl::StatusOr<PaperFigure> GenerateConvAlgorithms(const CatalogEntry&,
                                                   const std::vector<ResultFile>&);
absl::StatusOr<PaperFigure> GenerateWorkspaceLimit(const CatalogEntry&,
                                                   const std::vector<ResultFile>&);
// analysis/papers/roofline: the measured roofline with LLM operators.
absl::StatusOr<PaperFigure> GenerateRoofline(const CatalogEntry&, const std::vector<ResultFile>&);
// analysis/papers/roofline: the decode-step time model against measured
// decode layers.
absl::StatusOr<PaperFigure> GenerateDecodeStepModel(const CatalogEntry&,
                                                    const std::vector<ResultFile>&);
// analysis/papers/communication: compute vs gradient exchange in data-parallel
// training, modelled from measured forward passes and host-link bandwidth.
absl::StatusOr<PaperFigure> GenerateCommunicationBreakdown(const CatalogEntry&,
                                                           const std::vector<ResultFile>&);

// The generator called `name`, or nullptr.
Generator FindGenerator(std::string_view name);
// Every generator name, sorted.
std::vector<std::string> GeneratorNames();

}  // namespace dissect::analysis::papers

#endif  // DISSECT_ANALYSIS_PAPERS_REGISTRY_H_
