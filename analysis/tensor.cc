// Tensor-core section of the report; see tensor.h.

#include "analysis/tensor.h"

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
#include "analysis/format.h"

namespace dissect::analysis {
namespace {

constexpr char kNone[] = "—";

// GEMM classes by fraction of peak: good, bad, below that ugly.
constexpr double kGood = 0.6;
constexpr double kBad = 0.25;

absl::string_view Sv(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

// A markdown table without padding; `right` marks right-aligned columns.
std::string Table(const std::vector<std::string>& header,
                  const std::vector<bool>& right,
                  const std::vector<std::vector<std::string>>& rows) {
  std::string out = absl::StrCat("| ", absl::StrJoin(header, " | "), " |\n|");
  for (size_t i = 0; i < header.size(); ++i)
    out += right[i] ? " ---: |" : " --- |";
  out += "\n";
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    for (const std::string& c : row)
      cells.push_back(absl::StrReplaceAll(c, {{"|", "\\|"}}));
    absl::StrAppend(&out, "| ", absl::StrJoin(cells, " | "), " |\n");
  }
  return out;
}

std::string Percent(std::optional<double> fraction) {
  return fraction ? FormatPercent(*fraction) : kNone;
}

std::string Num(std::optional<double> v) {
  return v ? FormatNumber(*v) : kNone;
}

// The SM clock below which a row says that the clock drooped: 2% under the
// maximum boost clock (NVML reads in steps of about 15 MHz).
constexpr double kDroop = 0.98;

// One measured point of a tensor experiment.
struct Measurement {
  const ResultFile* file = nullptr;
  const Row* row = nullptr;
  std::string experiment;
  std::string what;  // the axis values other than mode and data
  TensorKind kind;
  std::string dtype_value;  // GEMM: the dtype axis value (fp8_fast_accum)
  std::string mode;         // latency / throughput ("throughput" for GEMM)
  std::string data;         // random / zeros
  std::string cache;        // GEMM: hot / cold ("hot" without the axis)
  bool emulated = false;    // counter `emulated` is 1
  std::optional<double> cycles;
  std::optional<double> per_clk_sm;
  std::optional<double> tflops;
  std::optional<double> gbps;
  std::optional<double>
      tensor_active;                // a cupti/ counter naming the tensor pipe
  std::optional<GemmShape> shape;   // GEMM rows
  std::optional<double> clock_mhz;  // the SM clock measured during the run
  std::string clock_source;         // "clock64" or "NVML"
};

bool IsTensorExperiment(const std::string& e) {
  return e == "mma_sync" || e == "wgmma" || e == "cublaslt_gemm";
}

std::string DeviceKey(const ResultFile& f) {
  return absl::StrCat(f.ContextOr("device_name", ""), "\n",
                      f.ContextOr("device_compute_capability", ""), "\n",
                      f.ContextOr("device_sm_count", ""));
}

std::optional<Measurement> Measure(const ResultFile& file, const Row& row) {
  if (row.error) return std::nullopt;
  Measurement m;
  m.file = &file;
  m.row = &row;
  m.experiment = file.experiment;
  std::vector<std::string> what;
  std::optional<TensorKind> kind;
  for (const auto& [axis, value] : row.axes) {
    if (axis == "mode") {
      m.mode = value;
    } else if (axis == "data") {
      m.data = value;
    } else if (axis == "cache") {
      m.cache = value;
    } else {
      what.push_back(axis == "form" || axis == "dtype" || axis == "shape"
                         ? value
                         : absl::StrCat(axis, "=", value));
      if (axis == "form" || axis == "dtype") kind = KindOf(value);
      if (axis == "dtype") m.dtype_value = value;
      if (axis == "shape") m.shape = ParseGemmShape(value);
    }
  }
  if (!kind) return std::nullopt;
  m.kind = *kind;
  m.what = absl::StrJoin(what, " ");
  if (m.mode.empty()) m.mode = "throughput";
  if (m.data.empty()) m.data = "random";
  if (m.cache.empty()) m.cache = "hot";
  for (const auto& [name, value] : row.counters) {
    if (absl::StartsWith(name, "cycles_per_") &&
        !absl::StrContains(name, ".")) {
      m.cycles = value;
    }
    if (absl::StartsWith(name, "cupti/") && absl::StrContains(name, "tensor") &&
        !absl::StrContains(name.substr(6), ".")) {
      m.tensor_active = value;
    }
  }
  m.emulated = row.Counter("emulated").value_or(0) == 1;
  m.per_clk_sm = row.Counter("flops_per_clk_per_sm");
  m.tflops = row.Counter("tflops");
  m.gbps = row.Counter("gbps");
  // measured_sm_clock_mhz is a lower bound (its event time also holds the
  // launch overhead): the larger of it and NVML's reading is the better
  // estimate.
  const std::optional<double> c64 = row.Counter("measured_sm_clock_mhz");
  const std::optional<double> nvml = RowSmClockMhz(row);
  if (c64 && *c64 > 0 && (!nvml || *c64 >= *nvml)) {
    m.clock_mhz = c64;
    m.clock_source = "clock64";
  } else if (nvml && *nvml > 0) {
    m.clock_mhz = nvml;
    m.clock_source = "NVML";
  }
  return m;
}

double ContextNumber(const ResultFile& f, const char* key) {
  double v = 0;
  return absl::SimpleAtod(f.ContextOr(key, ""), &v) ? v : 0;
}

double RateOf(const TensorArchitecture* arch, const TensorKind& kind) {
  if (arch == nullptr) return 0;
  const TensorRate* r = arch->Find(kind.dtype);
  if (r == nullptr) return 0;
  return kind.sparse ? r->sparse : r->dense;
}

std::string KindName(const TensorKind& k) {
  return k.sparse ? absl::StrCat(k.dtype, " 2:4 sparse") : k.dtype;
}

}  // namespace

std::optional<double> TensorCeilings::AtClock(const TensorKind& kind, double mhz) const {
  const double rate = RateOf(arch, kind);
  if (sms <= 0 || mhz <= 0 || rate <= 0) return std::nullopt;
  return sms * mhz * 1e6 * rate / 1e12;
}

std::optional<double> TensorCeilings::AtMax(const TensorKind& kind) const {
  return AtClock(kind, max_mhz);
}

std::optional<double> TensorCeilings::Published(const TensorKind& kind) const {
  if (product == nullptr || arch == nullptr) return std::nullopt;
  const std::optional<double> dense = product->DenseTflops(kind.dtype);
  if (!dense || !kind.sparse) return dense;
  const TensorRate* r = arch->Find(kind.dtype);
  if (r == nullptr || r->sparse <= 0) return std::nullopt;
  return *dense * r->sparse / r->dense;
}

std::optional<double> TensorCeilings::PublishedMhz(const TensorKind& kind) const {
  const std::optional<double> p = Published(kind);
  const std::optional<double> at_one_mhz = AtClock(kind, 1);
  if (!p || !at_one_mhz) return std::nullopt;
  return *p / *at_one_mhz;
}

std::optional<double> TensorCeilings::Basis(const TensorKind& kind) const {
  const std::optional<double> p = Published(kind);
  return p ? p : AtMax(kind);
}

TensorCeilings CeilingsOf(const ResultFile& file, const TensorPeaks& peaks) {
  TensorCeilings ceilings;
  ceilings.file = &file;
  ceilings.arch = peaks.ForComputeCapability(file.ContextOr("device_compute_capability", ""));
  ceilings.sms = ContextNumber(file, "device_sm_count");
  ceilings.max_mhz = ContextNumber(file, "device_sm_clock_max_khz") / 1e3;
  if (ceilings.arch != nullptr) {
    ceilings.product = ceilings.arch->ProductFor(file.ContextOr("device_name", ""),
                                                 static_cast<int>(ceilings.sms));
  }
  return ceilings;
}

namespace {

// % of the three ceilings and of the best of one throughput measurement;
// all empty for latency and emulated rows.
struct Percents {
  std::optional<double> at_measured, at_max, published, best;
};

Percents PercentsOf(const Measurement& m, const TensorCeilings& d,
                    const std::map<std::string, double>& best) {
  Percents p;
  if (m.mode != "throughput" || m.emulated) return p;
  auto of = [&](std::optional<double> ceiling) -> std::optional<double> {
    if (!ceiling || *ceiling <= 0 || !m.tflops) return std::nullopt;
    return *m.tflops / *ceiling;
  };
  // Probe rows count SM cycles (clock64): FLOP/clk/SM over the rate is the
  // fraction at whatever clock the SMs ran.
  const double rate = RateOf(d.arch, m.kind);
  if (m.per_clk_sm && rate > 0) {
    p.at_measured = *m.per_clk_sm / rate;
  } else if (m.clock_mhz) {
    p.at_measured = of(d.AtClock(m.kind, *m.clock_mhz));
  }
  p.at_max = of(d.AtMax(m.kind));
  p.published = of(d.Published(m.kind));
  const auto b = best.find(KindName(m.kind));
  if (b != best.end()) p.best = of(b->second);
  return p;
}

// "1755 clock64", with the droop below the maximum boost clock on
// throughput rows (those with a %) and "moved" where the NVML clock polled
// during the samples moved (clock_moved).
std::string ClockCell(const Measurement& m, const TensorCeilings& d) {
  if (!m.clock_mhz) return kNone;
  std::vector<std::string> notes;
  if (m.mode == "throughput" && d.max_mhz > 0 &&
      *m.clock_mhz < kDroop * d.max_mhz) {
    notes.push_back(
        absl::StrCat("droop −", FormatPercent(1 - *m.clock_mhz / d.max_mhz)));
  }
  if (m.row->Counter("clock_moved").value_or(0) == 1) notes.push_back("moved");
  return absl::StrCat(
      absl::StrFormat("%.0f", *m.clock_mhz), " ", m.clock_source,
      notes.empty() ? "" : absl::StrCat(" (", absl::StrJoin(notes, "; "), ")"));
}

// Bytes per element of A/B and of C/D for a GEMM dtype.
std::pair<double, double> GemmElementBytes(const std::string& dtype) {
  if (dtype == "fp8") return {1, 2};
  if (dtype == "int8") return {1, 4};
  if (dtype == "fp16" || dtype == "bf16") return {2, 2};
  return {4, 4};
}

// Shape-based explanations of a GEMM row that misses its ceiling. A hot row
// whose A, B and D fit in L2 reads them from L2: the DRAM ridge does not
// apply; one that does not fit reads at least the part beyond the L2's
// capacity from DRAM.
std::string GemmReasons(const Measurement& m, double peak_tflops,
                        const ResultFile& f, int sms) {
  if (!m.shape) return "";
  const GemmShape& s = *m.shape;
  const double dram_gbps = ContextNumber(f, "device_dram_peak_gbps");
  const double l2 = ContextNumber(f, "device_l2_bytes");
  std::vector<std::string> reasons;
  auto misaligned = [](int64_t d) { return d >= 16 && d % 16 != 0; };
  if (misaligned(s.m) || misaligned(s.n) || misaligned(s.k)) {
    reasons.push_back("a dimension is not a multiple of 16 (misaligned rows)");
  }
  const auto [in_bytes, out_bytes] = GemmElementBytes(m.kind.dtype);
  const double flops = 2.0 * s.m * s.n * s.k;
  const double bytes = in_bytes * (double(s.m) * s.k + double(s.k) * s.n) +
                       out_bytes * double(s.m) * s.n;
  const bool hot = m.cache != "cold";
  const double ridge = dram_gbps > 0 && peak_tflops > 0
                           ? peak_tflops * 1e12 / (dram_gbps * 1e9)
                           : 0;
  if (hot && l2 > 0 && bytes <= l2) {
    reasons.push_back(absl::StrCat(
        "hot: A, B and D (", FormatBytes(bytes), ") fit in the ",
        FormatBytes(l2), " L2, so a hot run reads them from L2, not DRAM",
        ridge > 0
            ? absl::StrCat(", and DRAM's ridge point (", FormatNumber(ridge),
                           " FLOP/B; this shape: ", FormatNumber(flops / bytes),
                           " FLOP/B) applies to its cold run only")
            : ""));
    if (m.gbps && dram_gbps > 0 && *m.gbps > dram_gbps) {
      reasons.push_back(absl::StrCat(FormatNumber(*m.gbps),
                                     " GB/s of A, B and D: above the DRAM peak "
                                     "of ",
                                     FormatNumber(dram_gbps), " GB/s"));
    }
  } else if (ridge > 0) {
    // Cold: every byte from DRAM; hot: at least what does not fit in L2.
    const double dram_bytes = hot && l2 > 0 ? bytes - l2 : bytes;
    const double intensity = flops / dram_bytes;
    if (intensity < ridge) {
      reasons.push_back(absl::StrCat(
          "memory-bound: ", FormatNumber(intensity), " FLOP per DRAM byte",
          hot && l2 > 0 ? absl::StrCat(" (hot: the ", FormatBytes(dram_bytes),
                                       " of ", FormatBytes(bytes),
                                       " beyond the ", FormatBytes(l2), " L2)")
                        : "",
          ", below the ridge point of ", FormatNumber(ridge), " FLOP/B"));
    }
  }
  const int64_t tiles = ((s.m + 127) / 128) * ((s.n + 127) / 128);
  if (sms > 0 && tiles < sms) {
    reasons.push_back(absl::StrCat(tiles, " output tiles of 128×128 for ", sms,
                                   " SMs: under one wave"));
  }
  return absl::StrJoin(reasons, "; ");
}

// "1755–1830 MHz (clock64, 12 rows)" per clock source over the rows.
std::string MeasuredClocks(const std::vector<Measurement>& rows) {
  std::map<std::string, std::vector<double>> by_source;
  for (const Measurement& m : rows) {
    if (m.clock_mhz) by_source[m.clock_source].push_back(*m.clock_mhz);
  }
  std::vector<std::string> parts;
  for (auto& [source, mhz] : by_source) {
    const auto [lo, hi] = std::minmax_element(mhz.begin(), mhz.end());
    parts.push_back(absl::StrCat(
        absl::StrFormat("%.0f", *lo),
        *lo == *hi ? "" : absl::StrFormat("–%.0f", *hi), " MHz (", source, ", ",
        mhz.size(), mhz.size() == 1 ? " row)" : " rows)"));
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
std::string RateTable(const TensorCeilings& d, const std::string& max_clock,
                      Citations& cite) {
  std::vector<std::vector<std::string>> table;
  for (const std::string& dtype : TensorDtypes()) {
    const TensorRate* r = d.arch->Find(dtype);
    const bool listed = d.product != nullptr &&
                        d.product->dense_tflops.count(dtype) != 0 &&
                        (d.product->DenseTflops(dtype) || r != nullptr);
    if (r == nullptr && !listed) continue;
    const TensorKind dense{dtype, false};
    std::string published = kNone;
    if (const std::optional<double> p = d.Published(dense)) {
      const std::optional<double> mhz = d.PublishedMhz(dense);
      published = absl::StrCat(
          FormatNumber(*p),
          mhz ? absl::StrFormat(" (%.0f MHz)", *mhz) : std::string(), " ",
          cite.Cite(d.product->dense_tflops.at(dtype).source));
    } else if (d.product != nullptr) {
      published = "unknown";
    }
    table.push_back(
        {dtype, r != nullptr ? FormatNumber(r->dense) : kNone,
         r != nullptr && r->sparse > 0 ? FormatNumber(r->sparse) : kNone,
         Num(d.AtMax(dense)), published,
         r != nullptr ? absl::StrCat(cite.Cite(r->source), " ", r->note)
                      : "no per-SM rate published"});
  }
  return Table(
      {"dtype", "dense FLOP/clk/SM", "2:4 sparse FLOP/clk/SM",
       absl::StrCat("dense peak @ max boost ", max_clock, " (TFLOP/s)"),
       "published dense peak (TFLOP/s, implied clock)", "source"},
      {false, true, true, true, true, false}, table);
}

// "1410 MHz [2]" or "unknown: <reason>"; `bytes`: the value as "40 MiB".
std::string FigureText(const PublishedFigure& f, bool bytes,
                       const std::string& unit, Citations& cite) {
  if (!f.value) return absl::StrCat("unknown: ", f.unknown);
  const std::string value =
      (bytes ? FormatBytes(*f.value) : FormatNumber(*f.value)) + unit;
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
    absl::StrAppend(&out, "- ", f.key, ": ",
                    FigureText(*p.Spec(f.key), f.bytes, f.unit, cite), "\n");
  }
  for (const auto& [dtype, figure] : p.dense_tflops) {
    if (!figure.value) {
      absl::StrAppend(&out, "- dense ", dtype, ": unknown: ", figure.unknown,
                      "\n");
    }
  }
  return out;
}

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
  absl::StrAppend(
      &out, "Ceilings (", d.arch->name,
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
                    ProductMatch(*d.arch, *d.product,
                                 f.ContextOr("device_name", "")),
                    "\n\n");
  }
  Citations cite(peaks);
  absl::StrAppend(&out, RateTable(d, max_clock, cite), "\n");
  if (d.product != nullptr) {
    absl::StrAppend(&out, ProductLines(*d.product, cite), "\n");
  }
  absl::StrAppend(&out, cite.List());
  const std::string clocks = MeasuredClocks(rows);
  absl::StrAppend(
      &out, "\nSM clock measured during the runs: ",
      clocks.empty() ? "not recorded" : clocks,
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

constexpr char kEmulatedNote[] =
    "emulated: ptxas expands this form into other instructions on this GPU; "
    "no % and not a best";

std::string ProbeBlock(const std::vector<const Measurement*>& probes, const TensorCeilings& d,
                       const std::map<std::string, double>& best) {
  std::vector<std::vector<std::string>> rows;
  for (const Measurement* m : probes) {
    const Percents p = PercentsOf(*m, d, best);
    rows.push_back({m->experiment, m->what, KindName(m->kind), m->mode, m->data,
                    Num(m->cycles), Num(m->per_clk_sm), Num(m->tflops),
                    ClockCell(*m, d), Percent(p.at_measured), Percent(p.at_max),
                    Percent(p.published), Percent(p.best),
                    m->emulated ? kEmulatedNote : ""});
  }
  return absl::StrCat(
      "### instruction probes\n\nLatency rows: cycles between dependent "
      "instructions of one warp (warpgroup). Throughput rows: SM cycles per "
      "instruction with every SM full; % @ measured clock = FLOP/clk/SM over "
      "the per-SM rate; % @ max boost and % of published = TFLOP/s (all the "
      "launch's FLOP over its event time) over those ceilings; % of best = "
      "TFLOP/s over the best throughput measured for the same type with "
      "random data (any experiment, emulated rows excluded). Integer forms "
      "count operations (TOP/s).\n\n",
      Table(
          {"experiment", "instruction", "type", "mode", "data", "cycles/instr",
           "FLOP/clk/SM", "TFLOP/s", "SM clock (MHz)", "% @ measured clock",
           "% @ max boost", "% of published", "% of best", "note"},
          {false, false, false, false, false, true, true, true, true, true,
           true, true, true, false},
          rows));
}

std::string ShapeName(const GemmShape& s) {
  return absl::StrCat(s.m, "x", s.n, "x", s.k);
}

std::string GemmBlock(const TensorCeilings& d, const std::vector<const Measurement*>& gemm,
                      const std::map<std::string, double>& best) {
  const ResultFile& f = *d.file;
  const int sms = static_cast<int>(d.sms);
  // The grading basis of a row and whether it is the published peak.
  auto of_basis = [&](const Measurement& m) -> std::optional<double> {
    const std::optional<double> basis = d.Basis(m.kind);
    if (!basis || !m.tflops || m.emulated) return std::nullopt;
    return *m.tflops / *basis;
  };
  // Marks a cell graded on the max boost clock where the product is known.
  auto fallback = [&](const Measurement& m) {
    return d.product != nullptr && !d.Published(m.kind) ? "*" : "";
  };
  const std::string basis_text =
      d.product == nullptr
          ? "the dense peak @ max boost (no published peak for this device)"
          : absl::StrCat("the ", d.product->name,
                         "'s published dense peak (`*`: unknown, the peak @ "
                         "max boost instead)");
  std::string out = "### cuBLASLt GEMM\n\n";
  // Heatmap: shapes (in order of appearance) × dtype values, hot, random data.
  std::vector<std::string> shapes, dtypes;
  std::map<std::pair<std::string, std::string>, const Measurement*> cell;
  // Cold rows by (dtype value, shape, data), shown beside the hot ones.
  std::map<std::tuple<std::string, std::string, std::string>,
           const Measurement*>
      cold;
  for (const Measurement* m : gemm) {
    if (!m->shape) continue;
    const std::string shape = ShapeName(*m->shape);
    if (m->cache == "cold") {
      cold[{m->dtype_value, shape, m->data}] = m;
      continue;
    }
    if (m->data != "random") continue;
    if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end())
      shapes.push_back(shape);
    if (std::find(dtypes.begin(), dtypes.end(), m->dtype_value) ==
        dtypes.end()) {
      dtypes.push_back(m->dtype_value);
    }
    cell[{shape, m->dtype_value}] = m;
  }
  if (!shapes.empty()) {
    absl::StrAppend(
        &out, "Utilisation heatmap: % of ", basis_text,
        " (hot, random data; `·` skipped or not run). Shade as the classes "
        "below: █ good (≥ 60%), ▒ bad (25–60%), ░ ugly (< 25%). "
        "fp8_fast_accum is fp8 with CUBLASLT_MATMUL_DESC_FAST_ACCUM set; fp8 "
        "leaves it unset.\n\n");
    std::vector<std::string> header = {"M×N×K"};
    std::vector<bool> right = {false};
    for (const std::string& dt : dtypes) {
      header.push_back(dt);
      right.push_back(true);
    }
    std::vector<std::vector<std::string>> rows;
    for (const std::string& s : shapes) {
      std::vector<std::string> r = {s};
      for (const std::string& dt : dtypes) {
        const auto it = cell.find({s, dt});
        const std::optional<double> p =
            it == cell.end() ? std::nullopt : of_basis(*it->second);
        if (!p) {
          r.push_back("·");
          continue;
        }
        const char* shade = *p >= kGood ? "█" : *p >= kBad ? "▒" : "░";
        r.push_back(
            absl::StrCat(shade, " ", FormatPercent(*p), fallback(*it->second)));
      }
      rows.push_back(std::move(r));
    }
    absl::StrAppend(&out, Table(header, right, rows), "\n");
  }
  // Good / bad / ugly, hot rows.
  struct Graded {
    int grade;  // 0 good, 1 bad, 2 ugly
    const Measurement* m;
    double pct;
  };
  std::vector<Graded> graded;
  for (const Measurement* m : gemm) {
    const std::optional<double> p = of_basis(*m);
    if (m->data != "random" || m->cache == "cold" || !p || !m->shape) continue;
    graded.push_back({*p >= kGood ? 0 : *p >= kBad ? 1 : 2, m, *p});
  }
  std::stable_sort(
      graded.begin(), graded.end(), [](const Graded& a, const Graded& b) {
        return a.grade != b.grade ? a.grade < b.grade : a.pct > b.pct;
      });
  if (!graded.empty()) {
    absl::StrAppend(
        &out, "Good (≥ 60% of ", basis_text,
        "), bad (25–60%) and ugly (< 25%: the tensor cores mostly idle), hot "
        "rows; cold TFLOP/s is the same point with L2 flushed before each "
        "sample, where it was run. Reasons are read off the shape: alignment, "
        "arithmetic intensity against the ridge point (peak / "
        "device_dram_peak_gbps) counting only the DRAM bytes a hot run cannot "
        "keep in L2 (device_l2_bytes), and 128×128 output tiles against the "
        "SM count. GB/s is A, B and D once each over the time. Tensor pipe "
        "active is the cupti/ counter of the row when it was run with a "
        "tensor-pipe metric.\n\n");
    const char* kGrades[] = {"good", "bad", "ugly"};
    std::vector<std::vector<std::string>> rows;
    for (const Graded& g : graded) {
      const Measurement& m = *g.m;
      const Percents p = PercentsOf(m, d, best);
      const auto c = cold.find({m.dtype_value, ShapeName(*m.shape), m.data});
      rows.push_back(
          {kGrades[g.grade], m.dtype_value, ShapeName(*m.shape), Num(m.tflops),
           c == cold.end() ? kNone : Num(c->second->tflops), Num(m.gbps),
           ClockCell(m, d), Percent(p.at_measured), Percent(p.at_max),
           Percent(p.published), Percent(p.best),
           m.tensor_active ? FormatNumber(*m.tensor_active) : kNone,
           g.grade == 0 ? ""
                        : GemmReasons(m, d.Basis(m.kind).value_or(0), f, sms)});
    }
    absl::StrAppend(
        &out,
        Table({"class", "dtype", "shape", "TFLOP/s", "cold TFLOP/s", "GB/s",
               "SM clock (MHz)", "% @ measured clock", "% @ max boost",
               "% of published", "% of best", "tensor pipe active", "why"},
              {false, false, false, true, true, true, true, true, true, true,
               true, true, false},
              rows));
  }
  return out;
}

}  // namespace

std::optional<TensorKind> KindOf(std::string_view value) {
  TensorKind kind;
  absl::string_view v = Sv(value);
  if (absl::ConsumePrefix(&v, "sp_")) kind.sparse = true;
  const std::string input(v.substr(0, v.find('_')));
  static const std::pair<const char*, const char*> kInputs[] = {
      {"f16", "fp16"}, {"bf16", "bf16"}, {"tf32", "tf32"}, {"s8", "int8"},
      {"e4m3", "fp8"}, {"e5m2", "fp8"},  {"fp32", "fp32"}, {"fp16", "fp16"},
      {"fp8", "fp8"},  {"int8", "int8"},
  };
  for (const auto& [name, dtype] : kInputs) {
    if (input == name) {
      kind.dtype = dtype;
      return kind;
    }
  }
  return std::nullopt;
}

std::optional<GemmShape> ParseGemmShape(std::string_view shape) {
  std::vector<std::string> parts = absl::StrSplit(Sv(shape), 'x');
  GemmShape s;
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &s.m) ||
      !absl::SimpleAtoi(parts[1], &s.n) || !absl::SimpleAtoi(parts[2], &s.k) ||
      s.m <= 0 || s.n <= 0 || s.k <= 0) {
    return std::nullopt;
  }
  return s;
}

