// configs/metrics/catalog.json as built into the binary (the
// metric_catalog_embedded target in probes/BUILD, made by //tools:embed.bzl).
#ifndef DISSECT_PROBES_METRIC_CATALOG_EMBEDDED_H_
#define DISSECT_PROBES_METRIC_CATALOG_EMBEDDED_H_

namespace dissect {

// The file's text, NUL-terminated.
extern const char kEmbeddedMetricCatalogJson[];

// How errors name it.
inline constexpr char kEmbeddedMetricCatalogOrigin[] =
    "configs/metrics/catalog.json";

}  // namespace dissect

#endif  // DISSECT_PROBES_METRIC_CATALOG_EMBEDDED_H_
