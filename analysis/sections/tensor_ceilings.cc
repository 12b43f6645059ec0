// The tensor section's ceilings block: how the ceilings are computed, the
// rate table, the product's published figures with their sources, and the
// SM clocks measured during the runs.

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "analysis/format/format.h"
#include "analysis/sections/tensor_internal.h"

namespace dissect::analysis::tensor_internal {
namespace {

// "1755–1830 MHz (clock64, 12 rows)" per clock source over the rows.
std::string MeasuredClocks(const std::vector<Measurement>& rows) {
  std::map<std::string, std::vector<double>> by_source;
  for (const Measurement& m : rows) {
    if (m.clock_mhz) by_source[m.clock_source].push_back(*m.clock_mhz);
  }
  std::vector<std::string> parts;
  for (auto& [source, mhz] : by_source) {
    const auto [lo, hi] = std::minmax_element(mhz.begin(), mhz.end());
    parts.push_back(absl::StrCat(absl::StrFormat("%.0f", *lo),
                                 *lo == *hi ? "" : absl::StrFormat("–%.0f", *hi), " MHz (", source,
                                 ", ", mhz.size(), mhz.size() == 1 ? " row)" : " rows)"));
  }
  return absl::StrJoin(parts, "; ");
}

// Numbers the sources a section cites, in order of first use.
class Citations {
 public:
  explicit Citations(const TensorPeaks& peaks) : peaks_(peaks) {}
  // "[n]" of source `key`.
  std::string Cite(const std::string& key) {
    const TensorSource* s = peaks_.Source(key);
    size_t index = std::find(cited_.begin(), cited_.end(), s) - cited_.begin();
    if (index == cited_.size()) cited_.push_back(s);
    return absl::StrCat("[", index + 1, "]");
  }
  // One line per cited source.
  std::string List() const {
    std::string out;
    for (size_t i = 0; i < cited_.size(); ++i) {
      if (cited_[i] == nullptr) continue;
      absl::StrAppend(&out, "[", i + 1, "] ", SourceCitation(*cited_[i]), "\n");
    }
    return out;
  }

