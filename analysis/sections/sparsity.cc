// The activation-sparsity section of the report (see sparsity.h).

#include "analysis/sections/sparsity.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "analysis/sections/section_util.h"

namespace dissect::analysis {
namespace {

constexpr char kActivationSparsity[] = "activation_sparsity";
constexpr char kSparsitySpeed[] = "sparsity_speed";
constexpr char kSparse24[] = "sparse24_gemm";
constexpr char kCompressible[] = "compressible_bandwidth";

// The layer names of a `layers=<name> <name> ...` note, stopping at a word
// that is another note (`key=value`) where the notes are not "; "-joined.
std::vector<std::string> LayerNames(const std::string& label) {
  std::vector<std::string> names;
  const std::optional<std::string> note = LabelNote(label, "layers");
  if (!note) return names;
  for (absl::string_view word : absl::StrSplit(*note, ' ', absl::SkipEmpty())) {
    if (absl::StrContains(word, '=')) break;
    names.emplace_back(word);
  }
  return names;
}

// A vector entry where it is finite.
std::optional<double> Entry(const std::vector<double>& values, size_t i) {
  if (i >= values.size() || !std::isfinite(values[i])) return std::nullopt;
  return values[i];
}

ActivationPass Pass(const Row& row) {
  ActivationPass p;
  p.network = row.Axis("network").value_or("?");
  p.source = row.Axis("activation_source")
                 .value_or(LabelNote(row.label, "activation_source").value_or("?"));
  p.threshold = row.Axis("threshold").value_or("?");
  p.batch = row.Axis("batch").value_or("");
  p.note = RowNotes(row);
  if (row.error) return p;
  p.layer_count = FiniteCounter(row, "layers");
  p.mean_zero = FiniteCounter(row, "mean_zero_fraction");
  p.overall_zero = FiniteCounter(row, "overall_zero_fraction");
  const std::vector<double> zero = RowVector(row, "zero_fraction");
  const std::vector<double> warp = RowVector(row, "warp_zero_fraction");
  const std::vector<double> tile = RowVector(row, "tile_zero_fraction");
  const std::vector<double> two_four = RowVector(row, "two_four_fraction");
  const std::vector<double> dead = RowVector(row, "dead_channel_fraction");
  const std::vector<double> low = RowVector(row, "channel_min");
  const std::vector<double> median = RowVector(row, "channel_median");
  const std::vector<double> high = RowVector(row, "channel_max");
  const std::vector<double> channels = RowVector(row, "channel_sparsity");
  const std::vector<double> offsets = RowVector(row, "channel_offset");
  const std::vector<std::string> names = LayerNames(row.label);
  for (size_t l = 0; l < zero.size(); ++l) {
    LayerSparsity layer;
    layer.name = l < names.size() ? names[l] : absl::StrCat(l);
    layer.zero = Entry(zero, l);
    layer.warp_zero = Entry(warp, l);
    layer.tile_zero = Entry(tile, l);
    layer.two_four = Entry(two_four, l);
    layer.dead_channels = Entry(dead, l);
    layer.channel_min = Entry(low, l);
    layer.channel_median = Entry(median, l);
    layer.channel_max = Entry(high, l);
    if (const std::optional<double> first = Entry(offsets, l); first && *first >= 0) {
      const std::optional<double> next = Entry(offsets, l + 1);
      const size_t begin = std::min(static_cast<size_t>(*first), channels.size());
      const size_t end =
          next ? std::clamp(static_cast<size_t>(*next), begin, channels.size()) : channels.size();
      layer.channels.assign(channels.begin() + begin, channels.begin() + end);
    }
    p.layers.push_back(std::move(layer));
  }
  return p;
}

SpeedPoint Point(const Row& row) {
  SpeedPoint p;
  p.sparsity_pct = AxisNumber(row, "sparsity_pct").value_or(0);
  p.note = RowNotes(row);
  if (row.error) return p;
  p.achieved_sparsity = FiniteCounter(row, "achieved_sparsity");
  p.speedup = FiniteCounter(row, "speedup_vs_dense");
  p.speedup_min = FiniteCounter(row, "speedup_vs_dense.min");
  p.speedup_max = FiniteCounter(row, "speedup_vs_dense.max");
  p.speedup_spread = FiniteCounter(row, "speedup_vs_dense.spread");
  if (const std::optional<double> us = RowRealTimeUs(row)) p.kernel_ms = *us / 1000;
  p.end_to_end_ms = FiniteCounter(row, "end_to_end_ms");
  p.end_to_end_max_ms = FiniteCounter(row, "end_to_end_ms.max");
  p.power_w = FiniteCounter(row, "power_w");
  p.max_rel_error = FiniteCounter(row, "max_rel_error");
  p.kept_magnitude = FiniteCounter(row, "kept_magnitude_fraction");
  p.load_bound = FiniteCounter(row, "load_bound_speedup");
  return p;
}

// Curves by (shape, method, structure, batch) in first-seen order, points
// ascending by sparsity.
class CurveCollector {
 public:
  void Add(const Row& row) {
    SpeedCurve c;
    c.shape = row.Axis("shape").value_or("?");
    c.method = row.Axis("method").value_or("?");
    c.structure = row.Axis("structure").value_or("");
    c.batch = row.Axis("batch").value_or("");
    const Key key{c.shape, c.method, c.structure, c.batch};
    auto [it, added] = index_.try_emplace(key, curves_.size());
    if (added) curves_.push_back(std::move(c));
    curves_[it->second].points.push_back(Point(row));
  }