std::string RenderTensorSections(const std::vector<ResultFile>& files,
                                 const TensorPeaks& peaks) {
  struct Device {
    const ResultFile* first = nullptr;
    std::vector<Measurement> rows;
  };
  std::vector<std::string> order;
  std::map<std::string, Device> devices;
  for (const ResultFile& f : files) {
    if (!IsTensorExperiment(f.experiment)) continue;
    Device& d = devices[DeviceKey(f)];
    if (d.first == nullptr) {
      d.first = &f;
      order.push_back(DeviceKey(f));
    }
    for (const Row& row : f.rows) {
      if (std::optional<Measurement> m = Measure(f, row)) d.rows.push_back(*m);
    }
  }
  std::vector<std::string> sections;
  for (const std::string& key : order) {
    const Device& d = devices[key];
    const ResultFile& f = *d.first;
    const TensorCeilings ceilings = CeilingsOf(f, peaks);
    // The best TFLOP/s per type among throughput rows with random data;
    // emulated rows never count.
    std::map<std::string, double> best;
    for (const Measurement& m : d.rows) {
      if (m.mode != "throughput" || m.data != "random" || !m.tflops ||
          m.emulated) {
        continue;
      }
      double& b = best[KindName(m.kind)];
      b = std::max(b, *m.tflops);
    }
    std::vector<const Measurement*> probes, gemm;
    for (const Measurement& m : d.rows) {
      (m.experiment == "cublaslt_gemm" ? gemm : probes).push_back(&m);
    }
    std::string out =
        absl::StrCat("## tensor cores: ", f.ContextOr("device_name", "?"),
                     "\n\n", f.ContextOr("device_name", "?"), " · cc ",
                     f.ContextOr("device_compute_capability", "?"), " · ",
                     f.ContextOr("device_sm_count", "?"), " SMs\n\n",
                     CeilingsBlock(ceilings, peaks, d.rows));
    if (!probes.empty())
      absl::StrAppend(&out, "\n", ProbeBlock(probes, ceilings, best));
    if (!gemm.empty())
      absl::StrAppend(&out, "\n", GemmBlock(ceilings, gemm, best));
    sections.push_back(std::move(out));
  }
  return absl::StrJoin(sections, "\n");
}

}  // namespace dissect::analysis
