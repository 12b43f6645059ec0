// The hardware-counter catalog (configs/metrics/catalog.json, format
// documented in configs/README.md): short names such as `dram_bytes_read`
// with a unit and a one-line help, mapped to CUPTI (perfworks) metric names
// per chip, plus named groups such as `all_memory`. Parsing and name
// resolution need no GPU and no CUPTI.
#ifndef DISSECT_PROBES_METRIC_CATALOG_H_
#define DISSECT_PROBES_METRIC_CATALOG_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dissect {

// The format tag the parser understands.
inline constexpr char kMetricCatalogFormat[] = "dissect.metrics.v1";

struct CatalogMetric {
  std::string name;  // short name, e.g. "dram_bytes_read"
  std::string unit;  // e.g. "B", "%", "sectors"
  std::string help;  // one line
  // Chip (as CUPTI names it, e.g. "GH100") → perfworks metric name with its
  // rollup, e.g. "dram__bytes_read.sum". The file may give one name for
  // "all" chips; parsed, every declared chip is here or in `unavailable`.
  std::map<std::string, std::string> perfworks;
  // Chip → why the metric cannot be read on it (one line).
  std::map<std::string, std::string> unavailable;
};

struct CatalogGroup {
  std::string name;  // e.g. "all_memory"
  std::string help;
  std::vector<std::string> metrics;  // short names, in order
};

class MetricCatalog {
 public:
  // Parses and checks a catalog: format tag, names of the form [a-z][a-z0-9_]*
  // and unique across metrics and groups, every metric with a unit, a help,
  // and for every declared chip either a perfworks name (its own or the
  // "all" one) or the reason it is unavailable, never both; every group
  // member a metric. Errors are one line starting with `origin: `.
  static absl::StatusOr<MetricCatalog> Parse(absl::string_view json,
                                             absl::string_view origin);

  // The catalog built into the binary (configs/metrics/catalog.json).
  static const MetricCatalog& Embedded();

  const std::vector<CatalogMetric>& metrics() const { return metrics_; }
  const std::vector<CatalogGroup>& groups() const { return groups_; }
  // Declared chips → description, e.g. "GH100" → "Hopper: H100, ...".
  const std::map<std::string, std::string>& chips() const { return chips_; }

  // Null when there is no such metric / group.
  const CatalogMetric* FindMetric(absl::string_view name) const;
  const CatalogGroup* FindGroup(absl::string_view name) const;

  // Expands a --metrics value: comma-separated metric and group names, in
  // order, duplicates dropped. An unknown name is InvalidArgument naming it
  // and listing every valid metric and group, on one line.
  absl::StatusOr<std::vector<const CatalogMetric*>> Resolve(
      absl::string_view spec) const;

  // Every metric and group name, comma-separated (for messages and --help).
  std::string MetricNames() const;
  std::string GroupNames() const;

  // The --metrics=list text: one line per metric (name, unit, help), its
  // perfworks names with the chips that read each and the chips it is
  // unavailable on, then one line per group with its members.
  std::string Describe() const;

 private:
  std::vector<CatalogMetric> metrics_;
  std::vector<CatalogGroup> groups_;
  std::map<std::string, std::string> chips_;
};

}  // namespace dissect

#endif  // DISSECT_PROBES_METRIC_CATALOG_H_