  std::vector<SpeedCurve> Finish() {
    for (SpeedCurve& c : curves_) {
      std::stable_sort(
          c.points.begin(), c.points.end(),
          [](const SpeedPoint& a, const SpeedPoint& b) { return a.sparsity_pct < b.sparsity_pct; });
    }
    return std::move(curves_);
  }

 private:
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  std::map<Key, size_t> index_;
  std::vector<SpeedCurve> curves_;
};

// compressible_bandwidth rows by (zero_pct, bytes) in first-seen order.
class CompressionCollector {
 public:
  void Add(const Row& row) {
    const std::string allocation = row.Axis("allocation").value_or("?");
    const std::pair<std::string, std::string> key{row.Axis("zero_pct").value_or("?"),
                                                  row.Axis("bytes").value_or("?")};
    auto [it, added] = index_.try_emplace(key, rows_.size());
    if (added) rows_.push_back({key.first, key.second, {}, {}, {}, {}});
    CompressionRow& r = rows_[it->second];
    if (const std::string note = RowNotes(row); !note.empty()) {
      r.notes.push_back(absl::StrCat(allocation, ": ", note));
    }
    if (row.error) return;
    const std::optional<double> gbps = FiniteCounter(row, "bandwidth_gbps");
    if (allocation == "ordinary") {
      r.ordinary_gbps = gbps;
    } else if (allocation == "compressible") {
      r.compressible_gbps = gbps;
      r.granted = FiniteCounter(row, "compression_granted");
    }
  }

  std::vector<CompressionRow> Finish() { return std::move(rows_); }

