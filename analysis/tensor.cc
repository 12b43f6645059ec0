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
#include "nlohmann/json.hpp"

namespace dissect::analysis {
namespace {

using Json = nlohmann::json;

constexpr char kNone[] = "—";

// GEMM classes by fraction of peak: good, bad, below that ugly.
constexpr double kGood = 0.6;
constexpr double kBad = 0.25;

absl::string_view Sv(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

absl::Status Error(std::string_view path, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(Sv(path), ": ", what));
}

// A required non-empty string member.
absl::StatusOr<std::string> String(const Json& j, const char* key,
                                   std::string_view path,
                                   const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string() || it->get<std::string>().empty()) {
    return Error(
        path, absl::StrCat(where, " needs a non-empty string \"", key, "\""));
  }
  return it->get<std::string>();
}

absl::StatusOr<double> Number(const Json& j, const char* key,
                              std::string_view path, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number() || it->get<double>() < 0) {
    return Error(path,
                 absl::StrCat(where, " needs a number \"", key, "\" >= 0"));
  }
  return it->get<double>();
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
  const TensorRate* r = arch->Find(kind.dtype);
  if (!dense || r == nullptr) return std::nullopt;
  if (!kind.sparse) return dense;
  if (r->sparse <= 0) return std::nullopt;
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
  std::vector<std::vector<std::string>> table;
  std::vector<const TensorSource*> cited;
  auto cite = [&](const std::string& key) {
    const TensorSource* s = peaks.Source(key);
    size_t index = std::find(cited.begin(), cited.end(), s) - cited.begin();
    if (index == cited.size()) cited.push_back(s);
    return absl::StrCat("[", index + 1, "]");
  };
  for (const TensorRate& r : d.arch->rates) {
    const TensorKind dense{r.dtype, false};
    std::string published = kNone;
    if (const std::optional<double> p = d.Published(dense)) {
      published = absl::StrCat(FormatNumber(*p), " (",
                               absl::StrFormat("%.0f", *d.PublishedMhz(dense)),
                               " MHz) ", cite(d.product->source));
    } else if (d.product != nullptr) {
      published = "unknown";
    }
    table.push_back({r.dtype, FormatNumber(r.dense),
                     r.sparse > 0 ? FormatNumber(r.sparse) : kNone,
                     Num(d.AtMax(dense)), published,
                     absl::StrCat(cite(r.source), " ", r.note)});
  }
  absl::StrAppend(
      &out,
      Table({"dtype", "dense FLOP/clk/SM", "2:4 sparse FLOP/clk/SM",
             absl::StrCat("dense peak @ max boost ", max_clock, " (TFLOP/s)"),
             "published dense peak (TFLOP/s, implied clock)", "source"},
            {false, true, true, true, true, false}, table),
      "\n");
  if (d.product != nullptr) {
    absl::StrAppend(&out, d.product->name, ": ", d.product->note, " ",
                    cite(d.product->source), "\n\n");
  }
  for (size_t i = 0; i < cited.size(); ++i) {
    if (cited[i] == nullptr) continue;
    absl::StrAppend(&out, "[", i + 1, "] ", cited[i]->publisher, ": \"",
                    cited[i]->title, "\", ", cited[i]->year, ", ",
                    cited[i]->where, ". ", cited[i]->url, "\n");
  }
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

// The optional "products" of architecture `a`, into arch.products.
absl::Status ParseProducts(const Json& a, std::string_view path,
                           const std::string& where, const TensorPeaks& peaks,
                           TensorArchitecture& arch) {
  if (!a.contains("products")) return absl::OkStatus();
  if (!a["products"].is_array()) {
    return Error(path, absl::StrCat(where, ": \"products\" must be an array"));
  }
  for (const Json& j : a["products"]) {
    TensorProduct product;
    const std::string pwhere =
        absl::StrCat(where, " product ", arch.products.size() + 1);
    for (auto [field, key] : {std::pair{&product.name, "name"},
                              {&product.source, "source"},
                              {&product.note, "note"}}) {
      absl::StatusOr<std::string> v = String(j, key, path, pwhere);
      if (!v.ok()) return v.status();
      *field = *v;
    }
    if (peaks.Source(product.source) == nullptr) {
      return Error(path, absl::StrCat(pwhere, ": unknown source \"",
                                      product.source, "\""));
    }
    absl::StatusOr<double> sms = Number(j, "sm_count", path, pwhere);
    if (!sms.ok()) return sms.status();
    if (*sms < 1) {
      return Error(path, absl::StrCat(pwhere, ": \"sm_count\" must be > 0"));
    }
    product.sm_count = static_cast<int>(*sms);
    const auto names = j.find("device_name_contains");
    if (names == j.end() || !names->is_array() || names->empty()) {
      return Error(path, absl::StrCat(pwhere,
                                      " needs a non-empty array "
                                      "\"device_name_contains\""));
    }
    for (const Json& n : *names) {
      if (!n.is_string() || n.get<std::string>().empty()) {
        return Error(path, absl::StrCat(pwhere,
                                        ": \"device_name_contains\" holds "
                                        "non-empty strings"));
      }
      product.device_name_contains.push_back(n.get<std::string>());
    }
    const auto tflops = j.find("dense_tflops");
    if (tflops == j.end() || !tflops->is_object()) {
      return Error(path,
                   absl::StrCat(pwhere, " needs an object \"dense_tflops\""));
    }
    for (const auto& [dtype, value] : tflops->items()) {
      if (arch.Find(dtype) == nullptr) {
        return Error(path, absl::StrCat(pwhere, ": \"dense_tflops\" names \"",
                                        dtype, "\", which has no rate"));
      }
      if (value.is_null()) {
        product.dense_tflops[dtype] = std::nullopt;
      } else if (value.is_number() && value.get<double>() > 0) {
        product.dense_tflops[dtype] = value.get<double>();
      } else {
        return Error(path, absl::StrCat(pwhere, ": \"dense_tflops\" of ", dtype,
                                        " must be > 0 or null"));
      }
    }
    arch.products.push_back(std::move(product));
  }
  return absl::OkStatus();
}

}  // namespace