 private:
  const TensorPeaks& peaks_;
  std::vector<const TensorSource*> cited_;
};

// The rate table: a row per input type with a per-SM rate or a published
// figure of the product.
std::string RateTable(const TensorCeilings& d, const std::string& max_clock, Citations& cite) {
  std::vector<std::vector<std::string>> table;
  for (const std::string& dtype : TensorDtypes()) {
    const TensorRate* r = d.arch->Find(dtype);
    const bool listed = d.product != nullptr && d.product->dense_tflops.count(dtype) != 0 &&
                        (d.product->DenseTflops(dtype) || r != nullptr);
    if (r == nullptr && !listed) continue;
    const TensorKind dense{dtype, false};
    std::string published = kNone;
    if (const std::optional<double> p = d.Published(dense)) {
      const std::optional<double> mhz = d.PublishedMhz(dense);
      published =
          absl::StrCat(FormatNumber(*p), mhz ? absl::StrFormat(" (%.0f MHz)", *mhz) : std::string(),
                       " ", cite.Cite(d.product->dense_tflops.at(dtype).source));
    } else if (d.product != nullptr) {
      published = "unknown";
    }
    table.push_back({dtype, r != nullptr ? FormatNumber(r->dense) : kNone,
                     r != nullptr && r->sparse > 0 ? FormatNumber(r->sparse) : kNone,
                     Num(d.AtMax(dense)), published,
                     r != nullptr ? absl::StrCat(cite.Cite(r->source), " ", r->note)
                                  : "no per-SM rate published"});
  }
  return Table({"dtype", "dense FLOP/clk/SM", "2:4 sparse FLOP/clk/SM",
                absl::StrCat("dense peak @ max boost ", max_clock, " (TFLOP/s)"),
                "published dense peak (TFLOP/s, implied clock)", "source"},
               {false, true, true, true, true, false}, table);
}

// "1410 MHz [2]" or "unknown: <reason>"; `bytes`: the value as "40 MiB".
std::string FigureText(const PublishedFigure& f, bool bytes, const std::string& unit,
                       Citations& cite) {
  if (!f.value) return absl::StrCat("unknown: ", f.unknown);
  const std::string value = (bytes ? FormatBytes(*f.value) : FormatNumber(*f.value)) + unit;
  return absl::StrCat(value, " ", cite.Cite(f.source),
                      f.note.empty() ? "" : absl::StrCat(" (", f.note, ")"));
}

// The product's note, its published device facts and the reasons of its
// unknown dense peaks.
std::string ProductLines(const TensorProduct& p, Citations& cite) {
  std::string out = absl::StrCat(p.name, ": ", p.note, " ", cite.Cite(p.source),
                                 "\n\nPublished facts of the ", p.name, ":\n");
  struct Fact {
    const char* key;
    bool bytes;
    const char* unit;
  };
  static const Fact kFacts[] = {{"sm_count", false, " SMs"},
                                {"boost_mhz", false, " MHz maximum boost clock"},
                                {"l2_bytes", true, " L2"},
                                {"dram_gbps", false, " GB/s DRAM bandwidth"}};
  for (const Fact& f : kFacts) {
    absl::StrAppend(&out, "- ", f.key, ": ", FigureText(*p.Spec(f.key), f.bytes, f.unit, cite),
                    "\n");
  }
  for (const auto& [dtype, figure] : p.dense_tflops) {
    if (!figure.value) {
      absl::StrAppend(&out, "- dense ", dtype, ": unknown: ", figure.unknown, "\n");
    }
  }
  return out;
}

}  // namespace

std::string CeilingsBlock(const TensorCeilings& d, const TensorPeaks& peaks,
                          const std::vector<Measurement>& rows) {
  const ResultFile& f = *d.file;
  std::string out;
  if (d.arch == nullptr) {
    return absl::StrCat(
        "_no architecture of configs/tensor/peaks.json has compute "
        "capability ",
        f.ContextOr("device_compute_capability", "?"), ": no % of peak_\n");
  }
  const std::string max_clock = absl::StrCat(FormatNumber(d.max_mhz), " MHz");
  absl::StrAppend(&out, "Ceilings (", d.arch->name,
                  "): SM count × per-SM rate × a clock. **@ max boost**: the maximum SM "
                  "clock the device reports (",
                  max_clock,
                  ", cudaDevAttrClockRate). **Published**: NVIDIA's dense peak of the "
                  "SKU, ",
                  d.product == nullptr
                      ? "unknown: no product of configs/tensor/peaks.json matches this "
                        "device's name and SM count"
                      : absl::StrCat(d.product->name,
                                     ", with the clock it implies (below the maximum "
                                     "boost clock)"),
                  ". **@ measured clock**: the SM clock during the run (probe rows: "
                  "FLOP/clk/SM ÷ rate, SM cycles counted by clock64; GEMM rows: the "
                  "NVML clock read around the samples). Integer rates are operations.\n\n");
  if (d.product != nullptr) {
    absl::StrAppend(&out, "Published entry: ",
                    ProductMatch(*d.arch, *d.product, f.ContextOr("device_name", "")), "\n\n");
  }
  Citations cite(peaks);
  absl::StrAppend(&out, RateTable(d, max_clock, cite), "\n");
  if (d.product != nullptr) {
    absl::StrAppend(&out, ProductLines(*d.product, cite), "\n");
  }
  absl::StrAppend(&out, cite.List());
  const std::string clocks = MeasuredClocks(rows);
  absl::StrAppend(&out,
                  "\nSM clock measured during the runs: ", clocks.empty() ? "not recorded" : clocks,
                  ". A row's SM clock is the larger of two estimates: clock64 "
                  "(measured_sm_clock_mhz of probe rows: the longest per-SM clock64 "
                  "span over the event time, a lower bound) and NVML (the median of the "
                  "reads polled while the samples ran, else the mean of the reads before "
                  "and after them; `moved`: it moved during the samples). Under "
                  "sustained tensor load the SM clock drops below the maximum boost "
                  "clock; where a row's clock is more than 2% below it, its SM clock "
                  "cell says `droop`, and its % @ max boost is lower than its % @ "
                  "measured clock by that droop, not by efficiency.\n");
  return out;
}

}  // namespace dissect::analysis::tensor_internal