 private:
  std::map<std::pair<std::string, std::string>, size_t> index_;
  std::vector<CompressionRow> rows_;
};

// The crossover over one value per point (nullopt: not measured).
Crossover CrossoverOf(const SpeedCurve& curve,
                      const std::function<std::optional<double>(const SpeedPoint&)>& value) {
  std::vector<CrossoverPoint> points;
  for (const SpeedPoint& p : curve.points) points.push_back({p.sparsity_pct, value(p)});
  return FindCrossover(points);
}

}  // namespace

bool IsSparsityExperiment(std::string_view experiment) {
  for (const char* name : {kActivationSparsity, kSparsitySpeed, kSparse24, kCompressible}) {
    if (experiment == name) return true;
  }
  return false;
}

std::vector<SparsityDevice> BuildSparsity(const std::vector<const ResultFile*>& files) {
  struct Group {
    SparsityDevice device;
    CurveCollector speed, sparse24;
    CompressionCollector compression;
  };
  std::vector<std::string> order;
  std::map<std::string, Group> groups;
  for (const ResultFile* f : files) {
    if (!IsSparsityExperiment(f->experiment)) continue;
    const std::string key = SectionDeviceKey(*f);
    auto [it, added] = groups.try_emplace(key);
    Group& g = it->second;
    if (added) {
      order.push_back(key);
      g.device.title = SectionTitle(*f);
      g.device.device_line = SectionDeviceLine(*f);
    }
    g.device.paths.push_back(f->path);
    for (const Row& row : f->rows) {
      if (f->experiment == kActivationSparsity) {
        g.device.passes.push_back(Pass(row));
      } else if (f->experiment == kSparsitySpeed) {
        g.speed.Add(row);
      } else if (f->experiment == kSparse24) {
        g.sparse24.Add(row);
      } else {
        g.compression.Add(row);
      }
    }
  }
  std::vector<SparsityDevice> out;
  for (const std::string& key : order) {
    Group& g = groups[key];
    g.device.speed = g.speed.Finish();
    g.device.sparse24 = g.sparse24.Finish();
    g.device.compression = g.compression.Finish();
    out.push_back(std::move(g.device));
  }
  return out;
}

Crossover FindCrossover(const std::vector<CrossoverPoint>& points) {
  Crossover c;
  int& last_loss = c.last_loss;
  int last_measured = -1;
  for (size_t i = 0; i < points.size(); ++i) {
    if (!points[i].speedup) continue;
    last_measured = static_cast<int>(i);
    c.max_pct = points[i].sparsity_pct;
    if (*points[i].speedup <= 1) last_loss = static_cast<int>(i);
  }
  if (last_measured < 0 || last_loss == last_measured) return c;
  int first_win = last_loss + 1;
  while (!points[first_win].speedup) ++first_win;
  c.first_win = first_win;
  const CrossoverPoint& win = points[first_win];
  if (last_loss < 0) {
    c.sparsity_pct = win.sparsity_pct;
    return c;
  }
  const CrossoverPoint& loss = points[last_loss];
  const double t = (1 - *loss.speedup) / (*win.speedup - *loss.speedup);
  c.sparsity_pct = loss.sparsity_pct + t * (win.sparsity_pct - loss.sparsity_pct);
  c.interpolated = true;
  return c;
}

Crossover NoiseCrossover(const SpeedCurve& curve) {
  return CrossoverOf(curve, [](const SpeedPoint& p) { return p.speedup_min; });
}

Crossover NominalCrossover(const SpeedCurve& curve) {
  return CrossoverOf(curve, [](const SpeedPoint& p) { return p.speedup; });
}

Crossover EndToEndCrossover(const SpeedCurve& curve, double dense_ms) {
  return CrossoverOf(curve, [dense_ms](const SpeedPoint& p) -> std::optional<double> {
    const std::optional<double> ms = p.end_to_end_max_ms ? p.end_to_end_max_ms : p.end_to_end_ms;
    if (!ms || *ms <= 0) return std::nullopt;
    return dense_ms / *ms;
  });
}

std::vector<int> SelectedLayers(int layers, int count) {
  std::vector<int> out;
  if (layers <= 0 || count <= 0) return out;
  if (layers <= count) {
    for (int l = 0; l < layers; ++l) out.push_back(l);
    return out;
  }
  if (count == 1) return {0};
  for (int i = 0; i < count; ++i) {
    const int l = static_cast<int>(std::lround(i * (layers - 1.0) / (count - 1)));
    if (out.empty() || out.back() != l) out.push_back(l);
  }
  return out;
}
}  // namespace dissect::analysis
