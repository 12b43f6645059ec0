// The latency curves the memory-hierarchy table and the latency figure read
// (see memory_hierarchy.h): building them from result rows, and choosing the
// one a path is read from.

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/format/format.h"
#include "analysis/sections/memory_hierarchy.h"

namespace dissect::analysis {
namespace {

constexpr char kMemoryLatency[] = "memory_latency";
constexpr char kSharedLatency[] = "shared_latency";
// The context key of the L1/shared carveout the kernels asked for.
constexpr char kL1Carveout[] = "l1_carveout";

// A counter that is finite and > 0.
std::optional<double> PositiveCounter(const Row& row, std::string_view counter) {
  const std::optional<double> value = row.Counter(counter);
  if (!value || !std::isfinite(*value) || *value <= 0) return std::nullopt;
  return value;
}

}  // namespace

std::string LatencyCurve::Describe() const {
  std::string text = absl::StrCat(experiment, " ", path);
  if (!order.empty()) absl::StrAppend(&text, ", ", order, " order");
  absl::StrAppend(&text, ", stride ", FormatBytes(stride));
  if (!l1_carveout.empty()) absl::StrAppend(&text, ", l1_carveout ", l1_carveout);
  return text;
}

std::vector<LatencyCurve> BuildLatencyCurves(const std::vector<const ResultFile*>& files) {
  struct Samples {
    std::vector<double> cycles;
    std::vector<double> ns;
  };
  // Rows of different L1/shared carveouts are never one curve: the L1
  // capacity depends on it.
  using Key = std::tuple<std::string, std::string, std::string, double, std::string>;
  std::map<Key, std::map<double, Samples>> grouped;
  for (const ResultFile* file : files) {
    if (file->experiment != kMemoryLatency && file->experiment != kSharedLatency) {
      continue;
    }
    for (const Row& row : file->rows) {
      if (row.error) continue;
      const std::optional<double> cycles = PositiveCounter(row, "cycles_per_load");
      const std::optional<double> footprint = AxisNumber(row, "footprint_bytes");
      const std::optional<double> stride = AxisNumber(row, "stride_bytes");
      if (!cycles || !footprint || !stride || *footprint <= 0) continue;
      const Key key{file->experiment, row.Axis("path").value_or("shared"),
                    row.Axis("order").value_or(""), *stride,
                    file->ContextOr(kL1Carveout, "")};
      Samples& samples = grouped[key][*footprint];
      samples.cycles.push_back(*cycles);
      if (const std::optional<double> ns = PositiveCounter(row, "ns_per_load")) {
        samples.ns.push_back(*ns);
      }
    }
  }
  std::vector<LatencyCurve> curves;
  for (const auto& [key, by_footprint] : grouped) {
    LatencyCurve curve;
    std::tie(curve.experiment, curve.path, curve.order, curve.stride, curve.l1_carveout) = key;
    for (const auto& [footprint, samples] : by_footprint) {
      curve.points.push_back({footprint, Median(samples.cycles)});
      curve.ns.push_back(samples.ns.empty() ? std::nullopt
                                            : std::optional<double>(Median(samples.ns)));
    }
    curves.push_back(std::move(curve));
  }
  return curves;
}

const LatencyCurve* ChooseLatencyCurve(const std::vector<LatencyCurve>& curves,
                                       std::string_view path) {
  const LatencyCurve* best = nullptr;
  auto rank = [](const LatencyCurve& c) {
    return std::make_tuple(c.experiment != kMemoryLatency, c.order != "random", c.stride < 32,
                           c.stride >= 32 ? c.stride : -c.stride, c.l1_carveout.empty());
  };
  for (const LatencyCurve& c : curves) {
    if (c.path != path || c.points.size() < 2) continue;
    if (best == nullptr || rank(c) < rank(*best)) best = &c;
  }
  return best;
}

const std::vector<std::string>& LatencyPaths() {
  static const auto* const kPaths =
      new std::vector<std::string>{"shared", "global_ca", "global_cg", "ldg", "tex", "const"};
  return *kPaths;
}

}  // namespace dissect::analysis
