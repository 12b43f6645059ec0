// configs/networks/*.json compiled in (//tools:embed.bzl), so that the
// communication model counts parameters without a data path.
#ifndef DISSECT_ANALYSIS_PAPERS_COMMUNICATION_NETWORKS_EMBEDDED_H_
#define DISSECT_ANALYSIS_PAPERS_COMMUNICATION_NETWORKS_EMBEDDED_H_

namespace dissect::analysis::papers::communication {

extern const char kEmbeddedVgg16Json[];
extern const char kEmbeddedResnet50Json[];
extern const char kEmbeddedDensenet121Json[];
extern const char kEmbeddedAlexnetJson[];

}  // namespace dissect::analysis::papers::communication

#endif  // DISSECT_ANALYSIS_PAPERS_COMMUNICATION_NETWORKS_EMBEDDED_H_
