// Published reference values (configs/published/memory_hierarchy.json): what
// other people measured, with the source, to show beside our measurements.
// The format is documented in configs/README.md.

#ifndef DISSECT_ANALYSIS_SECTIONS_PUBLISHED_H_
#define DISSECT_ANALYSIS_SECTIONS_PUBLISHED_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace dissect::analysis {

// The format tag the reader understands.
inline constexpr std::string_view kPublishedFormat = "dissect.published.v1";

// Which devices an entry applies to. Every given condition must hold; an
// entry must give at least one.
struct DeviceMatch {
  // Any of these substrings of the device name (case-insensitive).
  std::vector<std::string> name_contains;
  // Exact compute capability, e.g. "9.0"; "" matches any.
  std::string compute_capability;
};

struct PublishedSource {
  std::string authors;  // "First Last, First Last, ..."
  std::string title;
  std::string venue;  // e.g. "IEEE IPDPS 2024 (arXiv:2402.13499v1)"
  int year = 0;
  std::string where;  // table or figure, e.g. "Table IV"
  std::string url;    // optional
};

struct PublishedValue {
  DeviceMatch device;
  std::string
      measured_on;       // the GPU the source measured, e.g. "NVIDIA H800 PCIe"
  std::string level;     // a memory-hierarchy level name, e.g. "L1"
  std::string quantity;  // one of PublishedQuantities()
  // A published value, or (for an acceptance range) 0 with `range_low` and/or
  // `range_high` set; exactly one of the two forms.
  double value = 0;
  std::optional<double> range_low;
  std::optional<double> range_high;
  std::string unit;  // fixed by the quantity (QuantityUnit)
  PublishedSource source;
  std::string note;  // optional
};

// Quantities an entry may give, and their units:
// latency_cycles (cycles), latency_ns (ns), capacity_bytes (B),
// line_bytes (B), sector_bytes (B), bandwidth_gbps (GB/s),
// bandwidth_bytes_per_clk_per_sm (B/clk/SM), bandwidth_bytes_per_clk (B/clk).
const std::vector<std::string>& PublishedQuantities();
// Unit of a quantity, "" if the quantity is unknown.
std::string QuantityUnit(std::string_view quantity);

// Level names an entry may use (the rows of the memory-hierarchy table):
// shared, L1, L2, L2 near, L2 far, DRAM, tex, ldg, const.
const std::vector<std::string>& HierarchyLevels();

// True for an acceptance range ("range": [low, high]) rather than a value.
bool IsRange(const PublishedValue& v);
// Whether `measured` lies in the entry's range (bounds inclusive). Only for
// ranges.
bool InRange(const PublishedValue& v, double measured);

// Parses and validates a published-values file. `path` names it in errors,
// which are one line starting with `path: `.
absl::StatusOr<std::vector<PublishedValue>> ParsePublishedJson(
    std::string_view text, std::string_view path);

// True if `match` applies to a device with this name and compute capability.
bool DeviceMatches(const DeviceMatch& match, std::string_view device_name,
                   std::string_view compute_capability);

// "Luo et al., IEEE IPDPS 2024 (arXiv:2402.13499v1), Table IV".
std::string ShortCitation(const PublishedSource& source);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_PUBLISHED_H_
