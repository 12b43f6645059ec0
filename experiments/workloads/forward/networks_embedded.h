// configs/networks/*.json compiled in (//tools:embed.bzl), so that a bundled
// binary needs no data path.
#ifndef DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_NETWORKS_EMBEDDED_H_
#define DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_NETWORKS_EMBEDDED_H_

namespace dissect::forward {

extern const char kEmbeddedVgg16Json[];
extern const char kEmbeddedResnet50Json[];
extern const char kEmbeddedDensenet121Json[];
extern const char kEmbeddedAlexnetJson[];

}  // namespace dissect::forward

#endif  // DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_NETWORKS_EMBEDDED_H_
