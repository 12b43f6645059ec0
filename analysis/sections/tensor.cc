// Tensor-core section of the report; see tensor.h.

#include "analysis/sections/tensor.h"

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

namespace dissect::analysis {
namespace tensor_internal {
namespace {

// The SM clock below which a row says that the clock drooped: 2% under the
// maximum boost clock (NVML reads in steps of about 15 MHz).
constexpr double kDroop = 0.98;

double RateOf(const TensorArchitecture* arch, const TensorKind& kind) {
  if (arch == nullptr) return 0;
  const TensorRate* r = arch->Find(kind.dtype);
  if (r == nullptr) return 0;
  return kind.sparse ? r->sparse : r->dense;
}

}  // namespace

std::string Table(const std::vector<std::string>& header, const std::vector<bool>& right,
                  const std::vector<std::vector<std::string>>& rows) {
  std::string out = absl::StrCat("| ", absl::StrJoin(header, " | "), " |\n|");
  for (size_t i = 0; i < header.size(); ++i) out += right[i] ? " ---: |" : " --- |";
  out += "\n";
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    for (const std::string& c : row) cells.push_back(absl::StrReplaceAll(c, {{"|", "\\|"}}));
    absl::StrAppend(&out, "| ", absl::StrJoin(cells, " | "), " |\n");
  }
  return out;
}

std::string Percent(std::optional<double> fraction) {
  return fraction ? FormatPercent(*fraction) : kNone;
}

std::string Num(std::optional<double> v) { return v ? FormatNumber(*v) : kNone; }

double ContextNumber(const ResultFile& f, const char* key) {
  double v = 0;
  return absl::SimpleAtod(f.ContextOr(key, ""), &v) ? v : 0;
}

std::string KindName(const TensorKind& k) {
  return k.sparse ? absl::StrCat(k.dtype, " 2:4 sparse") : k.dtype;
}

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

std::string ClockCell(const Measurement& m, const TensorCeilings& d) {
  if (!m.clock_mhz) return kNone;
  std::vector<std::string> notes;
  if (m.mode == "throughput" && d.max_mhz > 0 && *m.clock_mhz < kDroop * d.max_mhz) {
    notes.push_back(absl::StrCat("droop −", FormatPercent(1 - *m.clock_mhz / d.max_mhz)));
  }
  if (m.row->Counter("clock_moved").value_or(0) == 1) notes.push_back("moved");
  return absl::StrCat(absl::StrFormat("%.0f", *m.clock_mhz), " ", m.clock_source,
                      notes.empty() ? "" : absl::StrCat(" (", absl::StrJoin(notes, "; "), ")"));
}

}  // namespace tensor_internal

namespace {

using tensor_internal::CeilingsBlock;
using tensor_internal::ClockCell;
using tensor_internal::ContextNumber;
using tensor_internal::GemmBlock;
using tensor_internal::KindName;
using tensor_internal::kNone;
using tensor_internal::Measurement;
using tensor_internal::Num;
using tensor_internal::Percent;
using tensor_internal::Percents;
using tensor_internal::PercentsOf;
using tensor_internal::RateOf;
using tensor_internal::Table;

absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

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
    if (absl::StartsWith(name, "cycles_per_") && !absl::StrContains(name, ".")) {
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
  m.gbps = row.Counter("bandwidth_gbps");
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

constexpr char kEmulatedNote[] =
    "emulated: ptxas expands this form into other instructions on this GPU; "
    "no % and not a best";

std::string ProbeBlock(const std::vector<const Measurement*>& probes, const TensorCeilings& d,
                       const std::map<std::string, double>& best) {
  std::vector<std::vector<std::string>> rows;
  for (const Measurement* m : probes) {
    const Percents p = PercentsOf(*m, d, best);
    rows.push_back({m->experiment, m->what, KindName(m->kind), m->mode, m->data, Num(m->cycles),
                    Num(m->per_clk_sm), Num(m->tflops), ClockCell(*m, d), Percent(p.at_measured),
                    Percent(p.at_max), Percent(p.published), Percent(p.best),
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
      Table({"experiment", "instruction", "type", "mode", "data", "cycles/instr", "FLOP/clk/SM",
             "TFLOP/s", "SM clock (MHz)", "% @ measured clock", "% @ max boost", "% of published",
             "% of best", "note"},
            {false, false, false, false, false, true, true, true, true, true, true, true, true,
             false},
            rows));
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

std::optional<TensorKind> KindOf(std::string_view value) {
  TensorKind kind;
  absl::string_view v = Sv(value);
  if (absl::ConsumePrefix(&v, "sp_")) kind.sparse = true;
  const std::string input(v.substr(0, v.find('_')));
  static const std::pair<const char*, const char*> kInputs[] = {
      {"f16", "fp16"}, {"bf16", "bf16"}, {"tf32", "tf32"}, {"s8", "int8"}, {"e4m3", "fp8"},
      {"e5m2", "fp8"}, {"fp32", "fp32"}, {"fp16", "fp16"}, {"fp8", "fp8"}, {"int8", "int8"},
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
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &s.m) || !absl::SimpleAtoi(parts[1], &s.n) ||
      !absl::SimpleAtoi(parts[2], &s.k) || s.m <= 0 || s.n <= 0 || s.k <= 0) {
    return std::nullopt;
  }
  return s;
}

std::string RenderTensorSections(const std::vector<ResultFile>& files, const TensorPeaks& peaks) {
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
      if (m.mode != "throughput" || m.data != "random" || !m.tflops || m.emulated) {
        continue;
      }
      double& b = best[KindName(m.kind)];
      b = std::max(b, *m.tflops);
    }
    std::vector<const Measurement*> probes, gemm;
    for (const Measurement& m : d.rows) {
      (m.experiment == "cublaslt_gemm" ? gemm : probes).push_back(&m);
    }
    std::string out = absl::StrCat("## tensor cores: ", f.ContextOr("device_name", "?"), "\n\n",
                                   f.ContextOr("device_name", "?"), " · cc ",
                                   f.ContextOr("device_compute_capability", "?"), " · ",
                                   f.ContextOr("device_sm_count", "?"), " SMs\n\n",
                                   CeilingsBlock(ceilings, peaks, d.rows));
    if (!probes.empty()) absl::StrAppend(&out, "\n", ProbeBlock(probes, ceilings, best));
    if (!gemm.empty()) absl::StrAppend(&out, "\n", GemmBlock(ceilings, gemm, best));
    sections.push_back(std::move(out));
  }
  return absl::StrJoin(sections, "\n");
}

}  // namespace dissect::analysis