const TensorRate* TensorArchitecture::Find(std::string_view dtype) const {
  for (const TensorRate& r : rates) {
    if (r.dtype == dtype) return &r;
  }
  return nullptr;
}

std::optional<double> TensorProduct::DenseTflops(std::string_view dtype) const {
  const auto it = dense_tflops.find(std::string(dtype));
  return it == dense_tflops.end() ? std::nullopt : it->second;
}

const TensorProduct* TensorArchitecture::ProductFor(
    std::string_view device_name, int sm_count) const {
  for (const TensorProduct& p : products) {
    if (p.sm_count != sm_count) continue;
    for (const std::string& part : p.device_name_contains) {
      if (absl::StrContains(Sv(device_name), part)) return &p;
    }
  }
  return nullptr;
}

const TensorArchitecture* TensorPeaks::ForComputeCapability(
    std::string_view cc) const {
  for (const TensorArchitecture& a : architectures) {
    if (a.compute_capability == cc) return &a;
  }
  return nullptr;
}

const TensorSource* TensorPeaks::Source(std::string_view key) const {
  for (const TensorSource& s : sources) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

const std::vector<std::string>& TensorDtypes() {
  static const auto* dtypes = new std::vector<std::string>{
      "fp32", "tf32", "fp16", "bf16", "fp8", "int8"};
  return *dtypes;
}

absl::StatusOr<TensorPeaks> ParseTensorPeaksJson(std::string_view text,
                                                 std::string_view path) {
  const Json j = Json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Error(path, "not a JSON object");
  if (j.value("format", "") != kTensorPeaksFormat) {
    return Error(path, absl::StrCat("\"format\" must be \"",
                                    Sv(kTensorPeaksFormat), "\""));
  }
  TensorPeaks peaks;
  if (!j.contains("sources") || !j["sources"].is_array()) {
    return Error(path, "\"sources\" must be an array");
  }
  for (const Json& s : j["sources"]) {
    TensorSource source;
    const std::string where = absl::StrCat("source ", peaks.sources.size() + 1);
    for (auto [field, key] : {std::pair{&source.key, "key"},
                              {&source.title, "title"},
                              {&source.publisher, "publisher"},
                              {&source.where, "where"},
                              {&source.url, "url"}}) {
      absl::StatusOr<std::string> v = String(s, key, path, where);
      if (!v.ok()) return v.status();
      *field = *v;
    }
    absl::StatusOr<double> year = Number(s, "year", path, where);
    if (!year.ok()) return year.status();
    source.year = static_cast<int>(*year);
    peaks.sources.push_back(std::move(source));
  }
  if (!j.contains("architectures") || !j["architectures"].is_array()) {
    return Error(path, "\"architectures\" must be an array");
  }
  for (const Json& a : j["architectures"]) {
    TensorArchitecture arch;
    const std::string where =
        absl::StrCat("architecture ", peaks.architectures.size() + 1);
    absl::StatusOr<std::string> name = String(a, "name", path, where);
    if (!name.ok()) return name.status();
    absl::StatusOr<std::string> cc =
        String(a, "compute_capability", path, where);
    if (!cc.ok()) return cc.status();
    arch.name = *name;
    arch.compute_capability = *cc;
    if (!a.contains("rates") || !a["rates"].is_array() || a["rates"].empty()) {
      return Error(path,
                   absl::StrCat(where, " needs a non-empty array \"rates\""));
    }
    for (const Json& r : a["rates"]) {
      TensorRate rate;
      const std::string rwhere =
          absl::StrCat(where, " rate ", arch.rates.size() + 1);
      for (auto [field, key] : {std::pair{&rate.dtype, "dtype"},
                                {&rate.source, "source"},
                                {&rate.note, "note"}}) {
        absl::StatusOr<std::string> v = String(r, key, path, rwhere);
        if (!v.ok()) return v.status();
        *field = *v;
      }
      const auto& known = TensorDtypes();
      if (std::find(known.begin(), known.end(), rate.dtype) == known.end()) {
        return Error(
            path, absl::StrCat(rwhere, ": unknown dtype \"", rate.dtype,
                               "\" (one of ", absl::StrJoin(known, ", "), ")"));
      }
      if (peaks.Source(rate.source) == nullptr) {
        return Error(path, absl::StrCat(rwhere, ": unknown source \"",
                                        rate.source, "\""));
      }
      absl::StatusOr<double> dense = Number(r, "dense", path, rwhere);
      if (!dense.ok()) return dense.status();
      absl::StatusOr<double> sparse = Number(r, "sparse", path, rwhere);
      if (!sparse.ok()) return sparse.status();
      if (*dense <= 0)
        return Error(path, absl::StrCat(rwhere, ": \"dense\" must be > 0"));
      rate.dense = *dense;
      rate.sparse = *sparse;
      arch.rates.push_back(std::move(rate));
    }
    absl::Status products = ParseProducts(a, path, where, peaks, arch);
    if (!products.ok()) return products;
    peaks.architectures.push_back(std::move(arch));
  }
  return peaks;
}

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
